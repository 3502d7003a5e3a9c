"""Device functions that return a value on some paths and None on others (a bare `return`,
`return None`, or falling off the end) have numba's Optional result: `r is None` /
`r is not None` ask it at run time; used where a value is needed it is converted, and None
there raises numba's TypeError where checks are on (the simulator by default). Oracle: the
same Python functions run on the host."""
import os
import shutil
import subprocess

import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import KernelError


def first_positive_py(a, i):
    if a[i] > 0:
        return a[i]


def halves_py(x):
    if x > 1:
        return x / 2, x * 2
    return None


first_positive = cuda.jit(device=True)(first_positive_py)
halves = cuda.jit(device=True)(halves_py)


@cuda.jit(device=True)
def clipped_or_none(x):
    if x < 0:
        return
    return min(x, 10.0)


@cuda.jit(device=True)
def passthrough(a, i):
    r = first_positive(a, i)  # a variable holding an Optional, returned as one
    return r


@cuda.jit
def asks_is_none(a, out, flags):
    i = cuda.grid(1)
    if i < a.size:
        r = passthrough(a, i)
        if r is None:
            flags[i] = 1
        else:
            out[i] = r
        h = halves(a[i])
        if h is not None:
            q, d = h
            out[i] += q + d
        c = clipped_or_none(a[i])
        if c is not None:
            out[i] += c


@cuda.jit
def uses_the_value(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = first_positive(a, i) * 2


def host_oracle(a):
    out, flags = np.zeros_like(a), np.zeros(a.size, np.int32)
    for i in range(a.size):
        r = first_positive_py(a, i)
        if r is None:
            flags[i] = 1
        else:
            out[i] = r
        h = halves_py(a[i])
        if h is not None:
            out[i] += h[0] + h[1]
        if a[i] >= 0:
            out[i] += min(a[i], 10.0)
    return out, flags


def test_optional_results_against_the_host(cutwin_backend):
    a = np.array([1.5, -2.0, 3.0, 0.0, 25.0, -0.5, 0.25])
    out, flags = np.zeros_like(a), np.zeros(a.size, np.int32)
    asks_is_none[1, 32](a, out, flags)
    want_out, want_flags = host_oracle(a)
    np.testing.assert_array_equal(flags, want_flags)
    np.testing.assert_array_equal(out, want_out)


def test_an_optional_used_as_a_value(cutwin_backend):
    a = np.array([1.0, 2.0, 3.0])
    out = np.zeros_like(a)
    uses_the_value[1, 32](a, out)
    np.testing.assert_array_equal(out, a * 2)


def test_none_used_as_a_value_is_a_type_error_on_the_simulator():
    a = np.array([1.0, -2.0, 3.0])
    with cuda.use_backend("sim"), pytest.raises(KernelError) as err:
        uses_the_value[1, 32](a, np.zeros_like(a))
    assert isinstance(err.value, TypeError)
    text = str(err.value)
    assert "test_optional.py:%d in uses_the_value" % (uses_the_value.py_func.__code__.co_firstlineno + 4) in text
    assert "thread (1,0,0)" in text and "expected float64, got None" in text


@pytest.mark.parametrize("codegen", ["nvptx", "nvvm"])
def test_ptx_of_optional_results_assembles(codegen, tmp_path, monkeypatch):
    if shutil.which("ptxas") is None:
        pytest.skip("no ptxas here (the CUDA toolkit is not installed)")
    monkeypatch.setenv("CUTWIN_CODEGEN", codegen)
    ptx, _ = cuda.compile_ptx(asks_is_none.py_func, "void(float64[:], float64[:], int32[:])")
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    r = subprocess.run(["ptxas", "-arch=sm_90", str(src), "-o", os.devnull], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
