#!/usr/bin/env python3
"""What the simulator's sanitizer costs (docs/sanitizers.md), in one run: each kernel
compiled without checks, with the shared-memory checks (`sanitize="shared"`: races and
unwritten reads in shared memory), race checks, and all checks; time per launch, best of
--repeat runs after a warm-up, as a ratio to the unchecked kernel (targets: at most 3x for
the shared-memory checks, 10x for all). Prints a Markdown table.

    PYTHONPATH=build/python python bench/sanitizer.py [--repeat 5]
"""
import argparse
import time

import numpy as np

from cutwin import cuda
from numba import float32, int32

MODES = ["none", "shared", "race", "all"]
TILE = 16


def vadd(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


def matmul_tiled(a, b, c):
    sa = cuda.shared.array((TILE, TILE), float32)
    sb = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x, y = cuda.grid(2)
    acc = float32(0)
    for t in range(a.shape[1] // TILE):
        sa[ty, tx] = a[y, t * TILE + tx]
        sb[ty, tx] = b[t * TILE + ty, x]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[y, x] = acc


def histogram(x, bins):
    h = cuda.shared.array(64, int32)
    t = cuda.threadIdx.x
    if t < 64:
        h[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(h, x[i] % 64, 1)
    cuda.syncthreads()
    if t < 64:
        cuda.atomic.add(bins, t, h[t])


def block_sum(a, out):
    sm = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    sm[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sm[0]


def cases(scale):
    n = 1 << 20 >> scale
    m = 256 >> (scale // 2)
    rng = np.random.default_rng(1)
    a = cuda.to_device(rng.random(n, dtype=np.float32))
    b = cuda.to_device(rng.random(n, dtype=np.float32))
    out = cuda.device_array(n, np.float32)
    ma = cuda.to_device(rng.random((m, m), dtype=np.float32))
    mb = cuda.to_device(rng.random((m, m), dtype=np.float32))
    mc = cuda.device_array((m, m), np.float32)
    xs = cuda.to_device(rng.integers(0, 1 << 20, n, dtype=np.int32))
    bins = cuda.to_device(np.zeros(64, np.int32))
    sums = cuda.device_array(n // 256, np.float32)
    return [
        ("vector add, %d float32" % n, vadd, (n // 256, 256), (a, b, out)),
        ("tiled matmul %dx%d" % (m, m), matmul_tiled, ((m // TILE, m // TILE), (TILE, TILE)), (ma, mb, mc)),
        ("shared-memory histogram, %d int32" % n, histogram, (n // 256, 256), (xs, bins)),
        ("block sum, %d float32" % n, block_sum, (n // 256, 256), (a, sums)),
    ]


def best(launch, repeat):
    launch()  # compile and warm up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        launch()
        cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scale", type=int, default=0, help="halve the sizes this many times")
    args = ap.parse_args()
    print("| kernel | " + " | ".join("%s ms" % m for m in MODES) + " | shared / none | race / none | all / none |")
    print("|---" * (len(MODES) + 4) + "|")
    for name, fn, (grid, block), kargs in cases(args.scale):
        ms = {}
        for mode in MODES:
            k = cuda.jit(sanitize=mode)(fn)
            ms[mode] = best(lambda: k[grid, block](*kargs), args.repeat)
        print("| %s | %s | %.2f | %.2f | %.2f |" % (name, " | ".join("%.2f" % ms[m] for m in MODES),
                                                   ms["shared"] / ms["none"], ms["race"] / ms["none"],
                                                   ms["all"] / ms["none"]))


if __name__ == "__main__":
    main()
