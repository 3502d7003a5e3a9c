#!/usr/bin/env python3
"""numba-cuda side of the GPU benchmarks: the same kernel files, sizes and method as
bench/gpu_bench.cpp. Prints Markdown rows."""
import importlib.util
import os
import sys
import time

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda  # noqa: E402

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."


def load(path, name):
    spec = importlib.util.spec_from_file_location("bench_" + name + str(abs(hash(path))), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def measure(path, name, grid, block, args, reps):
    t0 = time.perf_counter()
    k = load(path, name)
    k[grid, block](*args)
    cuda.synchronize()
    first = time.perf_counter() - t0
    for _ in range(3):
        k[grid, block](*args)
    cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        k[grid, block](*args)
    cuda.synchronize()
    kernel_ms = (time.perf_counter() - t0) * 1e3 / reps
    return kernel_ms, first * 1e3 - kernel_ms  # compile + first launch, less the kernel's run


def row(what, kernel_ms, first_ms, note):
    print("| %s | numba-cuda | %.4f | %.1f | %s |" % (what, kernel_ms, first_ms, note))


def main():
    cases = os.path.join(ROOT, "conformance", "cases")
    rng = np.random.default_rng(0)
    n = 64 << 20
    a = cuda.to_device(rng.uniform(-1, 1, n).astype(np.float32))
    b = cuda.to_device(rng.uniform(-1, 1, n).astype(np.float32))
    c = cuda.device_array(n, np.float32)
    k, f = measure(os.path.join(cases, "vadd", "kernel.py"), "vadd", n // 256, 256, (a, b, c), 50)
    row("vadd 64M float32", k, f, "%.0f GB/s" % (12.0 * n / (k * 1e-3) / 1e9))
    k, f = measure(os.path.join(cases, "vadd_two", "kernel.py"), "vadd_two", n // 512, 256, (a, b, c), 50)
    row("vadd 64M float32 (vadd_two)", k, f, "two elements per thread: %.0f GB/s" % (12.0 * n / (k * 1e-3) / 1e9))
    del a, b, c
    m = 2048
    A = cuda.to_device(rng.uniform(-1, 1, (m, m)).astype(np.float32))
    B = cuda.to_device(rng.uniform(-1, 1, (m, m)).astype(np.float32))
    C = cuda.device_array((m, m), np.float32)
    k, f = measure(os.path.join(cases, "matmul_naive", "kernel.py"), "matmul", (m // 16, m // 16), (16, 16), (A, B, C), 10)
    row("naive matmul 2048x2048 float32", k, f, "%.0f GFLOP/s" % (2.0 * m ** 3 / (k * 1e-3) / 1e9))
    k, f = measure(os.path.join(cases, "matmul_tiled", "kernel.py"), "matmul_tiled", (m // 16, m // 16), (16, 16), (A, B, C), 20)
    row("16x16 tiled matmul 2048x2048 float32", k, f, "%.0f GFLOP/s" % (2.0 * m ** 3 / (k * 1e-3) / 1e9))
    n = 16 << 20
    x = cuda.to_device(rng.uniform(-1, 1, n).astype(np.float32))
    partial = cuda.device_array(n // 256, np.float32)
    k, f = measure(os.path.join(cases, "block_sum", "kernel.py"), "block_sum", n // 256, 256, (x, partial), 50)
    row("shared-memory block sum 16M float32", k, f, "%.0f GB/s" % (4.0 * n / (k * 1e-3) / 1e9))
    e = cuda.device_array(16, np.float32)
    k, f = measure(os.path.join(ROOT, "bench", "kernels", "empty.py"), "empty", 1, 32, (e,), 2000)
    print("| empty kernel, 1 array argument | numba-cuda Python launch | %.4f | %.1f | %.1f us per launch |" % (k, f, k * 1e3))


if __name__ == "__main__":
    main()
