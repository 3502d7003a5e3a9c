"""Compile diagnostics and kernel faults as Python exceptions; the interpreter survives and
the next launch works."""
import inspect

import numpy as np
import pytest

import cutwin
from cutwin import cuda
from cutwin.errors import CompileError, KernelError, KernelIndexError


@cuda.jit
def out_of_bounds(a):
    i = cuda.grid(1)
    a[i] = i  # no bounds test: threads past the end fault


@cuda.jit
def untyped(a):
    a[0] = undefined_name  # noqa: F821


@cuda.jit
def ok(a):
    a[0] = 42


def line_of(fn, text):
    src, start = inspect.getsourcelines(fn.py_func)
    return start + next(k for k, l in enumerate(src) if text in l)


def test_out_of_bounds_is_an_index_error_naming_kernel_line_thread_block():
    with cuda.use_backend("sim"), pytest.raises(IndexError) as info:
        a = cuda.device_array(100, np.int32)
        out_of_bounds[2, 64](a)
    e = info.value
    assert isinstance(e, KernelIndexError) and isinstance(e, KernelError)
    assert e.kernel == "out_of_bounds"
    assert e.file == __file__
    assert e.line == line_of(out_of_bounds, "a[i] = i")
    assert e.block == (1, 0, 0) and 36 <= e.thread[0] < 64
    assert "out_of_bounds" in str(e) and "test_errors.py:%d" % e.line in str(e)
    # The process keeps working: the next launch runs.
    with cuda.use_backend("sim"):
        b = cuda.device_array(1, np.int32)
        ok[1, 1](b)
        assert b.copy_to_host()[0] == 42


def test_compile_error_names_file_line_column():
    with pytest.raises(CompileError) as info:
        untyped[1, 1](np.zeros(1))
    e = info.value
    assert e.file == __file__
    assert e.line == line_of(untyped, "undefined_name")
    assert e.col == 12
    assert "undefined_name" in e.msg
    assert "%s:%d:12: error" % (__file__, e.line) in str(e)


def test_compile_error_is_raised_again_not_cached_as_success():
    for _ in range(2):
        with pytest.raises(CompileError):
            untyped[1, 1](np.zeros(1))


def test_launch_configuration_errors():
    with pytest.raises(ValueError):
        ok[1](np.zeros(1))
    with pytest.raises(ValueError):
        ok[(1, 2, 3, 4), 1](np.zeros(1))
    with pytest.raises(cuda.LaunchError):
        ok[1, 2048](np.zeros(1, np.int32))  # more threads per block than the device allows


@cuda.jit(boundscheck=True)
def checked(a):
    i = cuda.grid(1)
    a[i] = i


def test_bounds_checked_kernel_raises_on_every_backend(cutwin_backend):
    a = cuda.device_array(10, np.int32)
    with pytest.raises(IndexError) as info:
        checked[1, 32](a)
        cuda.synchronize()  # GPU launches are asynchronous: the fault surfaces here
    assert info.value.kernel == "checked" and info.value.thread[0] >= 10
    b = cuda.device_array(1, np.int32)
    ok[1, 1](b)
    assert b.copy_to_host()[0] == 42



@cuda.jit(debug=True, opt=False)
def positive(a):
    i = cuda.grid(1)
    if i < a.size:
        assert a[i] > 0, "values must be positive"


def test_assert_in_a_debug_kernel(cutwin_backend):
    positive[1, 8](np.ones(8, np.float32))  # passes
    bad = np.ones(8, np.float32)
    bad[5] = -1
    with pytest.raises(AssertionError) as info:
        positive[1, 8](bad)
        cuda.synchronize()
    assert info.value.kernel == "positive" and info.value.thread == (5, 0, 0)
    assert "values must be positive" in str(info.value)


@cuda.jit
def range_with_step(out, start, stop, step):
    acc = 0
    for i in range(start, stop, step):
        acc += i
    out[cuda.threadIdx.x] = acc


def test_a_zero_range_step_raises_value_error_not_a_hang(cutwin_backend):
    out = np.zeros(4, np.int64)
    for start, stop, step in [(0, 10, 3), (10, -3, -4), (5, 5, 2), (0, 7, -1)]:
        range_with_step[1, 4](out, start, stop, step)
        np.testing.assert_array_equal(out, sum(range(start, stop, step)))
    with pytest.raises(ValueError, match=r"test_errors.py:\d+ in range_with_step, thread \(0,0,0\) block "
                                         r"\(0,0,0\): ValueError: range\(\) arg 3 must not be zero") as e:
        range_with_step[1, 4](out, 0, 10, 0)
    assert e.value.line == range_with_step.py_func.__code__.co_firstlineno + 3  # the for line
    range_with_step[1, 4](out, 1, 4, 1)  # the process keeps working
    np.testing.assert_array_equal(out, 6)


@cuda.jit
def tuples_indexed_at_run_time(a, fout, iout, bout):
    i = cuda.grid(1)
    if i < fout.size:
        f = (1.5, -2.25, 3.0)
        b = (True, False, True, False)
        fout[i] = f[i % 3] + f[-1 - i % 3]
        iout[i] = a.shape[i % 2] + a.strides[-1 - i % 2]
        bout[i] = b[i % 4]


@cuda.jit(debug=True)  # checked on the GPU too
def tuple_index_out_of_range(a):
    x = cuda.threadIdx.x
    if x == 2:
        a[0] = a.shape[-x]


def test_tuples_indexed_at_run_time(cutwin_backend):
    a = np.zeros((3, 5), np.int32)
    fout, iout, bout = np.zeros(12), np.zeros(12, np.int64), np.zeros(12, np.bool_)
    tuples_indexed_at_run_time[1, 16](a, fout, iout, bout)
    f, b, i = (1.5, -2.25, 3.0), (True, False, True, False), np.arange(12)
    np.testing.assert_array_equal(fout, [f[k % 3] + f[-1 - k % 3] for k in i])
    np.testing.assert_array_equal(iout, [a.shape[k % 2] + a.strides[-1 - k % 2] for k in i])
    np.testing.assert_array_equal(bout, [b[k % 4] for k in i])
    with pytest.raises(IndexError, match=r"thread \(2,0,0\) block \(0,0,0\): tuple index out of range: index -2 "
                                         r"of a tuple of 1"):
        tuple_index_out_of_range[1, 3](np.zeros(2))


class ThresholdError(Exception):
    """A program's own exception class."""

    def __init__(self, value, limit):  # a constructor a message alone does not fit
        super().__init__("%s over %s" % (value, limit))


MESSAGE = "value too large"


@cuda.jit(device=True)
def check(v):
    if v > 10:
        raise ThresholdError(MESSAGE)


@cuda.jit(debug=True)
def raises_user_exception(a):
    i = cuda.grid(1)
    if i < a.size:
        check(a[i])


def test_user_exception_classes_come_back_as_themselves(cutwin_backend):
    a = np.arange(16)
    with pytest.raises(ThresholdError) as e:
        raises_user_exception[1, 16](a)
    assert isinstance(e.value, KernelError)
    # numba-cuda's words, with the calling kernel added
    text = str(e.value)
    assert text.startswith("In function 'check', file %s, line " % __file__), text
    assert "(called from kernel 'raises_user_exception'), tid=[11, 0, 0] ctaid=[0, 0, 0]: value too large" in text
    assert e.value.thread == (11, 0, 0) and e.value.line > 0
    raises_user_exception[1, 16](np.arange(5))  # and the process keeps working


def test_the_simulators_target_processor_can_be_chosen_and_must_fit_the_host():
    # CUTWIN_SIM_CPU: the baseline compiles and runs; an unknown name, or a processor whose
    # features this host lacks, is an error saying so at the first launch.
    import os
    import subprocess
    import sys

    program = ("import numpy as np\n"
               "from cutwin import cuda\n"
               "@cuda.jit\n"
               "def k(a):\n"
               "    a[0] = int(a[1] * 2.5)\n"
               "a = np.array([0, 3], np.int64)\n"
               "k[1, 1](a)\n"
               "print(a[0])\n")

    def run(cpu):
        env = dict(os.environ, CUTWIN_SIM_CPU=cpu, CUTWIN_BACKEND="sim")
        return subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=300)

    r = run("x86-64")
    assert r.returncode == 0 and r.stdout.split() == ["7"], r.stderr
    r = run("no-such-cpu")
    assert r.returncode != 0 and "CUTWIN_SIM_CPU=no-such-cpu: not a processor LLVM knows" in r.stderr
    with open("/proc/cpuinfo") as f:
        has_avx512 = " avx512f " in f.read().replace("\n", " ")
    r = run("x86-64-v4")  # AVX-512
    if has_avx512:
        assert r.returncode == 0 and r.stdout.split() == ["7"], r.stderr
    else:
        assert r.returncode != 0 and "needs what this processor lacks" in r.stderr and "avx512f" in r.stderr, r.stderr


# Division by zero follows numba-cuda's error models (numba's cpython/numbers.py): with
# debug=True ("python") a ZeroDivisionError with numba's words; otherwise ("numpy") no
# exception: integers give 0, floats IEEE's inf or NaN. MIN // -1 overflows: numba-cuda
# defines it as 0 (and MIN % -1 as 0) in both.
@cuda.jit(debug=True)
def divide_checked(a, b, which, out):
    x, y = a[0], b[0]
    if which == 0:
        out[0] = x // y
    elif which == 1:
        out[0] = x % y
    elif which == 2:
        out[0] = x / y
    else:
        z = x
        z //= y
        out[0] = z


@cuda.jit
def divide_unchecked(a, b, out):
    out[0] = a[0] // b[0]
    out[1] = a[0] % b[0]
    out[2] = a[0] / b[0]


ZERO_DIVISION_WORDS = {
    "int64": ["integer division by zero", "integer modulo by zero", "division by zero", "integer division by zero"],
    "float64": ["division by zero", "modulo by zero", "division by zero", "division by zero"],
}


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_zero_divisors_raise_zero_division_error_with_debug(cutwin_backend, dtype):
    a, zero = np.array([7], dtype), np.array([0], dtype)
    for which, words in enumerate(ZERO_DIVISION_WORDS[dtype]):
        with pytest.raises(ZeroDivisionError, match=words) as e:
            divide_checked[1, 1](a, zero, which, np.zeros(1, np.float64))
        assert isinstance(e.value, KernelError) and e.value.line > 0
    out = np.zeros(1, np.float64)
    divide_checked[1, 1](a, np.array([2], dtype), 0, out)  # a nonzero divisor: no exception
    assert out[0] == 3


@cuda.jit(debug=True, fastmath=True)
def divide_fast(a, b, out):
    out[0] = a[0] / b[0]


def test_fastmath_float32_division_does_not_check_the_divisor(cutwin_backend):
    # numba-cuda's fastmath float32 `/` is __nv_fast_fdividef: no ZeroDivisionError even
    # with debug=True; float64 `/` and `//` still raise
    out = np.zeros(1, np.float32)
    divide_fast[1, 1](np.array([10.0], np.float32), np.array([0.0], np.float32), out)
    assert np.isinf(out[0]) and out[0] > 0
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        divide_fast[1, 1](np.array([10.0]), np.array([0.0]), np.zeros(1))


def test_zero_divisors_without_debug_and_the_overflowing_quotient():
    out = np.zeros(3, np.float64)
    divide_unchecked[1, 1](np.array([7], np.int64), np.array([0], np.int64), out)
    assert out[0] == 0 and out[1] == 0 and np.isinf(out[2])
    lo = np.iinfo(np.int64).min
    out = np.zeros(3, np.float64)
    divide_unchecked[1, 1](np.array([lo], np.int64), np.array([-1], np.int64), out)
    assert out[0] == 0 and out[1] == 0 and out[2] == -float(lo)
    # int32 operands are computed in int64, as numba types them: no overflow there
    lo32 = np.iinfo(np.int32).min
    divide_unchecked[1, 1](np.array([lo32], np.int32), np.array([-1], np.int32), out)
    assert out[0] == -lo32 and out[1] == 0
    for dtype in (np.int64, np.int32):
        lo = np.iinfo(dtype).min
        out = np.zeros(3, np.float64)
        divide_unchecked[1, 1](np.array([lo], dtype), np.array([1], dtype), out)
        assert out[0] == lo and out[1] == 0


UNSUPPORTED_IN_KERNELS = [
    ('with open("x") as f:\n        a[0] = 2', 5, "'with' statements are not supported in kernels"),
    ("try:\n        a[0] = 2\n    except Exception:\n        pass", 5, "'try' statements are not supported"),
    ("a[0] = (lambda x: x)(2)", 13, "lambda expressions are not supported"),
    ("a[0] = len({1: 2})", 16, "dict and set displays are not supported"),
    ("if (n := 2):\n        a[0] = n", 11, "assignment expressions (':=') are not supported"),
    ("a[0] = [x for x in range(3)][0]", 15, "list comprehensions are not supported"),
    # (found by the typing matrix, tests/fuzz/typing_matrix.py: internal errors before)
    ("range(a.size)", 10, "range() makes no value of its own in kernels"),
    ("a[0] = int(1j)", 16, "int() of a complex number: take its .real or abs() first"),
    ("a[0] = float(a[0] * 1j)", 23, "float() of a complex number"),
]


@pytest.mark.parametrize("body, column, words", UNSUPPORTED_IN_KERNELS)
def test_an_unsupported_construct_is_named_at_its_place_and_fails_only_its_kernel(tmp_path, body, column, words):
    # The kernel's own source (its decorator applied by the host) is what cutwin parses:
    # a construct it cannot compile is reported at file:line:col, and the file's other
    # kernels compile and run.
    import importlib.util

    path = tmp_path / "kernels_with_one_bad.py"
    path.write_text("from cutwin import cuda\n\n\n@cuda.jit\ndef good(a):\n    a[0] = 1\n\n\n"
                    "@cuda.jit\ndef bad(a):\n    %s\n" % body)
    spec = importlib.util.spec_from_file_location("kernels_with_one_bad", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a = np.zeros(1)
    with pytest.raises(CompileError) as e:
        module.bad[1, 1](a)
    assert str(e.value).startswith("%s:11:%d: error: " % (path, column)) and words in str(e.value), str(e.value)
    module.good[1, 1](a)
    assert a[0] == 1


# The simulator's device memory is apart from the host heap, with guard pages: with bounds
# checks off, a write past an array's end or into released memory is an illegal address
# naming kernel and thread, never a corrupted host heap. (A GPU lets small overruns and
# writes to freed memory pass silently; compute-sanitizer reports them.)
@cuda.jit(boundscheck=False)
def store_unchecked(a, k, v):
    if cuda.grid(1) == 0:
        a[k] = v


class _ForeignView:
    """Another library's view of device memory (the CUDA Array Interface)."""

    def __init__(self, interface):
        self.__cuda_array_interface__ = interface


def test_an_unchecked_overrun_or_a_write_to_released_memory_is_an_illegal_address():
    with cuda.use_backend("sim"):
        host_before = [bytes(range(256)) * 4 for _ in range(100)]
        a = cuda.device_array(100, np.float32)
        b = cuda.to_device(np.zeros(100, np.float32))
        with pytest.raises(KernelError, match=r"in store_unchecked, thread \(0,0,0\) block \(0,0,0\): illegal "
                                              r"memory access") as e:
            store_unchecked[1, 1](a, 100 + 64, 1.0)  # 64 elements past the end
        np.testing.assert_array_equal(b.copy_to_host(), np.zeros(100, np.float32))
        assert host_before == [bytes(range(256)) * 4 for _ in range(100)]

        d = cuda.device_array(512, np.float64)
        view = cuda.as_cuda_array(_ForeignView(d.__cuda_array_interface__))
        del d  # the memory is released; the foreign view still points there
        with pytest.raises(KernelError, match="illegal memory access"):
            store_unchecked[1, 1](view, 3, 1.0)
        out = cuda.device_array(8, np.float64)  # and the device keeps working
        store_unchecked[1, 1](out, 3, 2.0)
        assert out.copy_to_host()[3] == 2.0


class _PointerView:
    """Another library's array at a raw address (the CUDA Array Interface)."""

    def __init__(self, address, typestr, shape, strides=None):
        self.__cuda_array_interface__ = {"data": (address, False), "shape": shape, "strides": strides,
                                         "typestr": typestr, "version": 3}


def test_misaligned_arrays_are_refused_as_the_gpu_faults(cutwin_backend):
    # A float64 array starting one byte into an allocation, or with a 12-byte stride: every
    # access is a misaligned address, which a GPU reports as CUDA_ERROR_MISALIGNED_ADDRESS
    # and which ends its context. cutwin refuses the launch, naming the argument.
    raw = cuda.to_device(np.zeros(64, np.uint8))
    base = raw.__cuda_array_interface__["data"][0]
    odd_start = cuda.as_cuda_array(_PointerView(base + 1, "<f8", (4,)))
    odd_stride = cuda.as_cuda_array(_PointerView(base, "<f8", (3,), (12,)))
    for view in (odd_start, odd_stride):
        with pytest.raises(cutwin.errors.LaunchError, match=r"argument 1 of kernel 'store_unchecked': a float64 "
                                                             r"array at address 0x[0-9a-f]+ with strides \(\d+\) "
                                                             r"has elements not aligned to 8 bytes"):
            store_unchecked[1, 1](view, 0, 1.0)
    aligned = cuda.as_cuda_array(_PointerView(base + 8, "<f8", (4,)))  # an aligned view runs
    store_unchecked[1, 1](aligned, 1, 2.5)
    assert raw.copy_to_host()[16:24].view(np.float64)[0] == 2.5
    bytes_at_odd = cuda.as_cuda_array(_PointerView(base + 1, "|u1", (8,)))  # bytes need no alignment
    store_unchecked[1, 1](bytes_at_odd, 0, 7)
    assert raw.copy_to_host()[1] == 7
