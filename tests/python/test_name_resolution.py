"""Kernels get the meaning of their names from the running program, however it organises
its modules: `cuda` from a helper module, star and conditional imports, closures, device
functions from other modules (which call a third), nested and generated functions, and
types, builtins and device functions passed as arguments. Each result is checked against
NumPy, on every backend the run selects."""
import enum
import linecache
import math

import numpy as np
import pytest

import cutwin
from interface_only import InterfaceOnly
from resolution_helpers import conditional, deep
from resolution_helpers.common import *  # noqa: F401,F403  cuda, scale, FACTOR, DT, OFFSETS, m, twice
from resolution_helpers.common import cuda as helper_cuda


@helper_cuda.jit
def uses_star_imports(x, out):
    # cuda, m, scale, FACTOR and OFFSETS all come from `from ... import *`.
    i = cuda.grid(1)
    if i < x.size:
        out[i] = scale(x[i]) + m.sqrt(4.0) + OFFSETS[i % OFFSETS.size] + FACTOR


def test_names_from_a_star_import_of_a_helper_module(cutwin_backend):
    x = np.linspace(-3, 3, 70)
    out = np.zeros_like(x)
    uses_star_imports[2, 64](x, out)
    np.testing.assert_array_equal(out, x * 3 + 2.0 + np.resize(OFFSETS, 70) + 3)


@cuda.jit
def calls_other_modules(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        # deep.scaled_plus calls common.scale (as `triple`) and deep.twice; this file's
        # `twice` is common.twice: same name, different functions, one kernel.
        out[i] = deep.scaled_plus(x[i], y[i]) + twice(y[i]) + conditional.polar_radius(complex(x[i], y[i]))


def test_device_functions_from_other_modules_and_a_third(cutwin_backend):
    rng = np.random.default_rng(3)
    x, y = rng.uniform(-2, 2, 100), rng.uniform(-2, 2, 100)
    out = np.zeros(100)
    calls_other_modules[1, 128](x, y, out)
    np.testing.assert_allclose(out, (3 * x + 2 * y) + 2 * y + np.hypot(x, y), rtol=1e-15, atol=1e-14)


def make_kernel(dtype, bias, fn):
    """A kernel factory: the kernel's dtype, constant and device function are closure
    cells, different for each kernel it makes."""

    @cuda.jit
    def kernel(x, out):
        tmp = cuda.local.array(2, dtype)
        i = cuda.grid(1)
        if i < x.size:
            tmp[0] = x[i]
            out[i] = fn(tmp[0]) + bias

    return kernel


@cuda.jit(device=True)
def negate(v):
    return -v


def test_closures_give_each_kernel_its_own_values(cutwin_backend):
    x = np.arange(10, dtype=np.float64) + 0.75
    a, b = np.zeros(10), np.zeros(10)
    make_kernel(np.float32, 1, scale)[1, 32](x, a)
    make_kernel(np.int32, -0.5, negate)[1, 32](x, b)
    np.testing.assert_array_equal(a, np.float32(x) * 3 + 1)
    np.testing.assert_array_equal(b, -np.int32(x) - 0.5)


def test_nested_functions_keep_their_lines_and_columns(cutwin_backend):
    def build():
        @cuda.jit(device=True)
        def inner(v):
            return v * v

        @cuda.jit
        def outer(out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = inner(i) + undefined_name  # noqa: F821

        return outer

    k = build()
    with pytest.raises(cutwin.errors.CompileError) as e:
        k[1, 8](np.zeros(8))
    assert e.value.line == k.py_func.__code__.co_firstlineno + 4
    assert linecache.getline(__file__, e.value.line).index("undefined_name") + 1 == e.value.col
    assert "name 'undefined_name' is not defined" in str(e.value)
    assert __file__ in str(e.value)


@cuda.jit(device=True)
def apply(op, ary, idx, value, dtype, n):
    # A builtin, a type and a constant passed as arguments: `n` shapes a shared array.
    sm = cuda.shared.array(n, dtype)
    t = cuda.threadIdx.x
    sm[t] = 0
    cuda.syncthreads()
    op(sm, idx % n, value)
    cuda.syncthreads()
    ary[t] = sm[t]


@cuda.jit
def functions_and_types_as_arguments(iary, fary):
    apply(cuda.atomic.add, iary, cuda.threadIdx.x, 1, np.int32, 16)
    apply(cuda.atomic.max, fary, 0, cuda.threadIdx.x * 0.5, cutwin.float64, 16)


def test_builtins_types_and_constants_as_arguments(cutwin_backend):
    iary, fary = np.zeros(16, np.int32), np.zeros(16)
    functions_and_types_as_arguments[1, 16](iary, fary)
    np.testing.assert_array_equal(iary, np.ones(16, np.int32))
    np.testing.assert_array_equal(fary, [7.5] + [0.0] * 15)


@cuda.jit(device=True)
def fold(f, a, b):
    return f(a, b)


@cuda.jit(device=True)
def add(a, b):
    return a + b


@cuda.jit(device=True)
def mul(a, b):
    return a * b


@cuda.jit
def device_functions_as_arguments(x, out):
    i = cuda.grid(1)
    if i < x.size:
        op = add if i % 2 == 0 else add  # a variable holding a device function
        out[i] = fold(op, x[i], 1.0) + fold(mul, x[i], 3.0)


def test_device_functions_passed_and_held_in_variables(cutwin_backend):
    x = np.arange(20, dtype=np.float64)
    out = np.zeros(20)
    device_functions_as_arguments[1, 32](x, out)
    np.testing.assert_array_equal(out, (x + 1) + 3 * x)


@cuda.jit
def fill(out, v):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = v


@cuda.jit
def calls_a_kernel(out):
    # numba-cuda compiles a kernel called from a kernel as a device function.
    fill(out, 7)


def test_a_kernel_called_from_a_kernel_is_a_device_function(cutwin_backend):
    out = np.zeros(40, np.int64)
    calls_a_kernel[1, 64](out)
    np.testing.assert_array_equal(out, np.full(40, 7))


def test_modules_under_any_name(cutwin_backend):
    import cutwin.cuda as gpu
    import math as mm
    from cutwin.cuda import atomic, grid

    @gpu.jit
    def k(out, counter):
        i = grid(1)
        if i < out.size:
            out[i] = mm.floor(i / 2)
            atomic.add(counter, 0, 1)

    out, counter = np.zeros(33), np.zeros(1, np.int64)
    k[1, 64](out, counter)
    np.testing.assert_array_equal(out, np.floor(np.arange(33) / 2))
    assert counter[0] == 33


def test_generated_source_registered_with_linecache(cutwin_backend):
    text = "def gen(out):\n    i = cuda.grid(1)\n    if i < out.size:\n        out[i] = i * K\n"
    filename = "<generated kernel>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = {"cuda": cuda, "K": 5}
    exec(compile(text, filename, "exec"), scope)
    k = cuda.jit(scope["gen"])
    out = np.zeros(12, np.int64)
    k[1, 16](out)
    np.testing.assert_array_equal(out, np.arange(12) * 5)


def test_exec_of_a_string_is_recovered():
    # Python keeps no copy of an exec'd string; cutwin sees it compiled (an audit hook)
    # and finds the function in it by its bytecode.
    template = "def gen_{op}(out, x):\n    i = cuda.grid(1)\n    if i < x.size:\n        out[i] = {expr}\n"
    made = {}
    for op, expr in [("square", "x[i] * x[i]"), ("neg", "-x[i]")]:
        scope = {"cuda": cuda}
        exec(template.format(op=op, expr=expr), scope)
        made[op] = cuda.jit(scope["gen_" + op])
    # One template, texts differing only in a name: the same bytecode (numba's own tests
    # exec `{func}(res, 0, x)` for each atomic operation). Each must find its own text.
    same = "def gen(out, x):\n    {func}(out, 0, x[cuda.grid(1)])\n"
    for func in ("cuda.atomic.max", "cuda.atomic.min", "cuda.atomic.add"):
        scope = {"cuda": cuda}
        exec(same.format(func=func), scope)
        made[func] = cuda.jit(scope["gen"])
    x = np.arange(8.0)
    out = np.zeros(8)
    made["square"][1, 8](out, x)
    np.testing.assert_array_equal(out, x * x)
    made["neg"][1, 8](out, x)
    np.testing.assert_array_equal(out, -x)
    for func, want in (("cuda.atomic.max", 7.0), ("cuda.atomic.min", -1.0), ("cuda.atomic.add", 27.0)):
        res = np.array([-1.0])
        made[func][1, 8](res, x)
        assert res[0] == want, func


def test_unrecoverable_source_names_the_function_and_the_fix():
    scope = {"cuda": cuda}
    exec("def hidden(out):\n    out[0] = 1\n", scope)
    fn = scope["hidden"]
    fn.__code__ = fn.__code__.replace(co_filename="<no source anywhere>")  # as code loaded from elsewhere
    k = cuda.jit(fn)
    with pytest.raises(cutwin.errors.CompileError, match="cannot read the source of 'hidden'.*linecache"):
        k[1, 1](np.zeros(1))


def plain_python(v):
    return v + 1


@cuda.jit
def calls_plain_python(out):
    out[0] = plain_python(1)


@cuda.jit
def uses_host_object(out):
    out[0] = linecache.cache


def test_host_only_names_are_clear_errors():
    with pytest.raises(cutwin.errors.CompileError, match="plain Python function; decorate it with"):
        calls_plain_python[1, 1](np.zeros(1))
    with pytest.raises(cutwin.errors.CompileError, match="Untyped global name 'linecache.cache': it is a dict object, which kernels cannot"):
        uses_host_object[1, 1](np.zeros(1))


@cuda.jit
def uses_the_math_module_value(out):
    out[0] = math.pi + conditional.FACTOR


def test_attributes_of_modules_held_by_other_modules(cutwin_backend):
    out = np.zeros(1)
    uses_the_math_module_value[1, 1](out)
    assert out[0] == math.pi + 3


K = 6
PAIR = (4, 9)


@cuda.jit(device=True)
def ident(v):
    return v


@cuda.jit(device=True)
def first(t):
    return t[0] + t[1]


@cuda.jit
def every_kind_of_argument(a, out):
    # Device functions specialise on compile-time arguments (literals, globals, folded
    # expressions); run-time values - even those whose typing knows something at compile
    # time, like cuda.grid(1)'s dimension count or an array's shape - stay run-time.
    i = cuda.grid(1)
    if i < a.size:
        sm = cuda.shared.array(4, np.int64)
        sm[0] = 5
        out[i, 0] = ident(cuda.grid(1))
        out[i, 1] = ident(cuda.threadIdx.x)
        out[i, 2] = ident(3)
        out[i, 3] = ident(K)
        out[i, 4] = ident(2 * K + 1)
        out[i, 5] = first(PAIR)
        out[i, 6] = first((i, 1))
        out[i, 7] = ident(a.shape[0])
        out[i, 8] = ident(len(a))
        out[i, 9] = ident(min(2, i))
        out[i, 10] = ident(np.int32(7))
        out[i, 11] = ident(a[i])
        out[i, 12] = ident(sm.shape[0])
        out[i, 13] = ident(sm[0])
        out[i, 14] = ident(i)


def test_constant_and_runtime_arguments_of_device_functions(cutwin_backend):
    a = np.arange(40, dtype=np.int64) * 3
    out = np.zeros((40, 15), np.int64)
    every_kind_of_argument[2, 32](a, out)
    i = np.arange(40)
    expected = np.stack([i, i % 32, np.full(40, 3), np.full(40, 6), np.full(40, 13), np.full(40, 13), i + 1,
                         np.full(40, 40), np.full(40, 40), np.minimum(2, i), np.full(40, 7), a, np.full(40, 4),
                         np.full(40, 5), i], axis=1)
    np.testing.assert_array_equal(out, expected)


USE_FAST_PATH = False


@cuda.jit(device=True)
def pick(v, flag):
    # With `flag` a constant the branch not taken is not typed: here it would mix a
    # uint64 and an int64 into a float64 index (numba prunes it as well).
    idx = (v, np.uint64(1))
    if flag:
        idx = (idx[0] % 3, idx[1] % np.int64(2))
        only_here = 1.5
        return idx[0] + only_here
    return idx[0] + idx[1]


@cuda.jit
def constant_conditions(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = pick(i, False)
        out[i, 1] = pick(i, True)
        if USE_FAST_PATH:
            out[i, 2] = undefined_function(i)  # noqa: F821  never compiled
        else:
            out[i, 2] = -i


def test_branches_on_compile_time_constants_are_pruned(cutwin_backend):
    out = np.zeros((10, 3))
    constant_conditions[1, 16](out)
    i = np.arange(10)
    np.testing.assert_array_equal(out, np.stack([i + 1, i % 3 + 1.5, -i], axis=1))


SCALE = 3


@cuda.jit(device=True)
def with_defaults(a, b=None, c=SCALE, d=2.5):
    if b is None:  # decided when compiled: the other path is not typed (b * c with b None)
        return a * c + d
    return a + b * c


@cuda.jit
def calls_with_keywords_and_defaults(out):
    out[0] = with_defaults(1)
    out[1] = with_defaults(1, 2)
    out[2] = with_defaults(1, c=10)
    out[3] = with_defaults(a=2, d=0.5)
    out[4] = with_defaults(1, None, 4)


def test_defaults_keywords_and_none_arguments(cutwin_backend):
    # Defaults are the values Python evaluated where the def ran (SCALE then), as numba
    # takes them.
    out = np.zeros(5)
    calls_with_keywords_and_defaults[1, 1](out)
    f = with_defaults.py_func
    np.testing.assert_array_equal(out, [f(1), f(1, 2), f(1, c=10), f(a=2, d=0.5), f(1, None, 4)])


class Color(enum.Enum):
    red = 0
    green = 1


class Status(enum.IntEnum):
    not_found = 404
    internal_error = 500


@cuda.jit
def uses_enums(x, c, out):
    out[0] = Color.red == Color.green
    out[1] = Color["red"] == Color.red
    out[2] = x - Status.not_found if x > Status.internal_error else x + Status.internal_error
    out[3] = c == Color.green
    out[4] = c is Color.green


def test_enum_members_and_classes(cutwin_backend):
    for x, c in [(550, Color.green), (300, Color.red)]:
        out = np.zeros(5)
        uses_enums[1, 1](x, c, out)
        want = [Color.red == Color.green, Color["red"] == Color.red,
                x - Status.not_found if x > Status.internal_error else x + Status.internal_error,
                c == Color.green, c is Color.green]
        np.testing.assert_array_equal(out, want)


def test_captured_global_with_only_the_cuda_array_interface(cutwin_backend):
    global _FOREIGN_GLOBAL
    backing = cuda.to_device(np.arange(6, dtype=np.float32))
    _FOREIGN_GLOBAL = InterfaceOnly(backing)

    @cuda.jit
    def double(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = _FOREIGN_GLOBAL[i] * 2
            _FOREIGN_GLOBAL[i] = -1  # captured by address: the kernel writes that memory

    out = cuda.device_array(6, np.float32)
    double[1, 6](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(6) * 2)
    np.testing.assert_array_equal(backing.copy_to_host(), -1)
