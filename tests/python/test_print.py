"""print(), raise and assert inside kernels, on every selected backend: lines formatted as
numba-cuda's vprintf formats them, whole lines from threads of parallel blocks, and raised
exceptions that are both cutwin's KernelError and the builtin class the kernel raised."""
import warnings

import numpy as np
import pytest

import cutwin
from cutwin import cuda, float32


@cuda.jit
def report(x, flags):
    i = cuda.grid(1)
    if i < x.size:
        print("item", i, "of", x.size, "is", x[i], flags[i] != 0, (i, float32(0.25)), "(100%)")


def expected_report(x, flags):
    # numba-cuda's formats: %lld for integers, %f for floats (6 decimals)
    return ["item %d of %d is %f %s (%d, 0.250000) (100%%)" % (i, x.size, v, bool(f), i)
            for i, (v, f) in enumerate(zip(x, flags))]


def printed_lines(capfd):
    cuda.synchronize()  # a GPU hands over its printf buffer at synchronisation
    return capfd.readouterr().out.splitlines()


def test_print_formats_as_numba_cuda(cutwin_backend, capfd):
    x = np.array([0.5, -1.25, 1e10, 3.0])
    flags = np.array([1, 0, 2, 0], np.int8)
    report[1, 32](x, flags)
    assert sorted(printed_lines(capfd)) == sorted(expected_report(x, flags))


@cuda.jit
def chatty(out):
    i = cuda.grid(1)
    print("block", cuda.blockIdx.x, "thread", cuda.threadIdx.x, "says", i * 1000003, "and", -i, (i, -i))
    out[i] = i


def test_lines_of_parallel_threads_stay_whole(cutwin_backend, capfd):
    out = np.zeros(64 * 64, np.int64)
    chatty[64, 64](out)
    lines = printed_lines(capfd)
    want = ["block %d thread %d says %d and %d (%d, %d)" % (i // 64, i % 64, i * 1000003, -i, i, -i)
            for i in range(64 * 64)]
    assert sorted(lines) == sorted(want)


@cuda.jit
def no_arguments():
    print()
    print((7,), ())


def test_empty_lines_and_small_tuples(cutwin_backend, capfd):
    no_arguments[1, 2]()
    assert sorted(printed_lines(capfd)) == ["", "", "(7,) ()", "(7,) ()"]


def test_printing_an_array_is_a_typing_error():
    @cuda.jit
    def bad(a):
        print(a)

    with cuda.use_backend("sim"), pytest.raises(cutwin.errors.TypingError,
                                                match=r"print\(\) in a kernel takes strings, integers"):
        bad[1, 1](np.zeros(2))


@cuda.jit(debug=True, opt=False)
def checked(x):
    i = cuda.grid(1)
    if i < x.size:
        if x[i] < 0:
            raise ValueError("negative input")
        assert x[i] != 3


def test_raise_is_the_builtin_exception_with_kernel_line_thread_block(cutwin_backend):
    x = np.zeros(64)
    checked[2, 32](x)
    x[37] = -1
    with pytest.raises(ValueError) as info:
        checked[2, 32](x)
        cuda.synchronize()
    e = info.value
    assert isinstance(e, cutwin.errors.KernelError)
    assert (e.kernel, e.thread, e.block) == ("checked", (5, 0, 0), (1, 0, 0))
    assert e.line == checked.py_func.__code__.co_firstlineno + 5
    assert "test_print.py:%d in checked" % e.line in str(e) and "ValueError: negative input" in str(e)
    x[37] = 3
    with pytest.raises(AssertionError) as info:
        checked[2, 32](x)
        cuda.synchronize()
    assert info.value.thread == (5, 0, 0) and info.value.line == e.line + 1
    x[37] = 1
    checked[2, 32](x)  # the device still works
    cuda.synchronize()


@cuda.jit
def dim3_registers():
    print(cuda.threadIdx, cuda.blockIdx, cuda.blockDim, cuda.gridDim)


def test_thread_and_block_indices_print_as_tuples(cutwin_backend, capfd):
    dim3_registers[(2, 1, 1), (2, 2, 2)]()
    want = ["%s (%d, 0, 0) (2, 2, 2) (2, 1, 1)" % (str(t), b) for b in range(2) for t in np.ndindex(2, 2, 2)]
    assert sorted(printed_lines(capfd)) == sorted(want)


@cuda.jit
def thirty_three_items(r):
    print("r:", r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14],
          r[15], r[16], r[17], r[18], r[19], r[20], r[21], r[22], r[23], r[24], r[25], r[26], r[27], r[28],
          r[29], r[30], 0.5)


def test_more_than_32_items_print_the_raw_format_with_numbas_warning(cutwin_backend, capfd):
    # CUDA's printf takes 32 arguments: numba prints its format string instead, and warns
    # when it compiles the kernel (once)
    with pytest.warns(cutwin.errors.NumbaWarning, match="cannot print more than 32 items"):
        thirty_three_items[1, 1](np.arange(31))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        thirty_three_items[1, 1](np.arange(31))
    raw = " ".join(["%s"] + ["%lld"] * 31 + ["%f"])
    assert printed_lines(capfd) == [raw, raw]
