"""Cases of the kernel language's features: arrays, dynamic shared memory, constant arrays,
atomics, warp operations, intrinsics, complex numbers, foreign device functions, the RNG."""
import os

import numpy as np

from case_data import blocks, case, rng
from exact_arith import cbrt, fma


@case
def vadd():
    r = rng(1)
    n = 1000
    a = r.uniform(-1, 1, n).astype(np.float32)
    b = r.uniform(-1, 1, n).astype(np.float32)
    return dict(kernel="vadd", grid=[blocks(n, 256)], block=[256],
                args=[("a", a), ("b", b), ("out", np.zeros(n, np.float32))],
                expect={"out": (a + b, {})},
                description="float32 vector add, n not a multiple of the block size")


@case
def vadd_two():
    r = rng(19)
    n = 1000  # the last block's second half is partly out of range: the single-element path
    a = r.uniform(-1, 1, n).astype(np.float32)
    b = r.uniform(-1, 1, n).astype(np.float32)
    return dict(kernel="vadd_two", grid=[blocks(n, 2 * 128)], block=[128],
                args=[("a", a), ("b", b), ("out", np.zeros(n, np.float32))],
                expect={"out": (a + b, {})},
                description="float32 vector add, two elements per thread (the bandwidth benchmark's kernel)")


@case
def dynamic_shared():
    r = rng(23)
    blocks_, n, shared = 3, 64, 2 * 64 * 4  # room for 128 float32 / int32 elements
    x = r.uniform(-1, 1, blocks_ * n).astype(np.float32)
    out = x.reshape(blocks_, n)[:, ::-1].reshape(-1)
    sizes = np.zeros((blocks_, 3), np.int64)
    sizes[:, 0] = sizes[:, 1] = shared // 4
    sizes[:, 2] = x.view(np.int32).reshape(blocks_, n)[:, n - 1]
    return dict(kernel="dynamic_shared", grid=[blocks_], block=[n], shared_bytes=shared,
                args=[("x", x), ("out", np.zeros_like(x)), ("sizes", np.zeros((blocks_, 3), np.int64))],
                expect={"out": (out, {}), "sizes": (sizes, {})},
                description="dynamic shared memory: two arrays of shape 0 alias one buffer sized by the launch")


@case
def const_arrays():
    r = rng(29)
    n = 300
    x = r.uniform(-4, 4, n).astype(np.float32)
    taps = np.array([0.125, 0.25, 0.25, 0.25, 0.125], np.float32)  # powers of two: products exact
    remap = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8]], np.int16)
    acc = np.zeros(n, np.float32)
    for k in range(5):
        acc = (acc + taps[k] * x[np.clip(np.arange(n) + k - 2, 0, n - 1)]).astype(np.float32)
    i = np.arange(n)
    return dict(kernel="const_arrays", grid=[blocks(n, 128)], block=[128],
                args=[("x", x), ("smooth", np.zeros(n, np.float32)), ("code", np.zeros(n, np.int32))],
                expect={"smooth": (acc, {}), "code": (remap[i % 3, (i // 3) % 4].astype(np.int32), {})},
                description="global NumPy arrays in constant memory: filter taps via cuda.const.array_like, "
                            "a 2-D int16 lookup table read directly")


@case
def atomics_final_states():
    r = rng(41)
    n = 5000
    x = r.integers(-10**12, 10**12, n)
    f = r.standard_normal(n)
    f[::9] = np.nan  # ignored by max/min (the elements start as numbers) and nanmax/nanmin
    ints = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, 0], np.int64)
    uints = np.zeros(6, np.uint64)
    uints[0] = np.uint64(2**64 - 1)
    floats = np.array([0, -np.inf, np.inf, np.nan, np.nan], np.float64)
    i = np.arange(n, dtype=np.uint64)
    finite = f[~np.isnan(f)]
    bits = np.uint64(2**60 - 1)
    want_u = np.array([np.uint64(2**64 - 1) - bits, bits, np.bitwise_xor.reduce(i), n % 13,
                       [0, 7, 6, 5, 4, 3, 2, 1][n % 8], x.astype(np.uint64).max()], np.uint64)
    return dict(kernel="atomics_final_states", grid=[blocks(n, 256)], block=[256],
                args=[("x", x), ("f", f), ("bins", np.zeros(32, np.int32)), ("ints", ints), ("uints", uints),
                      ("floats", floats)],
                expect={"bins": (np.bincount(x % 32, minlength=32).astype(np.int32), {}),
                        "ints": (np.array([x.max(), x.min(), -x.sum(), x.sum()], np.int64), {}),
                        "uints": (want_u, {}),
                        "floats": (np.array([n * 0.25, finite.max(), finite.min(), finite.max(), finite.min()]), {})},
                description="atomics under contention (shared and global, 5000 threads): final states of add, "
                            "sub, max, min, and_, or_, xor, inc, dec, float add, max/min and nanmax/nanmin with "
                            "NaN values, which no order of the threads changes",
                numba_sim_difference="numba's simulator runs the kernel as Python: the negative mask "
                                     "~(1 << k) given to a uint64 atomic raises OverflowError there")


@case
def warp_ops():
    import importlib.util
    spec = importlib.util.spec_from_file_location("warp_ref", os.path.join(os.path.dirname(__file__), "warp_ref.py"))
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    r = rng(61)
    grid, block = 3, 80
    n = grid * block
    vi = r.integers(-2**31, 2**31, n).astype(np.int32)
    vl = r.integers(-2**63, 2**63 - 1, n, dtype=np.int64, endpoint=True)
    vf = (r.standard_normal(n) * 1e3).astype(np.float32)
    vd = r.standard_normal(n) * 1e3
    for v, u in ((vf, np.uint32), (vd, np.uint64)):
        v[::7] = np.nan
        v.view(u)[::14] |= u(0x3)  # NaN payloads travel through shuffles too
        v[3::11] = -0.0
        v[5::13] = np.inf
    vd[::7] = 1.0  # the butterfly sums stay finite
    vl[80:112] = -(1 << 62)  # a warp where match_all finds one value
    vi[112:144] = 3  # and one where every predicate is true
    modes = [ref.IDX, ref.UP, ref.DOWN, ref.XOR]
    b = np.zeros((n, 4), np.int32)
    shuf = {k: np.zeros((n, 4), d) for k, d in (("i", np.int32), ("l", np.int64), ("f", np.float32),
                                                    ("d", np.float64))}
    votes = np.zeros((n, 12), np.int64)
    sums = np.zeros(n)
    raw = {"i": vi, "l": vl, "f": vf.view(np.uint32), "d": vd.view(np.uint64)}
    total = 0
    for blk in range(grid):
        for first, lanes in ref.warps(block):
            lo = blk * block + first
            group = set(range(lanes))
            mask = (1 << lanes) - 1
            for col, mode in enumerate(modes):
                # lanes and deltas from -40 to 69, redrawn where the source lane would not exist
                for lane in range(lanes):
                    while True:
                        cand = int(r.integers(-40, 70))
                        bl = [0] * 32
                        bl[lane] = cand
                        probe = ref.shfl(mode, list(range(32)), bl, set(range(32)))[lane]
                        if probe < lanes:
                            break
                    b[lo + lane, col] = cand
                for key, v in raw.items():
                    out = ref.shfl(mode, [int(x) for x in v[lo:lo + lanes]] + [None] * (32 - lanes),
                                   [int(x) for x in b[lo:lo + lanes, col]] + [0] * (32 - lanes), group)
                    view = shuf[key][:, col].view(v.dtype) if key in "fd" else shuf[key][:, col]
                    for lane in range(lanes):
                        view[lo + lane] = out[lane]
            w = slice(lo, lo + lanes)
            pred = list(vi[w] % 3 == 0)
            even = set(range(0, lanes, 2))
            for lane in range(lanes):
                row = votes[lo + lane]
                row[0] = ref.as_int32(ref.ballot(pred, group))
                row[1] = ref.vote("all", pred, group)
                row[2] = ref.vote("any", pred, group)
                row[3] = ref.vote("uni", list(vl[w] > 0), group)
                row[4] = ref.as_int32(ref.match_any(list(vi[w] % 4), group)[lane])
                row[5] = ref.as_int32(ref.match_any(list(vl[w] >> 61), group)[lane])
                m, same = ref.match_all(list(vl[w] >> 62), group, mask)
                row[6], row[7] = ref.as_int32(m), same
                row[8] = (1 << lane) - 1
                if lane % 2 == 0:
                    row[9] = ref.as_int32(ref.ballot(pred, even))
                    row[10] = ref.vote("any", list(vi[w] < 0), even)
            # the butterfly: lane l adds lane l ^ offset's running value, offsets lanes/2 .. 1
            s = vd[w].copy()
            offset = lanes // 2
            while offset:
                s = s + s[np.arange(lanes) ^ offset]
                offset //= 2
            sums[w] = s
            want = vi[w] % 5 != 0
            total += int(want.sum())
            below = np.cumsum(want) - want
            votes[w, 11] = np.where(want, below, 0)
    return dict(kernel="warp_ops", grid=[grid], block=[block],
                args=[("vi", vi), ("vl", vl), ("vf", vf), ("vd", vd), ("b", b),
                      ("shuf_i", np.zeros((n, 4), np.int32)), ("shuf_l", np.zeros((n, 4), np.int64)),
                      ("shuf_f", np.zeros((n, 4), np.float32)), ("shuf_d", np.zeros((n, 4), np.float64)),
                      ("votes", np.zeros((n, 12), np.int64)), ("sums", np.zeros(n)),
                      ("counts", np.zeros(1, np.int32))],
                expect={"shuf_i": (shuf["i"], {}), "shuf_l": (shuf["l"], {}), "shuf_f": (shuf["f"], {}),
                        "shuf_d": (shuf["d"], {}), "votes": (votes, {}), "sums": (sums, {}),
                        "counts": (np.array([total], np.int32), {})},
                description="warp operations on full and partial warps: shuffles of 32- and 64-bit integers "
                            "and floats (NaN payloads, -0.0, lanes and deltas beyond 31 and below 0), votes, "
                            "match, a partial mask, lanemask_lt, a butterfly sum and a warp-aggregated atomic; "
                            "expected values from a model of PTX's rules (conformance/tools/warp_ref.py)",
                numba_sim_difference="numba's simulator has no warp operations (shfl_sync and the rest "
                                     "are missing from it)")


@case
def intrinsics_adversarial():
    r = rng(67)
    n, t = 2048, 256
    i32 = r.integers(-2**31, 2**31, n).astype(np.int32)
    i64 = r.integers(-2**63, 2**63 - 1, n, dtype=np.int64, endpoint=True)
    u64 = r.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    edge32 = [-2**31, -1, 0, 1, 2**31 - 1, -2**30, 2**30, 12345, 1 << 16, -(1 << 16)]
    edge64 = [-2**63, -1, 0, 1, 2**63 - 1, -2**32, 2**32, 1 << 62, -(1 << 62), 3]
    edgeu = [0, 2**64 - 1, 2**63, 1, 2**32 - 1, 2**32, 1 << 40, 5, 2**63 - 1, 2**62]
    i32[:10], i64[:10], u64[:10] = edge32, edge64, np.array(edgeu, np.uint64)
    i64[100:110] = 0
    # Scales are exact powers of two (np.ldexp), not np.exp2 of a fraction: NumPy's exp2
    # differs between CPUs' SIMD paths, and inputs must not depend on the host.
    f64 = np.ldexp(r.standard_normal(n), r.integers(-500, 500, n))
    f64[:8] = [0.0, -0.0, 1e150, -1e150, 5e-324, -5e-324, -27.0, 8.0]  # squares stay finite
    f32 = np.ldexp(r.standard_normal(n), r.integers(-60, 60, n)).astype(np.float32)
    f32[:8] = [0.0, -0.0, 1e18, -1e18, 1e-45, -1e-45, -27.0, 8.0]

    def popc(v, width):
        return bin(int(v) & ((1 << width) - 1)).count("1")

    def clz(v, width):
        return width - (int(v) & ((1 << width) - 1)).bit_length()

    def ffs(v, width):
        v = int(v) & ((1 << width) - 1)
        return (v & -v).bit_length()

    def brev(v, width):
        return int(format(int(v) & ((1 << width) - 1), "0%db" % width)[::-1], 2)

    def wrap64(v):
        v &= (1 << 64) - 1
        return v - (1 << 64) if v >= 1 << 63 else v

    bits = np.zeros((n, 13), np.int64)
    for k in range(n):
        a, b, c = int(i32[k]), int(i64[k]), int(u64[k])
        bits[k] = [popc(a, 32), popc(b, 64), wrap64(popc(c, 64)), clz(a, 32), clz(b, 64), clz(c, 64),
                   ffs(a, 32), ffs(b, 64), ffs(c, 64), brev(a, 32), wrap64(brev(c, 64)),
                   popc(b, 64), b if a < 0 else wrap64(-b)]
    nxt = lambda v, s: np.roll(v, -s)
    fl32 = np.stack([fma(f32, nxt(f32, 1), nxt(f32, 2)), fma(f32, -f32, f32 * f32)], axis=1)
    fl64 = np.stack([fma(f64, nxt(f64, 1), nxt(f64, 2)), fma(f64, -f64, f64 * f64)], axis=1)
    votes = np.zeros((n, 4), np.int32)
    for blk in range(n // t):
        w = slice(blk * t, (blk + 1) * t)
        votes[w] = [int((i32[w] % 3 == 0).sum()), int((i32[w] != 12345).all()), int((i64[w] == 0).any()), 0]
    wraps = np.zeros(15, np.int32)
    wraps[:10] = n // 10 + (np.arange(10) < n % 10)
    dec = [0] + [4 - (k - 1) % 5 for k in range(1, n)]  # dec from 0 with limit 4: 0, 4, 3, 2, 1, 0, 4, ...
    wraps[10:] = np.bincount(dec, minlength=5)
    return dict(kernel="intrinsics_adversarial", grid=[n // t], block=[t],
                args=[("i32", i32), ("i64", i64), ("u64", u64), ("f32", f32), ("f64", f64),
                      ("bits", np.zeros((n, 13), np.int64)), ("fl32", np.zeros((n, 2), np.float32)),
                      ("fl64", np.zeros((n, 2))), ("roots32", np.zeros(n, np.float32)), ("roots64", np.zeros(n)),
                      ("votes", np.zeros((n, 4), np.int32)),
                      ("hits", np.zeros(n, np.int32)), ("wraps", np.zeros(15, np.int32)),
                      ("cas_hits", np.zeros(n, np.int32)), ("counters", np.zeros(2, np.int32)),
                      ("ucounters", np.zeros(2, np.uint32))],
                expect={"bits": (bits, {}), "fl32": (fl32, {}), "fl64": (fl64, {}),
                        "roots32": (cbrt(f32), {"max_ulp": 1}), "roots64": (cbrt(f64), {"max_ulp": 1}),
                        "votes": (votes, {}), "hits": (np.ones(n, np.int32), {}), "wraps": (wraps, {}),
                        "cas_hits": (np.ones(n, np.int32), {}),
                        "counters": (np.array([n, n], np.int32), {}),
                        "ucounters": (np.array([n % 10, dec[-1] - 1 if dec[-1] else 4], np.uint32), {})},
                description="bit intrinsics (popc, clz, ffs, brev, bit_count, selp) on negative, extreme and "
                            "64-bit values; fma (exact against rational arithmetic) and cbrt (libdevice, within 1 ulp of the correctly rounded root) "
                            "with negative, huge and subnormal operands; block votes; and the old values atomic "
                            "add, inc, dec and a compare-and-swap loop return under contention, counted so that "
                            "no order of the threads changes the result",
                numba_sim_difference="numba's simulator runs the kernel as Python integers: the bit intrinsics "
                                     "overflow (OverflowError) on extreme 64-bit values and treat negatives "
                                     "as Python does, not as the GPU")


@case
def complex_arith():
    r = rng(37)
    n = 250
    a = r.uniform(-3, 3, n) + 1j * r.uniform(-3, 3, n)
    b = r.uniform(-3, 3, n) + 1j * r.uniform(-3, 3, n)
    z = (r.uniform(-2, 2, n) + 1j * r.uniform(-2, 2, n)).astype(np.complex64)
    exact = np.stack([a + b, a - b, -a.conj(), b.imag + 1j * a.real], axis=1)
    approx = np.stack([a * b, a / b], axis=1)
    trans = np.stack([np.abs(a) + 0j, np.sqrt(a), np.exp(a), np.log(b)], axis=1)
    single = (z * z + np.complex64(0.5)).astype(np.complex64)
    return dict(kernel="complex_arith", grid=[blocks(n, 128)], block=[128],
                args=[("a", a), ("b", b), ("z", z), ("exact", np.zeros((n, 4), np.complex128)),
                      ("approx", np.zeros((n, 2), np.complex128)), ("trans", np.zeros((n, 4), np.complex128)),
                      ("single", np.zeros(n, np.complex64))],
                expect={"exact": (exact, {}), "approx": (approx, {"rtol": 1e-13, "atol": 1e-14}),
                        "trans": (trans, {"rtol": 1e-13, "atol": 1e-14}),
                        "single": (single, {"rtol": 1e-6, "atol": 1e-6})},
                description="complex numbers: exact +, -, conjugate, complex(); * and / within a tolerance of "
                            "NumPy (contracted products) and bit-exact between the backends; abs (hypot) and "
                            "cmath.sqrt/exp/log (libdevice) within a tolerance of NumPy and bit-exact between the "
                            "backends; complex64 stays single")


@case
def foreign_device_functions():
    r = rng(31)
    n = 300
    x = r.uniform(-3, 3, n)
    coef = np.array([0.3, -1.7, 2.25, 0.1])
    y = fma(fma(fma(np.full(n, coef[0]), x, np.full(n, coef[1])), x, np.full(n, coef[2])), x,
            np.full(n, coef[3]))
    i = np.arange(n)
    x32 = x.astype(np.float32)
    m = (x32 + x32[::-1]) * np.float32(0.5)
    return dict(kernel="foreign_device_functions", grid=[blocks(n, 128)], block=[128],
                args=[("x", x), ("coef", coef), ("y", np.zeros(n)), ("idx", np.zeros(n, np.int32)),
                      ("m", np.zeros(n, np.float32))],
                expect={"y": (y, {}), "idx": (np.clip(i - 50, 0, 199).astype(np.int32), {}), "m": (m, {})},
                description="cuda.declare_device functions from a linked .cu file (NVRTC on the GPU, the "
                            "host compiler on the simulator): fma-based Horner, integer clamp, float32 mean",
                numba_sim_difference="numba's simulator cannot call foreign device functions")


def xoroshiro_ref():
    import importlib.util
    spec = importlib.util.spec_from_file_location("xoroshiro_ref", os.path.join(os.path.dirname(__file__),
                                                                             "xoroshiro_ref.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@case
def rng_uniform():
    ref = xoroshiro_ref()
    n, draws = 160, 3
    s0, s1 = ref.states(n, 2024, 5)
    u32 = np.stack([ref.uniform_float32(ref.next_u64(s0, s1)) for _ in range(draws)], axis=1)
    u64 = np.stack([ref.uniform_float64(ref.next_u64(s0, s1)) for _ in range(draws)], axis=1)
    raw = ref.next_u64(s0, s1)
    return dict(kernel="rng_uniform", grid=[blocks(n, 64)], block=[64],
                args=[("states", {"xoroshiro128p_states": n, "seed": 2024, "subsequence_start": 5}),
                      ("u32", np.zeros((n, draws), np.float32)), ("u64", np.zeros((n, draws), np.float64)),
                      ("raw", np.zeros(n, np.uint64))],
                expect={"u32": (u32, {}), "u64": (u64, {}), "raw": (raw, {})},
                description="xoroshiro128p: states from create_xoroshiro128p_states(seed, subsequence_start), "
                            "uniform float32/float64 and raw next() per thread (NumPy reference of the algorithm)")


@case
def rng_normal():
    n = 256
    return dict(kernel="rng_normal", grid=[blocks(n, 128)], block=[128],
                args=[("states", {"xoroshiro128p_states": n, "seed": 99}),
                      ("n32", np.zeros((n, 4), np.float32)), ("n64", np.zeros((n, 4), np.float64))],
                expect={"n32": (None, {}), "n64": (None, {})}, recorded_on_gpu=True,
                description="xoroshiro128p normal float32/float64 (Box-Muller through libdevice logf/cosf/cos): "
                            "goldens recorded with numba-cuda on an H200",
                numba_sim_difference="numba's simulator computes log and cos with the host's libm, "
                                     "not libdevice, so normals differ in the last bits")




@case
def datetime_arith():
    r = rng(71)
    n = 500
    dates = np.datetime64("1990-01-01", "D") + r.integers(-40000, 40000, n).astype("timedelta64[D]")
    other = np.datetime64("2005-06-15", "D") + r.integers(-40000, 40000, n).astype("timedelta64[D]")
    other[7::50] = dates[7::50]  # equal dates: a zero difference, not later
    dates[::37] = np.datetime64("NaT")
    other[3::41] = np.datetime64("NaT")
    hours = r.integers(1, 10 ** 6, n).astype("timedelta64[h]")
    hours[::29] = -hours[::29]
    d = dates - other
    with np.errstate(invalid="ignore"):
        later = dates > other
    return dict(kernel="datetime_arith", grid=[blocks(n, 128)], block=[128],
                args=[("dates", dates), ("other", other), ("hours", hours),
                      ("diff", np.zeros(n, "timedelta64[D]")), ("moved", np.zeros(n, "datetime64[h]")),
                      ("ratio", np.zeros(n)), ("later", np.zeros(n, bool))],
                expect={"diff": (d, {}), "moved": (dates + hours, {}), "ratio": (d / hours, {}),
                        "later": (later, {})},
                description="datetime64[D] and timedelta64[h] arithmetic with NaT: differences, a sum in the "
                            "finer unit, division into float64, comparison (NumPy's results)")


def _numba_order_stats(row):
    """numba's reductions of a float32 row, in its order: float32 sums in C order, the mean
    and variance from them in float64 (arraymath's array_mean and array_var); and the
    standard deviation, correctly rounded."""
    acc = np.float32(0)
    nan_acc = np.float32(0)
    for v in row:
        acc = np.float32(acc + v)
        if not np.isnan(v):
            nan_acc = np.float32(nan_acc + v)
    n = row.size
    mean = float(acc) / n
    ssd = 0.0
    for v in row:
        val = float(v) - mean
        # contracted, as NVVM and cutwin's frontend contract it
        ssd = float(fma(np.float64(val), np.float64(val), np.float64(ssd))) if np.isfinite(val) else val * val + ssd
    var = ssd / n
    with np.errstate(invalid="ignore"):
        return [float(acc), mean, var, float(np.min(row)), float(np.max(row)), float(nan_acc),
                float(np.count_nonzero(row))], var ** 0.5


@case
def array_reductions():
    r = rng(73)
    n = 300
    x = (r.standard_normal((n, 24)) * 10.0 ** r.integers(-3, 4, (n, 1))).astype(np.float32)
    x[::17, 5] = np.nan  # NaN propagates through sum, mean, var, min, max; nansum skips it
    x[::11, 2:9] = 0.0
    results = [_numba_order_stats(row) for row in x]
    stats = np.array([r[0] for r in results])
    spread = np.array([r[1] for r in results])
    views = np.stack([(x[:, 23] - x[:, 8]).astype(np.float64), x[:, 8].astype(np.float64),
                      x.view(np.int32)[:, 11].astype(np.float64)], axis=1)
    return dict(kernel="array_reductions", grid=[blocks(n, 64)], block=[64],
                args=[("x", x), ("stats", np.zeros((n, 7))), ("spread", np.zeros(n)), ("views", np.zeros((n, 3)))],
                expect={"stats": (stats, {}), "spread": (spread, {"max_ulp": 2}), "views": (views, {})},
                description="NumPy reductions in a kernel (sum, mean, var, std, min, max, nansum, count_nonzero "
                            "of float32 rows, NaN among them) in numba's order of accumulation, and the row "
                            "through reshape, .T, transpose and view",
                numba_sim_difference="numba's simulator runs the reductions as NumPy's (pairwise summation); "
                                     "compiled numba-cuda adds in C order, one element after another")
