#!/usr/bin/env python3
"""Writes the inputs of the libdevice_calls conformance case: 2^15 float32 and float64
pairs (random bit patterns, ordinary ranges, the ranges of the inverse and Bessel
functions, zeros, subnormals, infinities; NaNs with payloads in float32 only, where the GPU
canonicalises them, so that no result depends on which of two NaN operands a compiler
propagates) and integer triples.

    python3 conformance/tools/libdevice_calls_case.py
"""
import os

import numpy as np

N = 1 << 15
CASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases", "libdevice_calls")


def floats(rng, dtype, bits, nans):
    n4 = N // 4
    parts = [
        rng.integers(0, 1 << bits, n4, dtype=np.uint64).astype(np.uint64 if bits == 64 else np.uint32)
        .view(dtype),
        rng.uniform(-12, 12, n4).astype(dtype),
        rng.uniform(-0.5, 2.5, n4).astype(dtype),  # erfcinv's (0, 2), normcdfinv's (0, 1)
    ]
    tiny = np.finfo(dtype).tiny
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, tiny, -tiny, tiny / 4, np.inf, -np.inf, 1e30, -7.5, 100.0]
    if nans:
        special += [np.nan, -np.nan]
    rest = N - sum(len(p) for p in parts)
    parts.append(np.resize(np.array(special, dtype=dtype), rest))
    x = np.concatenate(parts)
    if not nans:
        x[np.isnan(x)] = 3.0
    return x


def main():
    rng = np.random.default_rng(20261130)
    x32, y32 = floats(rng, np.float32, 32, True), floats(rng, np.float32, 32, True)
    x64, y64 = floats(rng, np.float64, 64, False), floats(rng, np.float64, 64, False)
    perm = rng.permutation(N)
    y32, y64 = y32[perm], y64[perm]
    ints = [rng.integers(-(1 << 31), 1 << 31, N, dtype=np.int64).astype(np.int32) for _ in range(3)]
    ints[2][: N // 2] %= 64  # scalbn's and powi's exponents: mostly small
    for name, v in [("x32", x32), ("y32", y32), ("x64", x64), ("y64", y64), ("n", ints[0]), ("m", ints[1]),
                    ("k", ints[2])]:
        np.save(os.path.join(CASE, "in_%s.npy" % name), v)


if __name__ == "__main__":
    main()
