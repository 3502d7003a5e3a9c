"""Loads and stores with a cache policy (cuda.ldca ... cuda.stwt): the values they move on
every backend, the PTX instruction each becomes (`ld.global.cs.b16`...), bounds checks on
the simulator, and numba-cuda's typing errors. Oracle: the plain copy, NumPy."""
import numpy as np
import pytest

from cutwin import cuda

LOADS = {"ldca": "ca", "ldcg": "cg", "ldcs": "cs", "ldlu": "lu", "ldcv": "cv"}
STORES = {"stcg": "cg", "stcs": "cs", "stwb": "wb", "stwt": "wt"}
DTYPES = [np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float32, np.float64]


def copy_kernel(load, store):
    def k(dst, src):
        i, j = cuda.grid(2)
        if i < src.shape[0] and j < src.shape[1]:
            store(dst, (i, j), load(src, (i, j)) + 1)
    return cuda.jit(k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_hinted_copy_moves_every_value(cutwin_backend, dtype):
    src = (np.arange(7 * 9) % 50).reshape(7, 9).astype(dtype)
    for (ld, _), (st, _) in zip(LOADS.items(), list(STORES.items()) * 2):
        dst = np.zeros_like(src)
        copy_kernel(getattr(cuda, ld), getattr(cuda, st))[(1, 1), (8, 16)](dst, src)
        np.testing.assert_array_equal(dst, src + dtype(1))


@pytest.mark.parametrize("name", list(LOADS) + list(STORES))
def test_each_policy_is_its_ptx_instruction(name):
    fn = getattr(cuda, name)
    if name in LOADS:
        def k(r, x):
            r[0] = fn(x, 3)
    else:
        def k(r, x):
            fn(r, 3, x[0])
    for dtype, bits in ((np.uint8, 8), (np.float16, 16), (np.int32, 32), (np.float64, 64)):
        sig = "void(%s[:], %s[:])" % ((np.dtype(dtype).name,) * 2)
        ptx = cuda.jit(sig)(k).inspect_asm(sig)
        op = "ld" if name in LOADS else "st"
        policy = (LOADS if name in LOADS else STORES)[name]
        assert "%s.global.%s.b%d" % (op, policy, bits) in ptx, (name, dtype)


def test_pointer_argument():
    def k(p, n):
        for i in range(n):
            cuda.stcs(p, i, cuda.ldcg(p, i) * 2)
    ptx, _ = cuda.compile_ptx(k, (cuda.types.CPointer(cuda.float32), cuda.int64))
    assert "ld.global.cg.b32" in ptx and "st.global.cs.b32" in ptx


def test_out_of_bounds_index_is_reported():
    """On the simulator, whose bounds checks are on by default (wherever a GPU is the default)."""
    @cuda.jit
    def k(x):
        x[0] = cuda.ldcs(x, 10)
    with cuda.use_backend("sim"), pytest.raises(IndexError, match="out of bounds"):
        k[1, 1](np.zeros(4, np.float32))


@pytest.mark.parametrize("body,sig,message", [
    ("cuda.ldcs(x, 1.0)", "void(float32[::1])", "float64 is not a valid index"),
    ("cuda.ldcs(x, (1, 2))", "void(float32[::1])", "Expected 1 indices, got 2"),
    ("cuda.ldcs(x, 1)", "void(float32[:, ::1])", "Expected 2 indices, got a scalar"),
    ("cuda.ldcs(x, (1,))", "void(float32[:, ::1])", "Expected 2 indices, got 1"),
    ("cuda.ldcs(x, 0)", "void(complex64[::1])", "ldcs requires array of integer or float type"),
])
def test_typing_errors(tmp_path, body, sig, message):
    path = tmp_path / "hints.py"
    path.write_text("from cutwin import cuda\n\ndef f(x):\n    %s\n" % body)
    ns = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    with pytest.raises(cuda.TypingError, match=message):
        cuda.compile_ptx(ns["f"], sig)
