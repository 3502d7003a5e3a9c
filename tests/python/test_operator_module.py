"""Python's `operator` functions in kernels (called through the module or through a name
bound to one, as numba-cuda's tests do), against the same functions on the host."""
import operator

import numpy as np
import pytest

from cutwin import cuda

BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "iadd", "isub", "imul", "itruediv",
          "ifloordiv", "imod"]
INT_ONLY = ["lshift", "rshift", "and_", "or_", "xor", "ilshift", "irshift", "iand", "ior", "ixor"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]
UNARY = ["neg", "pos", "abs", "not_", "truth"]
INT_UNARY = ["invert", "inv"]


def _kernel(name, nargs):
    # the function bound to a global of the kernel's scope, as numba-cuda's tests do
    fn = getattr(operator, name)
    args = ", ".join("x[i]" if k == 0 else "y[i]" for k in range(nargs))
    scope = {"cuda": cuda, "op": fn}
    exec("def k(x, y, out):\n    i = cuda.grid(1)\n    if i < x.size:\n        out[i] = op(%s)\n" % args, scope)
    return cuda.jit(scope["k"])


@pytest.mark.parametrize("dtype", ["int64", "int32", "float64", "float32"])
def test_operator_functions(cutwin_backend, dtype):
    x = np.array([7, -3, 2, 5, 0, 9], dtype)
    y = np.array([2, 4, -3, 5, 1, 2], dtype)
    names = BINARY + COMPARE + UNARY + (INT_ONLY + INT_UNARY if dtype.startswith("int") else [])
    for name in names:
        nargs = 1 if name in UNARY + INT_UNARY else 2
        yy = np.abs(y) % 5 if "shift" in name else y
        if name in ("pow", "ipow") and dtype.startswith("int"):
            yy = np.abs(y)
        out = np.zeros(x.size)
        _kernel(name, nargs)[1, 8](x, yy, out)
        fn = getattr(operator, name)
        want = [float(fn(a.item(), b.item()) if nargs == 2 else fn(a.item())) for a, b in zip(x, yy)]
        tol = 1e-6 if dtype == "float32" else 0
        np.testing.assert_allclose(out, want, rtol=tol, err_msg="operator.%s on %s" % (name, dtype))


def test_module_attribute_form(cutwin_backend):
    @cuda.jit
    def k(a, out):
        out[0] = operator.add(a[0], a[1])
        out[1] = operator.truediv(a[0], a[1])

    out = np.zeros(2)
    k[1, 1](np.array([3, 4]), out)
    np.testing.assert_array_equal(out, [7, 0.75])
