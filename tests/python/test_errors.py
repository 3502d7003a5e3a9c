"""Compile diagnostics and kernel faults as Python exceptions; the interpreter survives and
the next launch works."""
import inspect

import numpy as np
import pytest

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
