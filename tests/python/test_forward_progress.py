"""Threads that wait for other threads. Since Volta (sm_70) every GPU thread makes progress
of its own: a thread may spin on a flag another thread of its block sets, or take a lock
another thread holds. The simulator's fibers yield in such loops; a block whose threads
can only spin is reported as a livelock (where a GPU would hang), naming kernel, loop and
threads."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cutwin import cuda


@cuda.jit
def wait_for_the_last_thread(flag, out):
    # Every thread but the block's last waits for the last one, which runs last in the
    # simulator's thread order.
    t = cuda.threadIdx.x
    if t == cuda.blockDim.x - 1:
        cuda.atomic.exch(flag, cuda.blockIdx.x, 7 + cuda.blockIdx.x)
    else:
        while cuda.atomic.add(flag, cuda.blockIdx.x, 0) == 0:
            pass
    out[cuda.grid(1)] = cuda.atomic.add(flag, cuda.blockIdx.x, 0)


def test_threads_wait_for_a_flag_a_later_thread_sets(cutwin_backend):
    flag = np.zeros(3, np.int32)
    out = np.zeros(3 * 256, np.int32)
    wait_for_the_last_thread[3, 256](flag, out)
    np.testing.assert_array_equal(out, np.repeat([7, 8, 9], 256))


@cuda.jit
def count_under_a_lock(lock, total, order):
    # A spin lock around a plain read-modify-write: only one thread at a time may be inside.
    done = False
    while not done:
        if cuda.atomic.compare_and_swap(lock, 0, 1) == 0:
            cuda.threadfence()
            n = total[0]
            order[n] = cuda.grid(1)
            total[0] = n + 1
            cuda.threadfence()
            cuda.atomic.exch(lock, 0, 0)
            done = True


def test_a_spin_lock_serialises_its_critical_section(cutwin_backend):
    lock, total = np.zeros(1, np.int32), np.zeros(1, np.int32)
    order = np.full(4 * 64, -1, np.int64)
    count_under_a_lock[4, 64](lock, total, order)
    assert total[0] == 4 * 64
    np.testing.assert_array_equal(np.sort(order), np.arange(4 * 64))  # each thread once


@cuda.jit(sanitize=False)  # the plain load races with the store, as the test means (the sanitizer says so)
def wait_by_plain_load(flag, out):
    t = cuda.threadIdx.x
    if t == 40:
        flag[0] = 1
    while flag[0] == 0:  # a plain load: a GPU compiler may hoist it (use atomics there)
        pass
    out[t] = flag[0]


def test_a_plain_load_in_a_waiting_loop_is_read_again():
    # The simulator reads the flag again in every iteration (the poll is a call the
    # optimiser cannot move the load across).
    out = np.zeros(64, np.int32)
    with cuda.use_backend("sim"):
        wait_by_plain_load[1, 64](np.zeros(1, np.int32), out)
    np.testing.assert_array_equal(out, np.ones(64))


@cuda.jit
def shared_flag_then_barrier(x, out):
    # Waiting on shared memory, then a barrier every thread reaches after its wait.
    s = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    if t == 0:
        s[0] = 0
    cuda.syncthreads()
    if t == cuda.blockDim.x - 1:
        cuda.atomic.exch(s, 0, 5)
    while cuda.atomic.add(s, 0, 0) == 0:
        pass
    cuda.syncthreads()
    out[cuda.grid(1)] = x[cuda.grid(1)] + s[0]


def test_waiting_loops_and_barriers_in_one_kernel(cutwin_backend):
    x = np.arange(128, dtype=np.int32)
    out = np.zeros(128, np.int32)
    shared_flag_then_barrier[2, 64](x, out)
    np.testing.assert_array_equal(out, x + 5)


LIVELOCKS = textwrap.dedent("""
    import numpy as np
    from cutwin import cuda
    from cutwin.errors import KernelError

    @cuda.jit
    def nobody_sets_it(flag, out):
        while cuda.atomic.add(flag, 0, 0) == 0:
            pass
        out[cuda.threadIdx.x] = 1

    @cuda.jit
    def setter_waits_at_a_barrier(flag, out):
        t = cuda.threadIdx.x
        if t == 0:
            while cuda.atomic.add(flag, 0, 0) == 0:
                pass
        else:
            cuda.syncthreads()  # waits for thread 0, which waits for the flag
            cuda.atomic.exch(flag, 0, 1)
        out[t] = 1

    for kernel in (nobody_sets_it, setter_waits_at_a_barrier):
        try:
            kernel[1, 32](np.zeros(1, np.int32), np.zeros(32, np.int32))
            print("no error")
        except KernelError as e:
            print(type(e).__name__, e.kernel, e.thread, str(e))
    out = np.zeros(32, np.int32)  # the process keeps working
    nobody_sets_it[1, 32](np.ones(1, np.int32), out)
    print("after", out.sum())
""")


def test_a_block_that_can_only_spin_is_a_livelock_not_a_hang(tmp_path):
    script = tmp_path / "livelock.py"
    script.write_text(LIVELOCKS)
    env = dict(os.environ, CUTWIN_SIM_SPIN_TIMEOUT="0.3", CUTWIN_BACKEND="sim")  # (a GPU would hang)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("KernelError nobody_sets_it (0, 0, 0) "), lines[0]
    assert "livelock.py:8 in nobody_sets_it, thread (0,0,0) block (0,0,0): livelock: 32 threads of the block " \
           "spin in the loop at line 8 and no thread of the block made progress for 0.3 s" in lines[0]
    # Thread 0 spins; the others wait at a barrier for it: a GPU hangs too.
    assert lines[1].startswith("KernelError setter_waits_at_a_barrier (0, 0, 0) "), lines[1]
    assert "1 thread of the block spins in the loop at line 16" in lines[1]
    assert lines[2] == "after 32"
