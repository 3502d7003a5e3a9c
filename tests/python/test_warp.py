"""Warp operations on every selected backend against a model of PTX's rules
(conformance/tools/warp_ref.py): shuffles of every type with out-of-range lanes, votes,
match, activemask in divergent code, syncwarp, partial last warps and partial masks; and
on the simulator, the errors a GPU would hang on."""
import importlib.util
import os

import numpy as np
import pytest

import cutwin
from cutwin import cuda, int32

_spec = importlib.util.spec_from_file_location(
    "warp_ref", os.path.join(os.path.dirname(__file__), "..", "..", "conformance", "tools", "warp_ref.py"))
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)

BLOCK, GRID = 80, 2  # two full warps and one of 16 lanes per block


@cuda.jit(device=True)
def warp_mask():
    """Every lane of this thread's warp: the partial last warp has fewer."""
    first = cuda.threadIdx.x - cuda.laneid
    lanes = min(32, cuda.blockDim.x - first)
    return -1 if lanes == 32 else (1 << lanes) - 1


@cuda.jit
def shuffles(vals, b, out):
    t = cuda.grid(1)
    mask = warp_mask()
    v = vals[t]
    out[t, 0] = cuda.shfl_sync(mask, v, b[t, 0])
    out[t, 1] = cuda.shfl_up_sync(mask, v, b[t, 1])
    out[t, 2] = cuda.shfl_down_sync(mask, v, b[t, 2])
    out[t, 3] = cuda.shfl_xor_sync(mask, v, b[t, 3])


def per_warp(fn, *arrays):
    """Calls fn(first_thread, lanes, *per-lane slices) for every warp of the grid."""
    for blk in range(GRID):
        for first, lanes in ref.warps(BLOCK):
            lo = blk * BLOCK + first
            fn(lo, lanes, *[a[lo:lo + lanes] for a in arrays])


def bits(a):
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize]).astype(object)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_shuffles_against_the_ptx_rules(dtype, cutwin_backend):
    r = np.random.default_rng(7)
    n = GRID * BLOCK
    if np.dtype(dtype).kind == "i":
        info = np.iinfo(dtype)
        vals = r.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    else:
        vals = r.standard_normal(n).astype(dtype) * 1e6
        vals[::7] = np.nan
        vals[3::11] = -0.0
        vals[5::13] = np.inf
        vals.view({4: np.uint32, 8: np.uint64}[vals.itemsize])[::17] |= 0x5  # NaN payloads travel too
    b = r.integers(-40, 70, (n, 4)).astype(np.int32)  # lanes and deltas beyond 31 and below 0
    out = np.zeros((n, 4), dtype)
    shuffles[GRID, BLOCK](vals, b, out)
    got, want_bits = bits(out), bits(vals)
    checked = 0

    def check(lo, lanes, *_):
        nonlocal checked
        group = set(range(lanes))
        for col, mode in enumerate([ref.IDX, ref.UP, ref.DOWN, ref.XOR]):
            want = ref.shfl(mode, [want_bits[lo + i] for i in range(lanes)] + [None] * (32 - lanes),
                            [int(x) for x in b[lo:lo + lanes, col]] + [0] * (32 - lanes), group)
            for lane, w in want.items():
                if w is not None:
                    assert got[lo + lane, col] == w, (mode, lo, lane)
                    checked += 1

    per_warp(check)
    assert checked > 0.9 * n * 4


@cuda.jit
def votes_and_matches(p, ints, longs, doubles, out):
    t = cuda.grid(1)
    mask = warp_mask()
    pred = p[t] != 0
    out[t, 0] = cuda.ballot_sync(mask, pred)
    out[t, 1] = cuda.all_sync(mask, pred)
    out[t, 2] = cuda.any_sync(mask, pred)
    out[t, 3] = cuda.eq_sync(mask, p[t])
    out[t, 4] = cuda.match_any_sync(mask, ints[t])
    out[t, 5] = cuda.match_any_sync(mask, longs[t])
    out[t, 6] = cuda.match_any_sync(mask, doubles[t])
    m, same = cuda.match_all_sync(mask, ints[t])
    out[t, 7] = m
    out[t, 8] = same
    m, same = cuda.match_all_sync(mask, longs[t])
    out[t, 9] = m
    out[t, 10] = same


def test_votes_and_matches(cutwin_backend):
    r = np.random.default_rng(3)
    n = GRID * BLOCK
    p = r.integers(0, 2, n).astype(np.int32) * r.integers(-5, 5, n).astype(np.int32)
    p[0:32] = 7          # a warp where every predicate is true
    p[32:64] = 0         # and one where none is
    ints = r.integers(-2, 2, n).astype(np.int32)
    ints[80:112] = -3    # all equal
    # equal low 32 bits, different high ones: match compares all 64
    longs = (r.integers(0, 3, n).astype(np.int64) << 40) | 0x12345678
    longs[112:144] = -(1 << 62)
    doubles = r.choice(np.array([0.0, -0.0, np.nan, 1.5]), n)  # -0.0 and 0.0 differ bitwise
    out = np.zeros((n, 11), np.int64)
    votes_and_matches[GRID, BLOCK](p, ints, longs, doubles, out)

    def check(lo, lanes, pw, iw, lw, dw):
        group = set(range(lanes))
        mask = (1 << lanes) - 1
        preds = list(pw != 0)
        for lane in range(lanes):
            row = out[lo + lane]
            assert row[0] == ref.as_int32(ref.ballot(preds, group)), lo
            assert row[1] == ref.vote("all", preds, group)
            assert row[2] == ref.vote("any", preds, group)
            assert row[3] == ref.vote("uni", preds, group)
            assert row[4] == ref.as_int32(ref.match_any(list(iw), group)[lane])
            assert row[5] == ref.as_int32(ref.match_any(list(lw), group)[lane])
            assert row[6] == ref.as_int32(ref.match_any(list(bits(dw)), group)[lane])
            m, same = ref.match_all(list(iw), group, mask)
            assert (row[7], row[8]) == (ref.as_int32(m), same)
            m, same = ref.match_all(list(lw), group, mask)
            assert (row[9], row[10]) == (ref.as_int32(m), same)

    per_warp(check, p, ints, longs, doubles)
    assert out[0, 1] == 1 and out[32, 2] == 0 and out[80, 8] == 1  # the uniform warps were there


@cuda.jit
def divergent(vals, out):
    t = cuda.grid(1)
    lane = cuda.laneid
    mask = warp_mask()
    if lane % 2 == 0:
        even = mask & 0x55555555
        out[t, 0] = cuda.ballot_sync(even, vals[t] > 0)
        out[t, 1] = cuda.shfl_xor_sync(even, vals[t], 2)
        out[t, 2] = cuda.activemask()
    else:
        out[t, 2] = cuda.activemask()
    out[t, 3] = cuda.activemask()


def test_partial_masks_and_activemask_in_divergent_code(cutwin_backend):
    n = GRID * BLOCK
    vals = np.random.default_rng(5).integers(-100, 100, n).astype(np.int64)
    out = np.zeros((n, 4), np.int64)
    divergent[GRID, BLOCK](vals, out)

    def check(lo, lanes, vw):
        full = (1 << lanes) - 1
        even = set(range(0, lanes, 2))
        xored = ref.shfl(ref.XOR, list(vw) + [None] * (32 - lanes), [2] * 32, even)
        for lane in range(lanes):
            row = out[lo + lane]
            if lane % 2 == 0:
                assert row[0] == ref.as_int32(ref.ballot(list(vw > 0), even))
                assert row[1] == xored[lane]
                assert row[2] == 0x55555555 & full
            else:
                assert row[2] == 0xAAAAAAAA & full
            assert row[3] == full  # reconverged after the branch

    per_warp(check, vals)


@cuda.jit
def exchange(vals, out):
    # Lanes trade values through shared memory; syncwarp orders the writes and the reads.
    sm = cuda.shared.array(128, int32)
    t = cuda.grid(1)
    i = cuda.threadIdx.x
    sm[i] = vals[t]
    cuda.syncwarp(warp_mask())
    out[t] = sm[i ^ 1]
    cuda.syncwarp()


def test_syncwarp_orders_shared_memory(cutwin_backend):
    n = GRID * BLOCK
    vals = np.arange(n, dtype=np.int32) * 3
    out = np.zeros(n, np.int32)
    exchange[GRID, BLOCK](vals, out)
    np.testing.assert_array_equal(out, vals.reshape(-1, 2)[:, ::-1].ravel())


@cuda.jit
def warp_sum(x, out):
    # The classic tree: after log2(32) steps lane 0 holds the warp's sum.
    t = cuda.grid(1)
    v = x[t] if t < x.size else 0.0
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[t // 32] = v


def test_warp_reduction_sums_each_warp_in_tree_order(cutwin_backend):
    x = np.random.default_rng(2).standard_normal(32 * 8)
    out = np.zeros(8)
    warp_sum[2, 128](x, out)
    v = x.reshape(8, 32).copy()
    offset = 16
    while offset:  # the same additions, lane by lane (lanes past 31 keep their own value)
        shifted = np.concatenate([v[:, offset:], v[:, 32 - offset:]], axis=1)
        v = v + shifted
        offset //= 2
    np.testing.assert_array_equal(out, v[:, 0])


# ---- what a GPU would hang on: errors on the simulator ---------------------------------------


@cuda.jit
def half_warp_at_barrier(out):
    if cuda.laneid < 16:
        out[cuda.threadIdx.x] = cuda.shfl_sync(0xFFFFFFFF, 1, 0)
    else:
        cuda.syncthreads()


@cuda.jit
def mismatched(out):
    if cuda.laneid < 16:
        out[cuda.threadIdx.x] = cuda.shfl_sync(0xFFFFFFFF, 1, 0)
    else:
        out[cuda.threadIdx.x] = cuda.ballot_sync(0xFFFFFFFF, True)


@cuda.jit
def outside_mask(out):
    out[cuda.threadIdx.x] = cuda.ballot_sync(0x1, True)


def test_a_warp_operation_that_cannot_complete_is_an_error_on_the_simulator():
    out = np.zeros(32, np.int32)
    with cuda.use_backend("sim"):
        with pytest.raises(cutwin.errors.KernelError) as e:
            half_warp_at_barrier[1, 32](out)
        text = str(e.value)
        assert "test_warp.py:%d in half_warp_at_barrier" % (half_warp_at_barrier.py_func.__code__.co_firstlineno + 3) \
            in text
        assert "mask 0xffffffff cannot complete: lane 16 of the mask waits at the barrier at" in text
        assert "would hang" in text
        with pytest.raises(cutwin.errors.KernelError, match="lane 16 of the mask waits at the warp operation at"):
            mismatched[1, 32](out)
        with pytest.raises(cutwin.errors.KernelError, match=r"thread \(1,0,0\).*lane \(1\) is not in the mask"):
            outside_mask[1, 32](out)
        # the process goes on: the next launch works
        warp_sum[1, 32](np.ones(32), out := np.zeros(1))
        assert out[0] == 32


def test_typing_errors_name_the_call():
    @cuda.jit
    def bad(out):
        out[0] = cuda.shfl_sync(0xFFFFFFFF, 1j, 0)

    with cuda.use_backend("sim"), pytest.raises(cutwin.errors.TypingError,
                                                match=r"shfl_sync\(\) moves int32, int64, float32 or float64"):
        bad[1, 32](np.zeros(1, np.complex128))


@cuda.jit
def partial_warp_votes(out):
    t = cuda.threadIdx.x
    out[t, 0] = cuda.match_all_sync(0xFFFFFFFF, 7)[0]
    out[t, 1] = cuda.match_any_sync(0xFFFFFFFF, t % 3)
    out[t, 2] = cuda.ballot_sync(0xFFFFFFFF, True)
    out[t, 3] = cuda.activemask()


def test_full_masks_in_a_partial_warp(cutwin_backend):
    # A block of 10 threads: lanes 10-31 of a full mask do not exist. The H200 (numba-cuda
    # 0.30.4) answers for the ten: match_all gives 0x3ff, not 0xffffffff.
    out = np.zeros((10, 4), np.uint32)
    partial_warp_votes[1, 10](out)
    t = np.arange(10)
    np.testing.assert_array_equal(out[:, 0], 0x3FF)
    np.testing.assert_array_equal(out[:, 1], [sum(1 << k for k in range(10) if k % 3 == v % 3) for v in t])
    np.testing.assert_array_equal(out[:, 2], 0x3FF)
    np.testing.assert_array_equal(out[:, 3], 0x3FF)


@cuda.jit
def activemask_in_identical_branches(x):
    i = cuda.grid(1)
    if i % 2 == 0:
        x[i] = cuda.activemask()
    else:  # the same code: it must not be merged into one call where the branches meet
        x[i] = cuda.activemask()


def test_activemask_in_identical_branches(cutwin_backend):
    out = np.zeros(32, np.uint32)
    activemask_in_identical_branches[1, 32](out)
    np.testing.assert_array_equal(out, np.tile(np.array([0x55555555, 0xAAAAAAAA], np.uint32), 16))


@pytest.mark.parametrize("mask_type, pred_type, message", [
    ("float32", "int32", "Mask type must be an integer, not float32"),
    ("boolean", "int32", "Mask type must be an integer, not bool"),
    ("int32", "float64", "Predicate must be an integer or boolean, not float64"),
])
def test_vote_masks_are_integers_and_predicates_integers_or_booleans(mask_type, pred_type, message):
    def vote(mask, pred, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = cuda.all_sync(mask[i], pred[i])

    with pytest.raises(cutwin.errors.CompileError, match=message):
        cuda.jit("void(%s[:], %s[:], int32[:])" % (mask_type, pred_type))(vote)
