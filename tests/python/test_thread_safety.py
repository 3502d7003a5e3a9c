"""Launches, compiles and copies from many host threads at once: each launch's result is its
own, and each fault is reported on the launch that made it (the launching thread's
exception), never on another thread's launch, never lost, never a crash."""
import threading

import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import KernelError

THREADS = 8
LAUNCHES_PER_THREAD = 125  # 1,000 launches in all


@cuda.jit
def fill_shifted(out, v):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = v + i


@cuda.jit(boundscheck=True)
def store_at(out, k):
    if cuda.grid(1) == 3:
        out[k] = 1  # k is past the end: an IndexError naming k


@cuda.jit
def two_barriers(out, v):
    if cuda.threadIdx.x < 5:
        cuda.syncthreads()
    else:
        cuda.syncthreads()  # not the same barrier: divergence
    out[0] = v


@cuda.jit(boundscheck=False)
def store_far(out, k):
    if cuda.grid(1) == 0:
        out[k] = 1  # far outside any mapping: an illegal address


@cuda.jit(debug=True, opt=False)
def divide(out, a, b):
    out[0] = a // b


@cuda.jit
def block_sum(x, out):
    # A barrier kernel: its blocks run as fibers.
    s = cuda.shared.array(64, np.float64)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    step = 32
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


def _one_launch(kind, tag, dtype, on_gpu):
    """Runs one launch of `kind`; returns a string describing what went wrong, or None."""
    if kind == "fill":
        out = cuda.to_device(np.zeros(64, dtype))
        fill_shifted[2, 32](out, tag)
        got = out.copy_to_host()
        return None if np.array_equal(got, (tag + np.arange(64)).astype(dtype)) else "wrong result"
    if kind == "sum":
        x = np.arange(256, dtype=np.float64) * tag
        out = np.zeros(4)
        block_sum[4, 64](cuda.to_device(x), out)
        return None if np.array_equal(out, x.reshape(4, 64).sum(axis=1)) else "wrong sum"
    if kind == "index":
        try:
            store_at[1, 32](np.zeros(8, dtype), 100 + tag)
        except IndexError as e:
            if "store_at" not in str(e) or "index %d out of bounds" % (100 + tag) not in str(e):
                return "misattributed: " + str(e)
            return None
        return "fault not reported"
    if kind == "divide":
        try:
            divide[1, 1](np.zeros(1, np.int64), tag, 0)
        except ZeroDivisionError as e:
            return None if "divide" in str(e) else "misattributed: " + str(e)
        return "fault not reported"
    if on_gpu:
        return None  # the simulator's kinds below
    if kind == "barriers":
        try:
            two_barriers[1, 32](np.zeros(1), tag)
        except KernelError as e:
            return None if "two_barriers" in str(e) and "barrier divergence" in str(e) else "misattributed: " + str(e)
        return "fault not reported"
    if kind == "address":
        try:
            store_far[1, 32](np.zeros(8), 1 << 44)
        except KernelError as e:
            return None if "store_far" in str(e) and "illegal memory access" in str(e) else "misattributed: " + str(e)
        return "fault not reported"
    raise AssertionError(kind)


KINDS = ["fill", "sum", "index", "divide", "barriers", "address"]


def test_concurrent_launches_report_each_fault_on_its_own_launch(cutwin_backend):
    # On a GPU a barrier divergence is undefined behaviour and an illegal address ends the
    # context: those two kinds run on the simulator only.
    gpu = cutwin_backend == "gpu"
    problems, launched = [], [0] * THREADS

    def work(t):
        rng = np.random.default_rng(t)
        dtype = [np.float64, np.float32, np.int64, np.int32][t % 4]  # a compile per dtype
        try:
            with cuda.use_backend(cutwin_backend):
                for j in range(LAUNCHES_PER_THREAD):
                    kind = KINDS[rng.integers(len(KINDS))]
                    problem = _one_launch(kind, t * 1000 + j, dtype, gpu)
                    launched[t] += 1
                    if problem:
                        problems.append((t, j, kind, problem))
        except Exception as e:  # a thread's exception is not the test's: reported below
            problems.append((t, None, "unexpected", repr(e)))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not problems, problems[:10]
    assert sum(launched) == THREADS * LAUNCHES_PER_THREAD


def test_a_fault_in_one_thread_is_not_seen_by_another(cutwin_backend):
    # One thread's launch faults; before that thread synchronises, another thread does.
    # The other thread sees nothing; the faulting thread's exception is its own (at the
    # launch on the simulator, whose launches finish before they return; at its
    # synchronisation on a GPU).
    launched, other_done = threading.Event(), threading.Event()
    seen = {}

    def faulting():
        with cuda.use_backend(cutwin_backend):
            out = cuda.to_device(np.zeros(8))
            try:
                try:
                    store_at[1, 32](out, 100)
                finally:
                    launched.set()
                other_done.wait()
                cuda.synchronize()
                seen["faulting"] = "nothing reported"
            except IndexError as e:
                seen["faulting"] = str(e)

    def other():
        with cuda.use_backend(cutwin_backend):
            launched.wait()
            try:
                cuda.synchronize()
                fill_shifted[1, 32](np.zeros(32), 1.0)
                seen["other"] = "clean"
            except Exception as e:
                seen["other"] = repr(e)
            other_done.set()

    a, b = threading.Thread(target=faulting), threading.Thread(target=other)
    a.start(), b.start()
    a.join(), b.join()
    assert "index 100 out of bounds" in seen["faulting"]
    assert seen["other"] == "clean"


@pytest.mark.parametrize("threads", [2, 8])
def test_concurrent_compiles_of_new_kernels(cutwin_backend, threads):
    # Each thread compiles kernels no other thread has: closures over a per-thread value.
    results, problems = {}, []

    def make(c):
        @cuda.jit
        def add_c(out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] += c

        return add_c

    def work(t):
        try:
            with cuda.use_backend(cutwin_backend):
                out = cuda.to_device(np.zeros(40))
                for c in range(3):
                    make(t * 10 + c)[1, 64](out)
                results[t] = out.copy_to_host()
        except Exception as e:
            problems.append(repr(e))

    ths = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    assert not problems, problems
    for t, out in results.items():
        np.testing.assert_array_equal(out, np.full(40, 3 * t * 10 + 3.0))
