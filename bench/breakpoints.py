#!/usr/bin/env python3
"""What breakpoints cost on the simulator, in one run:
- a debug kernel whose `cuda.breakpoint(cond)` never fires, against the same debug kernel
  without it (time per launch, best of several; the ratio is the target: >= 0.5), for
  threads run as a loop and as fibers (a kernel with a barrier);
- what debugging costs at all: the debug kernel against the same kernel compiled without
  debugging (informational: a debug kernel runs at -O0 so that gdb and the prompt see
  every variable and line);
- one stop: a launch whose single thread stops once (the handler returns at once),
  against the same launch without the stop; the difference is the stop's cost.
Prints a Markdown table.

    PYTHONPATH=build/python python bench/breakpoints.py [--n 1048576]
"""
import argparse
import time

import numpy as np

from cutwin import cuda, debug


@cuda.jit(debug=True)
def saxpy_plain(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit(debug=True)
def saxpy_guarded(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        v = a * x[i] + y[i]
        cuda.breakpoint(v < -1.0)  # never: the inputs are non-negative
        out[i] = v


@cuda.jit(debug=True)
def shifted_plain(x, out):
    buf = cuda.shared.array(256, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i]
    cuda.syncthreads()
    out[i] = buf[(t + 1) % 256]


@cuda.jit(debug=True)
def shifted_guarded(x, out):
    buf = cuda.shared.array(256, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i]
    cuda.syncthreads()
    v = buf[(t + 1) % 256]
    cuda.breakpoint(v < -1.0)
    out[i] = v


saxpy_optimised = cuda.jit(debug=False)(saxpy_plain.py_func)


@cuda.jit(debug=True)
def one_thread(out):
    out[0] += 1


@cuda.jit(debug=True)
def one_stop(out):
    out[0] += 1
    breakpoint()


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    cuda.use_backend("sim")
    n = args.n
    x = cuda.to_device(np.random.default_rng(1).random(n, dtype=np.float32))
    y = cuda.to_device(np.random.default_rng(2).random(n, dtype=np.float32))
    out = cuda.device_array(n, np.float32)
    blocks = (n + 255) // 256
    a = np.float32(2.0)
    saxpy_plain[blocks, 256](a, x, y, out)  # compile both first
    saxpy_guarded[blocks, 256](a, x, y, out)
    plain = best(lambda: saxpy_plain[blocks, 256](a, x, y, out), args.repeat)
    guarded = best(lambda: saxpy_guarded[blocks, 256](a, x, y, out), args.repeat)
    saxpy_optimised[blocks, 256](a, x, y, out)
    optimised = best(lambda: saxpy_optimised[blocks, 256](a, x, y, out), args.repeat)

    m = n // 8  # fibers are slower: a smaller launch
    shifted_plain[m // 256, 256](x, out)
    shifted_guarded[m // 256, 256](x, out)
    fplain = best(lambda: shifted_plain[m // 256, 256](x, out), args.repeat)
    fguarded = best(lambda: shifted_guarded[m // 256, 256](x, out), args.repeat)

    counter = cuda.device_array(1, np.int64)
    stops = []
    with debug.on_breakpoint(lambda s: stops.append(1)):
        one_thread[1, 1](counter)
        one_stop[1, 1](counter)
        base = best(lambda: one_thread[1, 1](counter), 50)
        stopped = best(lambda: one_stop[1, 1](counter), 50)
    assert stops, "the stop kernel did not stop"

    print("| benchmark | time | baseline | ratio |")
    print("|---|---|---|---|")
    print("| debug kernel with an inactive `cuda.breakpoint(cond)`, %d elements | %.2f ms | %.2f ms (same kernel "
          "without it) | %.2f of its speed |" % (n, guarded * 1e3, plain * 1e3, plain / guarded))
    print("| the same with a barrier (threads as fibers), %d elements | %.2f ms | %.2f ms (same kernel without it) "
          "| %.2f of its speed |" % (m, fguarded * 1e3, fplain * 1e3, fplain / fguarded))
    print("| debug kernel without a breakpoint, %d elements | %.2f ms | %.2f ms (same kernel without debugging) "
          "| %.2f of its speed |" % (n, plain * 1e3, optimised * 1e3, optimised / plain))
    print("| one stop (handler returns at once) | %.3f ms | %.3f ms (same launch, no stop) | stop costs %.3f ms |"
          % (stopped * 1e3, base * 1e3, (stopped - base) * 1e3))


if __name__ == "__main__":
    main()
