"""Pickling kernels, device functions, configured launches and CUDA ufuncs by value (as
numba does): locally defined functions with closures survive a round trip, in this process
and in a fresh interpreter, and compute what the originals compute (the oracle)."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from cutwin import cuda


def _make_kernel():
    offset = 5

    @cuda.jit(device=True)
    def inner(a):
        return a + offset

    @cuda.jit
    def kernel(arr):
        i = cuda.grid(1)
        if i < arr.size:
            arr[i] = inner(arr[i]) * np.int64(2)

    return kernel


def test_kernels_with_closures_round_trip(cutwin_backend):
    k = _make_kernel()
    a = np.arange(8)
    expected = a.copy()
    k[1, 8](expected)
    for _ in range(2):  # a rebuilt kernel pickles again
        k = pickle.loads(pickle.dumps(k))
        got = a.copy()
        k[1, 8](got)
        np.testing.assert_array_equal(got, expected)


def test_configured_launches_keep_their_dimensions_and_refuse_callbacks():
    k = _make_kernel()
    cfg = pickle.loads(pickle.dumps(k[5, (8, 2)]))
    assert cfg.griddim == (5, 1, 1) and cfg.blockdim == (8, 2, 1)
    c = k[1, 1]
    seen = []
    c.pre_launch_callbacks.append(lambda kernel, config: seen.append((kernel, config.griddim)))
    c(np.zeros(1, np.int64))
    assert seen == [(k, (1, 1, 1))]
    assert k[1, 1].pre_launch_callbacks == []  # each configuration has its own
    with pytest.raises(pickle.PicklingError, match="pre-launch callbacks"):
        pickle.dumps(c)


def test_declared_signatures_and_ufuncs_round_trip(cutwin_backend):
    @cuda.jit("void(float64[:])")
    def twice(a):
        a[0] *= 2

    @cuda.vectorize(["int64(int64)", "float64(float64)"])
    def triple(x):
        return x * 3

    t = pickle.loads(pickle.dumps(twice))
    assert [str(s) for s in t.signatures] == [str(s) for s in twice.signatures]
    a = np.array([1.5])
    t[1, 1](a)
    assert a[0] == 3.0
    u = pickle.loads(pickle.dumps(triple))
    np.testing.assert_array_equal(u(np.arange(5)), np.arange(5) * 3)
    np.testing.assert_array_equal(u(np.linspace(0, 1, 4)), np.linspace(0, 1, 4) * 3)


def test_a_pickled_kernel_runs_in_another_interpreter(tmp_path):
    blob = tmp_path / "kernel.pkl"
    blob.write_bytes(pickle.dumps(_make_kernel()))
    code = ("import pickle, numpy as np, sys; k = pickle.loads(open(sys.argv[1], 'rb').read()); "
            "a = np.arange(4); k[1, 4](a); print(a.tolist())")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code, str(blob)], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str([(i + 5) * 2 for i in range(4)])
