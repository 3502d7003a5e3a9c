"""Calls inside kernels: NumPy ufuncs on numbers and on arrays with an output array, and
CPU functions (cutwin.jit, numba.jit) that kernels call and the host calls too."""
import math

import numpy as np
import pytest

import cutwin
from cutwin import cuda


@cuda.jit
def sin_into(r, x):
    np.sin(x, r)  # every thread computes the whole output, as in numba


@cuda.jit
def elementwise(out, a, b):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = np.maximum(a[i], b[i])
        out[i, 1] = np.fmin(a[i], b[i])
        out[i, 2] = np.arctan2(a[i], b[i])
        out[i, 3] = np.absolute(a[i]) + np.negative(b[i])
        out[i, 4] = np.true_divide(a[i], b[i])
        out[i, 5] = np.hypot(a[i], b[i])


@cuda.jit
def combine(a, b, out):
    np.add(a, b, out)
    np.multiply(out, 2, out)


@cutwin.jit(nopython=True)
def business_logic(x, y, z):
    return 4 * z * (2 * x - (4 * y) / 2 * math.pi)


@cuda.jit
def apply_logic(res, x, y, z):
    i = cuda.grid(1)
    if i < res.size:
        res[i] = business_logic(x[i], y[i], z[i])


def test_ufunc_with_output_array(cutwin_backend):
    x = np.arange(10, dtype=np.float32) - 5
    r = np.zeros_like(x)
    sin_into[1, 1](r, x)
    np.testing.assert_allclose(r, np.sin(x), rtol=1e-6)


def test_scalar_ufuncs_follow_numpy_nan_rules(cutwin_backend):
    a = np.array([1.0, np.nan, -3.0, 2.0, 0.0])
    b = np.array([2.0, 1.0, np.nan, -0.5, -0.0])
    out = np.zeros((5, 6))
    elementwise[1, 8](out, a, b)
    with np.errstate(invalid="ignore"):
        expect = np.stack([np.maximum(a, b), np.fmin(a, b), np.arctan2(a, b), np.abs(a) - b, a / b,
                           np.hypot(a, b)], axis=1)
    np.testing.assert_allclose(out, expect, rtol=1e-15, equal_nan=True)


def test_ufuncs_over_2d_arrays_with_numbers(cutwin_backend):
    A = np.arange(12.0).reshape(3, 4)
    B = np.ones((3, 4))
    out = np.zeros((3, 4))
    combine[1, 1](A, B, out)
    np.testing.assert_array_equal(out, (A + B) * 2)


def test_cpu_function_in_kernel_and_on_host(cutwin_backend):
    x, y, z = np.array([1, 10, 234]), np.array([2, 2, 4014]), np.array([3, 14, 2211])
    res = np.zeros(3)
    apply_logic.forall(3)(res, x, y, z)
    np.testing.assert_allclose(res, [business_logic(*v) for v in zip(x, y, z)], rtol=1e-15)
    np.testing.assert_array_equal(business_logic(x, y, z), 4 * z * (2 * x - (4 * y) / 2 * math.pi))


def _load_module(path):
    """The Python module of the file at `path` (imported under its stem)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_numba_jit_functions_in_a_kernel_file(cutwin_backend, tmp_path):
    if not hasattr(np, "row_stack"):  # numba 0.6x refers to it; NumPy 2.5 removed it
        np.row_stack = np.vstack
    pytest.importorskip("numba")  # the kernel file itself imports numba
    path = tmp_path / "uses_numba_jit.py"
    path.write_text(
        "import numba\nfrom numba import jit\nfrom cutwin import cuda\n\n"
        "@jit(nopython=True)\ndef twice(v):\n    return 2 * v\n\n"
        "@numba.njit\ndef plus_one(v):\n    return v + 1\n\n"
        "@cuda.jit\ndef k(out):\n    i = cuda.grid(1)\n    if i < out.size:\n        out[i] = plus_one(twice(i))\n")
    mod = _load_module(path)
    out = np.zeros(16, np.int64)
    mod.k[1, 16](out)
    np.testing.assert_array_equal(out, 2 * np.arange(16) + 1)
    assert mod.twice(21) == 42  # numba's own CPU function still runs on the host


def test_numba_jit_function_with_an_explicit_signature_is_cpu_only(tmp_path):
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    pytest.importorskip("numba")
    path = tmp_path / "uses_numba_jit_sig.py"
    path.write_text(
        "from numba import jit\nfrom cutwin import cuda\n\n"
        "@jit('(i4, i4)')\ndef add(a, b):\n    return a + b\n\n"
        "@cuda.jit\ndef k(out):\n    out[0] = add(1, 2)\n")
    mod = _load_module(path)
    # numba's rule: an explicit signature compiles the function for the CPU only
    with pytest.raises(cutwin.errors.TypingError, match="Untyped global name 'add':.*using cpu function on device"):
        mod.k[1, 1](np.zeros(1, np.int32))


@cuda.jit(cutwin.types.void(cutwin.types.CPointer(cutwin.types.uint8), cutwin.types.uint32))
def add_one(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] += 1


def test_cpointer_argument_from_the_array_interface(cutwin_backend):
    x = cuda.to_device(np.arange(10, dtype=np.uint8))
    add_one[1, 32](x.__cuda_array_interface__["data"][0], len(x))
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(1, 11, dtype=np.uint8))
    assert "CPointer(uint8)" in str(add_one.signatures[0])


def _caller_of(callee):
    sig = (cuda.int32[::1],)

    @cuda.jit(sig)
    def call_set_zero(a):
        callee(a)

    a = np.ones(2, np.int32)
    call_set_zero[1, 2](a)
    assert list(a) == [0, 1]
    return call_set_zero.inspect_llvm(sig)


@pytest.mark.parametrize("inline, inlined", [("always", True), (True, True), ("never", False), (False, False),
                                             (lambda expr, caller, callee: True, True),
                                             (lambda expr, caller, callee: False, False)])
def test_inline_option_inlines_calls_in_the_kernel_ir(cutwin_backend, inline, inlined):
    @cuda.jit(inline=inline)
    def set_zero(a):
        a[0] = 0

    ir = _caller_of(set_zero)
    assert ("call void @dev.set_zero" in ir) != inlined
    assert "alwaysinline" not in ir  # inlined by the frontend, not left to the code generator


def test_forceinline_marks_the_function_and_keeps_the_call(cutwin_backend):
    @cuda.jit(forceinline=True)
    def set_zero(a):
        a[0] = 0

    ir = _caller_of(set_zero)
    assert "call void @dev.set_zero" in ir and "alwaysinline" in ir
    with pytest.raises(ValueError, match="forced inlining in LTO-IR"):
        cuda.compile(set_zero.py_func, (cuda.float32[::1],), device=True, forceinline=True)


def test_inspection_shows_the_gpu_compilation_with_the_debug_info_asked_for(cutwin_backend):
    def store_one(a):
        a[0] = 1

    sig = (cuda.float32[::1],)
    plain, lines = cuda.jit(store_one), cuda.jit(lineinfo=True)(store_one)
    ir, ptx = plain.inspect_llvm(sig), plain.inspect_asm(sig)
    assert "DICompileUnit" not in ir and ".loc" not in ptx and ".file" not in ptx
    assert "cutwin.error.raise" not in ir  # no bounds checks unless asked for, as on the GPU
    ir, ptx = lines.inspect_llvm(sig), lines.inspect_asm(sig)
    assert "emissionKind: DebugDirectivesOnly" in ir and "FullDebug" not in ir
    assert ".loc" in ptx and "test_calls.py" in ptx and ".debug_info" not in ptx


def test_types_equal_numbas_of_the_same_name():
    numba_types = pytest.importorskip("numba.core.types")
    assert cutwin.types.float32 == numba_types.float32 and cutwin.types.none == numba_types.none
    assert cutwin.types.float32[::1] == numba_types.float32[::1]
    assert cutwin.types.int64 != numba_types.int32


def test_type_annotation_and_inspect_types_show_each_variables_type(cutwin_backend):
    import io

    @cuda.jit
    def k(a, n):
        s = cuda.shared.array(4, dtype=cuda.int16)
        x = a[0] * 2
        s[0] = n
        a[0] = x + s[0]

    k[1, 1](np.zeros(1, np.float32), 3)
    annotation = next(iter(k.overloads.values()))._type_annotation
    assert {name: str(t) for name, t in annotation.typemap.items()} == {
        "a": "float32[::1]", "n": "int64", "s": "int16[::1]", "x": "float64"}
    assert annotation.typemap["s"].dtype == cuda.int16
    out = io.StringIO()
    k.inspect_types(file=out)
    assert out.getvalue().splitlines() == ["k (float32[::1], int64)", "    a: float32[::1]", "    n: int64",
                                           "    s: int16[::1]", "    x: float64"]


def test_inspection_dicts_take_numbas_types_and_overloads_take_a_signature(cutwin_backend):
    numba_types = pytest.importorskip("numba.core.types")

    @cuda.jit
    def k(a):
        a[0] = 1

    k[1, 1](np.zeros(1))
    by_types = k.inspect_asm()
    assert by_types[(numba_types.float64[::1],)] == by_types[(cutwin.types.float64[::1],)]
    overload = k.overloads[(cutwin.types.float64[::1],)]
    assert overload.inspect_asm(overload.signature) == overload.inspect_asm()


def test_launching_a_device_function_is_refused():
    @cuda.jit(device=True)
    def f():
        pass

    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel: 'f'"):
        f[1, 1]()
