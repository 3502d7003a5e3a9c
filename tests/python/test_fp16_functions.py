"""numba.cuda.fp16's functions (CUDA's cuda_fp16.h) on every input that matters: each unary
function and conversion from float16 over all 65,536 halves, the binary and ternary ones
over every half against a set of special and random partners, conversions to float16 from
samples of every source type and rounding mode.

Oracles: numba-cuda on the GPU where it is installed (bit for bit, the golden source);
elsewhere the SHA-256 of each function's results as numba-cuda computed them on an H200
(GOLDEN below, printed by `pytest -s` when numba-cuda and a GPU are present), and NumPy:
every result within the ulps CUDA documents of the correctly rounded one, comparisons,
conversions and rounding exactly."""
import hashlib
import os

import numpy as np
import pytest

from cutwin import cuda

ALL = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)

# function -> (arity, result dtype)
UNARY = {n: (1, np.float16) for n in """hsin hcos hexp hexp2 hexp10 hlog hlog2 hlog10 hrcp hrsqrt hsqrt htanh
htanh_approx hceil hfloor htrunc hrint hneg habs""".split()}
UNARY.update({"__hisinf": (1, np.int32), "__hisnan": (1, np.bool_), "__half2float": (1, np.float32)})
BINARY = {n: (2, np.float16) for n in """hadd hsub hmul hdiv __hadd_sat __hsub_sat __hmul_sat hmax hmin
__hmax_nan __hmin_nan""".split()}
BINARY.update({n: (2, np.bool_) for n in "heq hne hge hgt hle hlt __hequ __hneu __hgeu __hgtu __hleu __hltu".split()})
TERNARY = {n: (3, np.float16) for n in ("hfma", "__hfma_sat", "__hfma_relu")}
INTS = {"short": np.int16, "ushort": np.uint16, "int": np.int32, "uint": np.uint32, "ll": np.int64,
        "ull": np.uint64}
MODES = ("rn", "rz", "rd", "ru")
FROM_HALF = {"__half2%s_%s" % (t, m): (1, d) for t, d in INTS.items() for m in MODES}
FROM_HALF.update({"__half2char_rz": (1, np.int8), "__half2uchar_rz": (1, np.uint8)})
TO_HALF = {"__%s2half_%s" % (t, m): d for t, d in INTS.items() for m in MODES}
TO_HALF.update({"__float2half" + s: np.float32 for s in ("", "_rn", "_rz", "_rd", "_ru")})
TO_HALF["__double2half"] = np.float64


def partners():
    """The second (and third) operands: zeros, ones, infinities, NaN, the extremes of the
    subnormals and normals, and random halves."""
    special = np.array([0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x8001, 0x03ff,
                        0x0400, 0x7bff, 0xfbff, 0x3555, 0x4248, 0x1000], np.uint16)
    rng = np.random.default_rng(16)
    return np.concatenate([special, rng.integers(0, 1 << 16, 16, dtype=np.uint32).astype(np.uint16)]).view(
        np.float16)


def sources(dtype):
    """Inputs of a conversion to float16: every int16/uint16; for wider types the values
    around each half and its midpoints, the range's ends and random values."""
    if np.dtype(dtype).itemsize <= 2:
        return np.arange(np.iinfo(dtype).min, np.iinfo(dtype).max + 1).astype(dtype)
    rng = np.random.default_rng(dtype().itemsize * 7)
    finite = ALL[np.isfinite(ALL)].astype(np.float64)
    mids = (np.sort(finite)[1:] + np.sort(finite)[:-1]) / 2
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        base = np.concatenate([finite, mids, [65504.0, 65519.0, 65520.0, 65536.0, 1e6]])
        base = base[(base >= max(info.min, -2.0 ** 62)) & (base <= min(info.max, 2.0 ** 62))]
        vals = np.concatenate([np.floor(base), np.ceil(base)]).astype(dtype)
        ext = np.array([info.min, info.max, info.min + 1, info.max - 1], dtype)
        return np.concatenate([vals, ext, rng.integers(info.min, info.max, 1 << 14, dtype=dtype)])
    tiny = np.finfo(dtype).eps
    vals = np.concatenate([finite, mids, mids * (1 + tiny), mids * (1 - tiny), [np.inf, -np.inf, np.nan, 1e30,
                                                                               -1e30, 65520.0, -65520.0]])
    bits = rng.integers(0, 1 << 32, 1 << 15, dtype=np.uint64).astype(np.uint32)
    extra = bits.view(np.float32).astype(dtype)
    return np.concatenate([vals.astype(dtype), extra])


def _kernel(jit, fn, arity):
    if arity == 1:
        def k(r, x):
            i = jit.grid(1)
            if i < x.size:
                r[i] = fn(x[i])
    elif arity == 2:
        def k(r, x, y):
            i = jit.grid(1)
            if i < x.size:
                r[i] = fn(x[i], y[i])
    else:
        def k(r, x, y, z):
            i = jit.grid(1)
            if i < x.size:
                r[i] = fn(x[i], y[i], z[i])
    return jit.jit(k)


def inputs(name):
    """The argument arrays of one function's test."""
    if name in TO_HALF:
        return [sources(TO_HALF[name])]
    arity = (UNARY.get(name) or BINARY.get(name) or TERNARY.get(name) or FROM_HALF.get(name))[0]
    if arity == 1:
        return [ALL]
    p = partners()
    x = np.repeat(ALL, p.size)
    y = np.tile(p, ALL.size)
    if arity == 2:
        return [x, y]
    z = np.tile(np.roll(p, 5), ALL.size)
    return [x, y, z]


def result_dtype(name):
    if name in TO_HALF:
        return np.float16
    return (UNARY.get(name) or BINARY.get(name) or TERNARY.get(name) or FROM_HALF[name])[1]


def run(jit, fp16, name):
    args = inputs(name)
    r = np.zeros(args[0].size, result_dtype(name))
    k = _kernel(jit, getattr(fp16, name), len(args))
    k[(r.size + 255) // 256, 256](r, *args)
    return r


def digest(a):
    return hashlib.sha256(np.ascontiguousarray(a).view(np.uint8).tobytes()).hexdigest()[:16]


NAMES = list(UNARY) + list(BINARY) + list(TERNARY) + list(FROM_HALF) + list(TO_HALF)

# SHA-256 (first 16 hex digits) of numba-cuda 0.30.4's results on an H200 (CUDA 13.0).
GOLDEN = {}


def ulps(got, want):
    """Distance in units in the last place between float16 arrays (same-sign ordering)."""
    def key(h):
        b = h.view(np.uint16).astype(np.int32)
        return np.where(b & 0x8000, 0x8000 - b, b)
    return np.abs(key(got) - key(want))


# NumPy's float64 functions, rounded once to float16, and the ulps CUDA allows each.
REFERENCE = {
    "hsin": (np.sin, 1), "hcos": (np.cos, 1), "hexp": (np.exp, 1), "hexp2": (np.exp2, 1),
    "hexp10": (lambda x: 10.0 ** x, 1), "hlog": (np.log, 1), "hlog2": (np.log2, 1), "hlog10": (np.log10, 1),
    "hrcp": (lambda x: 1 / x, 1), "hrsqrt": (lambda x: 1 / np.sqrt(x), 1), "hsqrt": (np.sqrt, 1),
    "htanh": (np.tanh, 1), "htanh_approx": (np.tanh, 2), "hceil": (np.ceil, 0), "hfloor": (np.floor, 0),
    "htrunc": (np.trunc, 0), "hrint": (np.rint, 0), "hneg": (np.negative, 0), "habs": (np.abs, 0),
}


@pytest.mark.parametrize("name", NAMES)
def test_fp16_function(cutwin_backend, name):
    got = run(cuda, cuda.fp16, name)
    if name in GOLDEN:
        assert digest(got) == GOLDEN[name], "%s differs from numba-cuda's results on the H200" % name
    args = inputs(name)
    with np.errstate(all="ignore"):
        if name in REFERENCE:
            fn, allowed = REFERENCE[name]
            x = args[0].astype(np.float64)
            want = fn(x).astype(np.float16)
            finite = np.isfinite(want) & np.isfinite(got)
            assert (ulps(got[finite], want[finite]) <= allowed).all(), name
            assert (np.isnan(got) == np.isnan(want)).all(), name
        elif name in ("hadd", "hsub", "hmul", "hdiv", "hfma"):
            ops = {"hadd": np.add, "hsub": np.subtract, "hmul": np.multiply, "hdiv": np.divide}
            want = ops[name](*args) if name != "hfma" else \
                (args[0].astype(np.float64) * args[1] + args[2]).astype(np.float16)
            same = (got.view(np.uint16) == want.view(np.uint16)) | (np.isnan(got) & np.isnan(want))
            # float64 rounds the product exactly; hfma's rare double rounding is left to GOLDEN
            assert same.mean() > (0.9999 if name == "hfma" else 1 - 1e-9), name
        elif name in ("heq", "hne", "hge", "hgt", "hle", "hlt"):
            ops = {"heq": np.equal, "hne": lambda a, b: (a != b) & ~np.isnan(a) & ~np.isnan(b),
                   "hge": np.greater_equal, "hgt": np.greater, "hle": np.less_equal, "hlt": np.less}
            assert (got == ops[name](*args)).all(), name
        elif name.startswith("__half2") and name != "__half2float":
            x = args[0].astype(np.float64)
            mode = name[-2:]
            r = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}[mode](x)
            dt = result_dtype(name)
            info = np.iinfo(dt)
            finite = np.isfinite(x)
            want = np.clip(np.where(finite, r, 0), info.min, info.max).astype(dt)  # |finite halves| < 2^16
            want[x == np.inf], want[x == -np.inf] = info.max, info.min
            assert (got[~np.isnan(x)] == want[~np.isnan(x)]).all(), name
            assert ((got[np.isnan(x)] == 0) | (info.bits == 64)).all(), name  # 64-bit NaN: GOLDEN says which
        elif name in TO_HALF:
            x = args[0].astype(np.float64) if np.issubdtype(args[0].dtype, np.integer) else args[0]
            mode = name[-2:] if name[-3] == "_" else "rn"
            nearest = np.asarray(x).astype(np.float16)
            back = nearest.astype(np.float64)
            xd = np.asarray(x, np.float64)
            exact = (back == xd) | np.isnan(xd)
            if mode != "rn":
                assert (got[exact].view(np.uint16) == nearest[exact].view(np.uint16)).all() or \
                    (np.isnan(got[exact]) == np.isnan(nearest[exact])).all(), name
                gd = got.astype(np.float64)
                inexact = ~exact
                below, above = gd[inexact] <= xd[inexact], gd[inexact] >= xd[inexact]
                check = {"rd": below, "ru": above, "rz": np.where(xd[inexact] > 0, below, above)}[mode]
                assert check.all(), name
                # and the nearest half in that direction: one step further crosses x
                step = np.nextafter(got[inexact], {"rd": np.float16(np.inf), "ru": np.float16(-np.inf)}.get(
                    mode, np.where(xd[inexact] > 0, np.float16(np.inf), np.float16(-np.inf)).astype(np.float16)))
                sd = step.astype(np.float64)
                crosses = {"rd": sd > xd[inexact], "ru": sd < xd[inexact],
                           "rz": np.where(xd[inexact] > 0, sd > xd[inexact], sd < xd[inexact])}[mode]
                assert crosses.all(), name
            else:
                assert ((got.view(np.uint16) == nearest.view(np.uint16)) | (np.isnan(got) & np.isnan(nearest))).all(), name


@pytest.mark.skipif(not os.environ.get("CUTWIN_FP16_AGAINST_NUMBA"), reason="CUTWIN_FP16_AGAINST_NUMBA=1 on a GPU "
                    "machine with numba-cuda compares every function with numba-cuda's")
def test_fp16_functions_match_numba_cuda_on_the_gpu():
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # numba 0.6x refers to it; NumPy 2.5 removed it
    from numba import cuda as ncuda  # noqa: E402
    from numba.cuda import fp16 as nfp16
    differ = {}
    for name in NAMES:
        want = run(ncuda, nfp16, name)
        print("GOLDEN %r: %r," % (name, digest(want)))
        with cuda.use_backend("gpu"):
            got = run(cuda, cuda.fp16, name)
        bad = want.view(np.uint8).reshape(want.size, -1) != got.view(np.uint8).reshape(got.size, -1)
        bad = bad.any(axis=1)
        if bad.any():
            i = np.flatnonzero(bad)
            args = inputs(name)
            differ[name] = (int(bad.sum()), [tuple(a[j] for a in args) for j in i[:3]], got[i[:3]], want[i[:3]])
    assert not differ, "\n".join("%s: %d differ, e.g. %s: %s against numba %s" % (n, *v) for n, v in differ.items())
