#!/usr/bin/env python3
"""Writes each conformance case's inputs, expected outputs and case.json.

NumPy is the oracle: every expected output is computed here independently of cutwin,
with NumPy operations that reproduce the kernel's arithmetic in the same order (so that
float results can be compared bit for bit), or with a stated ulp tolerance where the
kernel calls libdevice functions. Run from the repository root:

    python3 conformance/tools/make_case_data.py [case ...]
    python3 conformance/tools/make_case_data.py --check   # regenerate and compare
"""
import filecmp
import json
from fractions import Fraction
import os
import sys
import tempfile

import mpmath
import numpy as np

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases")
REGISTRY = {}


# Why numba's CUDA simulator (not numba-cuda on a GPU) disagrees with some cases.
NEP50 = ("numba's simulator runs the kernel as Python: with NumPy 2's promotion rules "
         "(NEP 50) a Python float plus a float32 stays float32, while compiled numba-cuda "
         "types the accumulator as float64")


NO_FMA = ("numba's simulator never fuses a multiply and an add; numba-cuda on the GPU lets "
          "NVVM contract them (its default, -fma=1), as cutwin's frontend does")


GRID_SYNC = ("numba's simulator synchronises the grid correctly only within one block "
             "(its blocks run one after another)")


def case(fn):
    REGISTRY[fn.__name__] = fn
    return fn


def rng(seed):
    return np.random.default_rng(seed)


def blocks(n, b):
    return (n + b - 1) // b


def round_fraction(q, dtype):
    """The float of `dtype` nearest to the rational q (ties to even), like IEEE rounding."""
    if q == 0:
        return dtype(0.0)
    mant, emin = (23, -126) if dtype == np.float32 else (52, -1022)
    sign = -1 if q < 0 else 1
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    if Fraction(2) ** (e + 1) <= q:
        e += 1
    unit = Fraction(2) ** (max(e, emin) - mant)  # spacing of representable values near q
    m = q / unit
    whole = m.numerator // m.denominator
    rest = m - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2 == 1):
        whole += 1
    return dtype(sign * float(whole * unit))


def fma(a, b, c):
    """Fused multiply-add, rounded once, elementwise (the kernels' contracted a*b + c)."""
    a, b, c = np.broadcast_arrays(a, b, c)
    out = np.empty(a.shape, a.dtype)
    for idx in np.ndindex(a.shape):
        x, y, z = float(a[idx]), float(b[idx]), float(c[idx])
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        out[idx] = round_fraction(exact, a.dtype.type)
        if exact == 0 and x * y == 0 and z == 0:  # IEEE: -0 only for (-0) + (-0)
            negative_product = (np.signbit(x) != np.signbit(y))
            out[idx] = -0.0 if negative_product and np.signbit(z) else 0.0
    return out


def correctly_rounded_f64(rows):
    """Rows of float64 function values, each correctly rounded (mpmath at 120 bits): unlike
    NumPy's, whose SIMD paths differ between CPUs by an ulp, they are the same on any host.
    `rows` holds (function, operand arrays...) tuples."""
    out = np.empty((len(rows), len(rows[0][1])))
    with mpmath.workprec(120):
        for k, (fn, *args) in enumerate(rows):
            for j in range(out.shape[1]):
                out[k, j] = float(fn(*(mpmath.mpf(float(a[j])) for a in args)))
    return out


def cbrt(x):
    """The cube root correctly rounded to x's dtype (NumPy's is up to 3 ulp off)."""
    from decimal import Decimal, localcontext
    out = np.empty_like(x)
    with localcontext() as ctx:
        ctx.prec = 80
        for k, v in enumerate(x):
            if v == 0 or not np.isfinite(v):
                out[k] = v
                continue
            root = Decimal(abs(float(v))) ** (Decimal(1) / Decimal(3))
            q = Fraction(root) * (1 if v > 0 else -1)
            out[k] = round_fraction(q, x.dtype.type)
    return out


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
def grid_sync_heat():
    n, niter, tpb = 1001, 300, 128
    data = np.zeros(n)
    data[500] = 10000.0
    data[120:130] = 50.0
    bufs = [data.copy(), data.copy()]
    for step in range(niter):
        src, dst = bufs[step % 2], bufs[1 - step % 2]
        # dst[i] = src[i] + 0.25 * ((src[i-1] - 2 src[i]) + src[i+1]): the kernel's order; the
        # multiply-add contracts, so the expectation fuses it too (exactly, via fractions).
        lap = (src[:-2] - 2 * src[1:-1]) + src[2:]
        dst[1:-1] = [float(Fraction(s) + Fraction(0.25) * Fraction(l)) for s, l in zip(src[1:-1], lap)]
        dst[0], dst[-1] = src[0], src[-1]
    return dict(kernel="grid_sync_heat", grid=[blocks(n, tpb)], block=[tpb],
                args=[("buf_0", data), ("buf_1", np.zeros(n)), ("niter", ("int64", niter))],
                expect={"buf_0": (bufs[0], {}), "buf_1": (bufs[1], {})},
                description="1-D heat equation, one grid sync per step across 8 blocks (cooperative launch)",
                numba_sim_difference=GRID_SYNC)


@case
def grid_sync_sessionize():
    r = rng(31)
    n, tpb = 896, 64
    users = np.sort(r.integers(0, 40, n)).astype(np.int32)
    gaps = r.choice([10, 60, 600, 4000], n, p=[0.4, 0.3, 0.2, 0.1])
    stamps = np.cumsum(gaps).astype(np.int64)
    boundary = np.ones(n, bool)
    boundary[1:] = (users[1:] != users[:-1]) | (np.diff(stamps) > 1800)
    starts = np.flatnonzero(boundary)
    # Every block needs a boundary thread (a block that only returns never reaches the grid
    # barrier, and the barrier could not complete on a GPU).
    assert all(boundary[b * tpb:(b + 1) * tpb].any() for b in range(blocks(n, tpb)))
    expect = starts[np.searchsorted(starts, np.arange(n), side="right") - 1].astype(np.int64)
    return dict(kernel="grid_sync_sessionize", grid=[blocks(n, tpb)], block=[tpb],
                args=[("user_id", users), ("timestamp", stamps), ("results", np.full(n, -1, np.int64))],
                expect={"results": (expect, {})},
                description="numba's sessionize example: boundary threads label, sync the grid, fill their sessions",
                numba_sim_difference=GRID_SYNC)


@case
def matmul_naive():
    r = rng(2)
    m, k, n = 37, 23, 41
    A = r.uniform(-1, 1, (m, k)).astype(np.float32)
    B = r.uniform(-1, 1, (k, n)).astype(np.float32)
    # float32 products accumulated sequentially in float64, as the kernel does.
    prods = (A[:, :, None] * B[None, :, :]).astype(np.float32)
    acc = np.zeros((m, n), np.float64)
    for p in range(k):
        acc = acc + prods[:, p, :].astype(np.float64)
    return dict(kernel="matmul", grid=[blocks(m, 16), blocks(n, 16)], block=[16, 16],
                args=[("A", A), ("B", B), ("C", np.zeros((m, n), np.float32))],
                expect={"C": (acc.astype(np.float32), {})},
                description="naive 2-D matmul, non-square (37x23 @ 23x41)",
                numba_sim_difference=NEP50)


@case
def matmul_tiled():
    r = rng(3)
    m, k, n, tpb = 40, 56, 24, 16
    A = r.uniform(-1, 1, (m, k)).astype(np.float32)
    B = r.uniform(-1, 1, (k, n)).astype(np.float32)
    kk = blocks(k, tpb) * tpb
    Ap = np.zeros((m, kk), np.float32)
    Bp = np.zeros((kk, n), np.float32)
    Ap[:, :k] = A
    Bp[:k, :] = B
    acc = np.zeros((m, n), np.float32)
    for p in range(kk):  # tmp += sA * sB is contracted to an fma (docs/numerics.md)
        acc = fma(np.broadcast_to(Ap[:, p, None], (m, n)), np.broadcast_to(Bp[None, p, :], (m, n)), acc)
    return dict(kernel="matmul_tiled", grid=[blocks(n, tpb), blocks(m, tpb)], block=[tpb, tpb],
                args=[("A", A), ("B", B), ("C", np.zeros((m, n), np.float32))],
                expect={"C": (acc, {})},
                description="shared-memory tiled matmul with barriers, non-square (40x56 @ 56x24), "
                            "fused multiply-add accumulation",
                numba_sim_difference=NO_FMA)


@case
def block_sum():
    r = rng(4)
    n, t = 10000, 256
    x = r.uniform(-1, 1, n).astype(np.float32)
    nb = blocks(n, t)
    s = np.zeros(nb * t, np.float32)
    s[:n] = x
    s = s.reshape(nb, t)
    stride = t // 2
    while stride > 0:
        s[:, :stride] = s[:, :stride] + s[:, stride:2 * stride]
        stride //= 2
    return dict(kernel="block_sum", grid=[nb], block=[t],
                args=[("x", x), ("partial", np.zeros(nb, np.float32))],
                expect={"partial": (s[:, 0].copy(), {})},
                description="shared-memory tree sum per block (the reduction order is fixed)")


@case
def grid3d():
    shape = (5, 6, 7)
    block, grid = (4, 2, 1), (2, 3, 5)
    out = np.zeros(shape, np.int64)
    nx, ny, nz = (grid[0] * block[0], grid[1] * block[1], grid[2] * block[2])
    for z in range(shape[0]):
        for y in range(shape[1]):
            for x in range(shape[2]):
                bx, by, bz = x // block[0], y // block[1], z // block[2]
                flat = (bz * grid[1] + by) * grid[0] + bx
                out[z, y, x] = x + 100 * y + 10000 * z + 1000000 * flat + (nx * ny * nz) % 7
    return dict(kernel="grid3d", grid=list(grid), block=list(block),
                args=[("out", np.zeros(shape, np.int64))],
                expect={"out": (out, {})},
                description="3-D grid: cuda.grid(3), cuda.gridsize(3), blockIdx/gridDim in z, y, x")


@case
def device_functions():
    r = rng(6)
    n = 100
    pts = r.uniform(-2, 2, (n, 2))
    lo, hi = -1.0, 1.0
    x, y = pts[:, 0], pts[:, 1]
    return dict(kernel="device_functions", grid=[1], block=[128],
                args=[("pts", pts), ("lo", ("float64", lo)), ("hi", ("float64", hi)),
                      ("out_clamped", np.zeros(n)), ("out_r", np.zeros(n)), ("out_p", np.zeros(n)),
                      ("out_n", np.zeros(n, np.int64))],
                expect={"out_clamped": (np.clip(x, lo, hi), {}),
                        "out_r": (np.sqrt(fma(x, x, y * y)), {}),  # x*x + y*y contracts
                        "out_p": (x * y, {}),
                        "out_n": ((pts > 0).sum(axis=1).astype(np.int64), {})},
                description="device functions: early returns, tuple returns, array arguments",
                numba_sim_difference=NO_FMA)


@case
def int_floordiv_mod():
    r = rng(7)
    n = 2000
    a = r.integers(-10**6, 10**6, n, dtype=np.int64)
    b = r.integers(-1000, 1000, n, dtype=np.int64)
    b[::50] = 0
    a[1] = np.iinfo(np.int64).max
    a[2], b[2] = np.iinfo(np.int64).min, -1  # overflows: numba-cuda defines MIN // -1 = MIN % -1 = 0
    a[3], b[3] = np.iinfo(np.int64).min, 1
    with np.errstate(divide="ignore", over="ignore"):
        q64 = np.floor_divide(a, b)
        r64 = np.mod(a, b)
        x = np.mod(a, 1000)
        y = np.mod(b, 37) - 18
        q32 = np.floor_divide(x, y)
        r32 = np.mod(x, y)
    q64[2] = r64[2] = 0  # numba-cuda's int_divmod_signed: "we return 0, 0 instead"
    small = (a & 0xFF) * 3 - 500
    z = lambda: np.zeros(n, np.int64)
    return dict(kernel="int_floordiv_mod", grid=[blocks(n, 128)], block=[128],
                args=[("a", a), ("b", b), ("q64", z()), ("r64", z()), ("q32", z()), ("r32", z()),
                      ("small", z())],
                expect={"q64": (q64, {}), "r64": (r64, {}), "q32": (q32, {}), "r32": (r32, {}),
                        "small": (small, {})},
                description="integer // and % with negative operands and zero divisors (NumPy semantics), "
                            "and MIN // -1 (0, as numba-cuda defines it)",
                numba_sim_difference="numba's simulator runs the kernel on NumPy integers, where MIN // -1 "
                                     "wraps to MIN; compiled numba-cuda returns 0 (its int_divmod_signed)")


@case
def float_typing():
    r = rng(8)
    rows, cols = 64, 100
    x = r.uniform(0, 1, (rows, cols)).astype(np.float32)
    t = np.zeros(rows, np.float64)
    s = np.zeros(rows, np.float32)
    for k in range(cols):
        t = t + x[:, k].astype(np.float64)
        s = s + x[:, k]
    mixed = x[:, 0].astype(np.float64) * np.arange(1, rows + 1, dtype=np.float64)
    return dict(kernel="float_typing", grid=[1], block=[64],
                args=[("x", x), ("sums64", np.zeros(rows)), ("sums32", np.zeros(rows, np.float32)),
                      ("mixed", np.zeros(rows))],
                expect={"sums64": (t, {}), "sums32": (s, {}), "mixed": (mixed, {})},
                description="float32 vs float64 typing: literal 0. accumulates in float64",
                numba_sim_difference=NEP50)


@case
def while_break():
    r = rng(9)
    n = 500
    start = r.integers(1, 100000, n, dtype=np.int64)
    start[:4] = [1, 27, 97, 77031]
    steps = np.zeros(n, np.int64)
    peak = np.zeros(n, np.int64)
    for i, v in enumerate(start):
        v = int(v)
        count, top = 0, v
        while v != 1:
            if count >= 500:
                count = -1
                break
            if v % 2 == 0:
                v //= 2
            else:
                v = 3 * v + 1
                top = max(top, v)
            count += 1
        steps[i], peak[i] = count, top
    return dict(kernel="while_break", grid=[blocks(n, 128)], block=[128],
                args=[("start", start), ("steps", np.zeros(n, np.int64)), ("peak", np.zeros(n, np.int64))],
                expect={"steps": (steps, {}), "peak": (peak, {})},
                description="while True with break/continue and an early return")


@case
def local_arrays():
    r = rng(10)
    n, w = 300, 7
    x = r.integers(-1000, 1000, n, dtype=np.int32)
    idx = np.clip(np.arange(n)[:, None] + np.arange(w)[None, :] - w // 2, 0, n - 1)
    med = np.sort(x[idx], axis=1)[:, w // 2].astype(np.int32)
    return dict(kernel="local_arrays", grid=[blocks(n, 64)], block=[64],
                args=[("x", x), ("med", np.zeros(n, np.int32))],
                expect={"med": (med, {})},
                description="per-thread cuda.local.array: insertion-sort median filter")


@case
def out_of_bounds():
    n = 100
    return dict(kernel="out_of_bounds", grid=[1], block=[128],
                args=[("x", np.ones(n, np.float32)), ("out", np.zeros(n, np.float32))],
                compile={"boundscheck": True},
                expect_error={"kind": "IndexOutOfBounds",
                              "contains": "kernel.py:9 in out_of_bounds, thread (99,0,0) block (0,0,0): "
                                          "index 100 out of bounds for axis 0 with size 100"},
                description="an off-by-one read is reported with kernel, line, thread, block, index")


@case
def barrier_divergence():
    return dict(kernel="barrier_divergence", grid=[2], block=[64],
                args=[("x", np.ones(64, np.float32)), ("out", np.zeros(64, np.float32))],
                expect_error={"kind": "BarrierDivergence",
                              "contains": "32 of the block's 64 running threads wait at this barrier"},
                backends=["sim"],
                backends_reason="GPUs do not report barrier divergence; the simulator's detection is the point",
                description="two halves of a block at two different barriers are reported, never merged or hung")


@case
def early_exit_barrier():
    r = rng(12)
    n, t = 7 * 128 + 40, 128
    x = r.uniform(-1, 1, n).astype(np.float32)
    i = np.arange(n)
    base = i - i % t
    last = np.minimum(t - 1, n - 1 - base)
    out = x + x[base + last - i % t]
    return dict(kernel="early_exit_barrier", grid=[blocks(n, t)], block=[t],
                args=[("x", x), ("out", np.zeros(n, np.float32))],
                expect={"out": (out, {})},
                description="threads past the end return before syncthreads(); the rest of the block "
                            "meets there (exited threads leave the barrier's count, as since sm_70)")


@case
def spin_chain():
    r = rng(13)
    n, t = 2 * 48, 48  # small: numba's simulator switches its Python threads every 5 ms
    x = r.uniform(-1, 1, n).astype(np.float32)
    out = np.zeros(n, np.float32)
    for b in range(n // t):  # thread k adds its value to thread k + 1's result, from the top
        acc = np.float32(0)
        for k in range(t - 1, -1, -1):
            acc = x[b * t + k] if k == t - 1 else np.float32(x[b * t + k] + acc)
            out[b * t + k] = acc
    return dict(kernel="spin_chain", grid=[n // t], block=[t],
                args=[("x", x), ("out", np.zeros(n, np.float32))],
                expect={"out": (out, {})},
                description="each thread spins on a flag the next thread of its block sets, then adds that "
                            "thread's result to its own: threads make progress independently (sm_70)")


@case
def math_f64():
    r = rng(11)
    n = 2048
    x = r.uniform(-10, 10, n)
    x[:6] = [0.0, -0.0, 1e-300, np.pi / 2, 1e5, -7.5]
    y = r.uniform(0.5, 3, n)
    v = x
    approx = correctly_rounded_f64([
        (mpmath.sin, v), (mpmath.cos, v), (mpmath.tan, v), (mpmath.exp, v / 4),
        (mpmath.log, np.abs(v) + 1e-3), (mpmath.power, np.abs(v), y), (mpmath.atan2, v, y), (mpmath.tanh, v)])
    exact = np.stack([np.sqrt(np.abs(v)), np.floor(v) + np.ceil(v) + np.fabs(v), v / y, np.mod(v, y),
                      np.floor_divide(v, y)])
    return dict(kernel="math_f64", grid=[blocks(n, 256)], block=[256],
                args=[("x", x), ("y", y), ("approx", np.zeros(approx.shape)), ("exact", np.zeros(exact.shape))],
                expect={"approx": (approx, {"max_ulp": 4}), "exact": (exact, {})},
                description="float64 math: libdevice within 4 ulp of NumPy; + - * / sqrt floor % // exact",
                numba_sim_difference="numba's simulator evaluates math.exp with CPython's math module, "
                                     "which raises OverflowError where the GPU returns inf")


@case
def math_f32():
    r = rng(12)
    n = 2048
    x = r.uniform(-5, 5, n).astype(np.float32)
    x[:4] = [0.5, -0.5, 1.0, 3.0]
    y = r.uniform(0.5, 2, n).astype(np.float32)
    v = x.astype(np.float64)
    approx = correctly_rounded_f64([(mpmath.sin, v), (mpmath.cos, v), (mpmath.exp, v), (mpmath.log, np.abs(v)),
                                    (mpmath.power, np.abs(v), y.astype(np.float64))]).astype(np.float32)
    exact = np.stack([np.sqrt(np.abs(x)), x / y, np.mod(x, y), fma(x, y, -x)]).astype(np.float32)
    return dict(kernel="math_f32", grid=[blocks(n, 256)], block=[256],
                args=[("x", x), ("y", y), ("approx", np.zeros(approx.shape, np.float32)),
                      ("exact", np.zeros(exact.shape, np.float32))],
                expect={"approx": (approx, {"max_ulp": 4}), "exact": (exact, {})},
                description="float32 math stays float32: libdevice within 4 ulp of the correctly rounded "
                            "value; sqrt / % exact; v * y - v contracted to an fma",
                numba_sim_difference=NO_FMA)


@case
def python_operators():
    r = rng(13)
    n = 1000
    a = r.integers(-1000, 1000, n, dtype=np.int64)
    b = r.integers(-1000, 1000, n, dtype=np.int64)
    s = b & 7
    out = np.stack([a << s, a >> s, (a & b) ^ (a | 3), ~a, s ** 3 - a,
                    np.minimum(np.minimum(a, b), 0) + np.maximum(a, b), np.abs(a) - np.abs(b),
                    ((-5 < a) & (a <= b)).astype(np.int64),
                    np.where((a > 0) & (b > 0), a, np.where((a > 0) | (b > 0), b, -1))])
    return dict(kernel="python_operators", grid=[blocks(n, 128)], block=[128],
                args=[("a", a), ("b", b), ("out", np.zeros(out.shape, np.int64))],
                expect={"out": (out, {})},
                description="shifts, bit operations, **, min/max/abs, chained comparisons, and/or")


@case
def fma_contraction():
    r = rng(14)
    n = 512
    a, b, c, d = (r.uniform(-2, 2, n).astype(np.float32) for _ in range(4))
    # The expected output is what numba-cuda computes on a GPU (conformance/gpu/
    # record_with_numba_cuda.py): NVVM contracts multiply-adds, so only hardware can say
    # which ones. Here only the inputs are written; `recorded_on_gpu` keeps the expected
    # file out of the NumPy regeneration.
    return dict(kernel="fma_contraction", grid=[blocks(n, 128)], block=[128],
                args=[("a", a), ("b", b), ("c", c), ("d", d), ("out", np.zeros((16, n), np.float32))],
                expect={"out": (None, {})}, recorded_on_gpu=True,
                description="multiply-add contraction as numba-cuda does it on the GPU (goldens recorded on an H200)",
                numba_sim_difference=NO_FMA)


def fma_patterns(dtype):
    r = rng(14)
    n = 512
    a, b, c, d = (r.uniform(-2, 2, n).astype(np.float32).astype(dtype) for _ in range(4))
    return dict(kernel="fma_patterns", grid=[blocks(n, 128)], block=[128],
                args=[("a", a), ("b", b), ("c", c), ("d", d), ("out", np.zeros((14, n), dtype)),
                      ("out2", np.zeros(n, dtype))],
                expect={"out": (None, {})}, recorded_on_gpu=True,
                description="multiply-add contraction patterns in %s (goldens recorded on an H200)" % np.dtype(dtype).name,
                numba_sim_difference=NO_FMA)


@case
def fma_patterns_f32():
    return fma_patterns(np.float32)


@case
def fma_patterns_f64():
    return dict(fma_patterns(np.float64), module="../fma_patterns_f32/kernel.py")


def write(name, spec, root=CASES):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    args = []
    for arg_name, value in spec["args"]:
        if isinstance(value, dict):  # e.g. {"xoroshiro128p_states": n, "seed": s}
            args.append(dict(name=arg_name, **value))
        elif isinstance(value, tuple):
            args.append({"name": arg_name, "scalar": value[1], "dtype": value[0]})
        elif not value.any():
            args.append({"name": arg_name, "zeros": value.dtype.name, "shape": list(value.shape)})
        else:
            f = f"in_{arg_name}.npy"
            np.save(os.path.join(d, f), np.ascontiguousarray(value))
            args.append({"name": arg_name, "npy": f})
    case = {"description": spec["description"], "kernel": spec["kernel"], "grid": spec["grid"],
            "block": spec["block"], "args": args}
    if "module" in spec:
        case["module"] = spec["module"]
    if "expect" in spec:
        case["expect"] = {}
        for arg_name, (value, tol) in spec["expect"].items():
            if "row_digests" in tol:  # checked by digests recorded on a GPU, no golden file
                case["expect"][arg_name] = dict(tol)
                continue
            f = f"expected_{arg_name}.npy"
            if value is not None:
                np.save(os.path.join(d, f), np.ascontiguousarray(value))
            case["expect"][arg_name] = dict(npy=f, **tol)
    if spec.get("recorded_on_gpu"):
        case["recorded_on_gpu"] = "numba-cuda 0.30.4 on an NVIDIA H200 (conformance/gpu/record_with_numba_cuda.py)"
    if "shared_bytes" in spec:
        case["shared_bytes"] = spec["shared_bytes"]
    if "compile" in spec:
        case["compile"] = spec["compile"]
    if "expect_error" in spec:
        case["expect_error"] = spec["expect_error"]
    if "backends" in spec:
        case["backends"] = spec["backends"]
        case["backends_reason"] = spec["backends_reason"]
    for key in ("numba_sim_difference", "numba_difference"):
        if key in spec:
            case[key] = spec[key]
    with open(os.path.join(d, "case.json"), "w") as fh:
        json.dump(case, fh, indent=2)
        fh.write("\n")


def check(names):
    """Regenerates every case into a scratch folder and compares with the committed files."""
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            write(name, REGISTRY[name](), tmp)
            fresh = os.path.join(tmp, name)
            for f in sorted(os.listdir(fresh)):
                if f.startswith("expected_") and REGISTRY[name]().get("recorded_on_gpu"):
                    continue
                committed = os.path.join(CASES, name, f)
                if not os.path.exists(committed) or not filecmp.cmp(os.path.join(fresh, f), committed, shallow=False):
                    print("%s/%s differs from what NumPy computes now" % (name, f))
                    bad += 1
    print("%d cases regenerated, %d files differ" % (len(names), bad))
    return 1 if bad else 0


def main(argv):
    if argv[:1] == ["--check"]:
        return check(argv[1:] or sorted(REGISTRY))
    names = argv or sorted(REGISTRY)
    for name in names:
        write(name, REGISTRY[name]())
        print("wrote", name)
    return 0


if __name__ == "__main__":
    with np.errstate(all="ignore"):
        sys.exit(main(sys.argv[1:]))
