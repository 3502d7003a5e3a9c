"""Watchpoints and post-mortem stops on the simulator. A watchpoint on an element of a
device array (or, set at a stop, of any array the thread sees: shared and local memory too)
stops the thread whose store changed it, just after the store, with the old and new value;
thread/block filters apply. With debugging on, an error found by the scheduler (barrier or
warp divergence) or a memory fault stops at the thread concerned before it is raised."""
import inspect

import numpy as np
import pytest

from cutwin import cuda, debug
from cutwin.errors import KernelError, LaunchError


def lines_of(fn, text):
    """The source lines of `fn` (a jit function) that contain `text`."""
    src, first = inspect.getsourcelines(fn.py_func)
    return [first + k for k, line in enumerate(src) if text in line]


@pytest.fixture(autouse=True)
def simulator():
    with cuda.use_backend("sim"):
        yield
    debug.delete()


@cuda.jit(debug=True)
def fill(a, value):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = value + i


def test_a_watched_device_element_stops_the_thread_that_changes_it_in_every_launch():
    d = cuda.to_device(np.zeros(16, np.int32))
    w = debug.watch(d, 5)
    seen = []
    with debug.on_breakpoint(lambda s: seen.append((s.cause, s.threadIdx, s.blockIdx, s.line, s.old, s.new,
                                                    s.watchpoint))):
        fill[2, 8](d, 10)
        fill[2, 8](d, 10)  # the same value again: no change, no stop
        fill[2, 8](d, 20)
    (line,) = lines_of(fill, "a[i] = value + i")
    assert seen == [("watch", (5, 0, 0), (0, 0, 0), line, 0, 15, w),
                    ("watch", (5, 0, 0), (0, 0, 0), line, 15, 25, w)]
    assert w.hits == 2
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(16) + 20)


def test_a_watchpoint_on_a_multidimensional_element_and_a_filtered_one():
    d = cuda.to_device(np.zeros((4, 6), np.float64))

    @cuda.jit(debug=True)
    def rows(a):
        r, c = cuda.grid(2)
        a[r, c] = r * 10.0 + c

    w = debug.watch(d, (2, 3))
    seen = []
    with debug.on_breakpoint(lambda s: seen.append((s.threadIdx, s.blockIdx, float(s.new)))):
        rows[(2, 2), (2, 3)](d)
    assert seen == [((0, 0, 0), (1, 1, 0), 23.0)]
    debug.delete(w)
    # filtered to a thread that never writes it: no stop
    debug.watch(d, (2, 3), thread=(1, 1))
    d.copy_to_device(np.zeros((4, 6)))
    seen.clear()
    with debug.on_breakpoint(lambda s: seen.append(s)):
        rows[(2, 2), (2, 3)](d)
    assert seen == []
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(4)[:, None] * 10.0 + np.arange(6))


@cuda.jit(debug=True)
def count(hist, keys):
    i = cuda.grid(1)
    if i < keys.size:
        cuda.atomic.add(hist, keys[i], 1)


def test_atomics_on_a_watched_element_stop_each_thread_that_adds():
    keys = np.array([0, 1, 1, 2, 1, 0, 1, 3], np.int32)
    hist = cuda.to_device(np.zeros(4, np.int32))
    debug.watch(hist, 1)
    seen = []
    with debug.on_breakpoint(lambda s: seen.append((s.threadIdx[0], int(s.old), int(s.new)))):
        count[1, 8](hist, keys)
    assert [t for t, _, _ in seen] == [1, 2, 4, 6]  # loop mode: threads run in order
    assert [(o, n) for _, o, n in seen] == [(0, 1), (1, 2), (2, 3), (3, 4)]
    np.testing.assert_array_equal(hist.copy_to_host(), np.bincount(keys, minlength=4))


@cuda.jit(debug=True)
def shared_writer(out):
    buf = cuda.shared.array(8, np.int32)
    t = cuda.threadIdx.x
    buf[t] = t
    cuda.syncthreads()
    if t == 6:
        buf[2] = 77
    cuda.syncthreads()
    out[t] = buf[t]


def test_a_watch_set_at_a_stop_on_shared_memory_names_the_writer_and_ends_with_the_launch():
    out = np.zeros(8, np.int32)
    (_, sync) = lines_of(shared_writer, "cuda.syncthreads()")  # every thread has filled buf there
    (write,) = lines_of(shared_writer, "buf[2] = 77")
    debug.break_at(__file__, sync, thread=0)
    seen = []

    def handler(stop):
        if stop.cause == "break":
            debug.clear_breaks()
            debug.watch(stop.variables["buf"], 2)
        else:
            seen.append((stop.threadIdx, stop.line, int(stop.old), int(stop.new), stop.eval("buf[t]")))
        return True

    with debug.on_breakpoint(handler):
        shared_writer[1, 8](out)
    assert seen == [((6, 0, 0), write, 2, 77, 6)]
    assert debug.breakpoints() == {}  # the shared-memory watch ended with its launch
    np.testing.assert_array_equal(out, [0, 1, 77, 3, 4, 5, 6, 7])


def test_a_host_array_cannot_be_watched_outside_a_stop():
    with pytest.raises(TypeError, match="watch a device array"):
        debug.watch(np.zeros(4), 1)
    with pytest.raises(IndexError, match="out of bounds"):
        debug.watch(cuda.to_device(np.zeros(4)), 4)
    with pytest.raises(IndexError, match="2 indices for an array of 1"):
        debug.watch(cuda.to_device(np.zeros(4)), (1, 1))


@cuda.jit(debug=True)
def local_sum(out):
    t = cuda.threadIdx.x
    tmp = cuda.local.array(4, np.int64)
    for k in range(4):
        tmp[k] = t * k
    out[t] = tmp[0] + tmp[1] + tmp[2] + tmp[3]


def test_a_watch_on_a_threads_local_array_sees_only_that_threads_stores():
    out = np.zeros(4, np.int64)
    (line,) = lines_of(local_sum, "for k in range(4)")
    (store,) = lines_of(local_sum, "tmp[k] = t * k")
    debug.break_at(__file__, line, thread=2)
    seen = []

    def handler(stop):
        if stop.cause == "break":
            stop.variables["tmp"][:] = -1  # known values, so every store below changes one
            debug.watch(stop.variables["tmp"], 3)
        else:
            seen.append((stop.threadIdx, stop.line, int(stop.old), int(stop.new)))
        return True

    with debug.on_breakpoint(handler):
        local_sum[1, 4](out)
    assert seen == [((2, 0, 0), store, -1, 6)]
    np.testing.assert_array_equal(out, np.arange(4) * 6)


# ---- post-mortem --------------------------------------------------------------------------------

def post_mortem(kernel, config, *args):
    """Launches `kernel` with a handler that records the post-mortem stops; returns them and
    the error the launch raised."""
    seen = []
    with debug.on_breakpoint(lambda s: seen.append(s.__dict__ | {"vars": {n: v for n, v in s.variables.items()
                                                                         if np.isscalar(v)}})):
        with pytest.raises(KernelError) as e:
            kernel[config](*args)
    return seen, e.value


@cuda.jit(debug=True)
def one_leaves(out):
    t = cuda.threadIdx.x
    if t != 5:
        cuda.syncthreads()
    out[t] = t


@cuda.jit(debug=True)
def two_barriers(out):
    t = cuda.threadIdx.x
    if t < 3:
        cuda.syncthreads()
    else:
        cuda.syncthreads()
    out[t] = t


def test_barrier_divergence_stops_at_a_waiting_thread_naming_the_culprit():
    # A thread that exits leaves the barrier's count (sm_70 and later): nothing to stop at.
    seen, out = [], np.zeros(8, np.int32)
    with debug.on_breakpoint(seen.append):
        one_leaves[1, 8](out)
    assert seen == [] and (out == np.arange(8)).all()
    first, second = lines_of(two_barriers, "cuda.syncthreads()")
    seen, err = post_mortem(two_barriers, (1, 8), np.zeros(8, np.int32))
    assert len(seen) == 1 and seen[0]["cause"] == "error" and "barrier divergence" in str(err)
    assert seen[0]["line"] == second and seen[0]["vars"]["t"] >= 3
    assert "waits at the barrier at %s:%d" % (__file__, second) in seen[0]["reason"]
    # the waiting threads are in the table, at their barriers
    states = {t.threadIdx[0]: (t.state, t.line) for t in seen[0]["all_threads"]}
    assert states[0][1] == first and states[7][1] == second


@cuda.jit(debug=True)
def shuffle_short(out):
    t = cuda.threadIdx.x
    if t == 4:
        cuda.syncthreads()  # lane 4 waits here, the other 31 for it in the shuffle
    v = cuda.shfl_sync(0xFFFFFFFF, t * 2, 0)
    out[t] = v


def test_a_warp_operation_waiting_for_a_lane_held_elsewhere_stops_at_the_waiting_thread():
    (line,) = lines_of(shuffle_short, "cuda.shfl_sync")
    seen, err = post_mortem(shuffle_short, (1, 32), np.zeros(32, np.int32))
    assert len(seen) == 1 and seen[0]["line"] == line
    assert seen[0]["vars"]["t"] != 4
    assert "cannot complete: lane 4 of the mask waits at the barrier at %s:%d" % (
        __file__, lines_of(shuffle_short, "cuda.syncthreads()")[0]) in seen[0]["reason"]
    assert "cannot complete" in str(err)


@cuda.jit(debug=True, boundscheck=False)
def wild(a, far):
    i = cuda.grid(1)
    j = i * far
    a[j] = 1.0


@cuda.jit(debug=True, boundscheck=False)
def wild_after_barrier(a, far):
    i = cuda.grid(1)
    cuda.syncthreads()
    j = (i == 3) * far
    a[j] = 1.0


@pytest.mark.parametrize("kernel", [wild, wild_after_barrier], ids=["thread loop", "fibers"])
def test_a_memory_fault_stops_at_the_faulting_thread_with_its_locals(kernel):
    a = np.zeros(8)
    (line,) = lines_of(kernel, "a[j] = 1.0")
    seen, err = post_mortem(kernel, (1, 8), a, 1 << 44)
    assert len(seen) == 1 and seen[0]["line"] == line
    tid = seen[0]["threadIdx"][0]
    assert tid >= 1 and (kernel is wild or tid == 3)
    assert seen[0]["vars"]["j"] == (1 << 44) * (1 if kernel is wild_after_barrier else tid)
    assert "illegal memory access" in seen[0]["reason"] and "illegal memory access" in str(err)
    kernel[1, 8](a, 0)  # the next launch works
    assert a[0] == 1.0


def test_quitting_at_a_post_mortem_stop_ends_the_launch_and_the_next_one_runs_clean():
    a = np.zeros(8)
    with debug.on_breakpoint(lambda s: False):
        with pytest.raises(LaunchError, match="ended in the debugger"):
            wild[1, 8](a, 1 << 44)
    wild[1, 8](a, 0)  # no error left over from the ended launch
    assert a[0] == 1.0


@cuda.jit(debug=True)
def cooperative(out, res):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    out[i] = i * 3
    g.sync()
    if i == 0:
        breakpoint()
    res[i] = out[i] + out[(i + cuda.blockDim.x) % out.size]


def test_in_a_cooperative_launch_a_stop_sees_the_threads_of_every_block():
    out = np.zeros(8, np.int64)
    seen = []

    def look(stop):
        blocks = sorted({t.blockIdx for t in stop.all_threads})
        other = stop.thread((1, 0, 0), block=(1, 0, 0))
        seen.append((blocks, other.state, stop.eval("i", thread=(1, 0, 0), block=(1, 0, 0)), len(stop.threads)))

    res = np.zeros_like(out)
    with debug.on_breakpoint(look):
        cooperative[2, 4](out, res)
    # block 1 is still parked at the grid barrier: its threads' variables are there to read
    assert seen == [([(0, 0, 0), (1, 0, 0)], "grid barrier", 5, 4)]
    np.testing.assert_array_equal(res, np.arange(8) * 3 + ((np.arange(8) + 4) % 8) * 3)
