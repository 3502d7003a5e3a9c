"""Breakpoints in kernels on the simulator: breakpoint(), pdb.set_trace() and
cuda.breakpoint(cond) stop the simulated thread in kernels compiled for debugging; the
handler sees the thread's variables (arrays as writable views of the simulated memory) and
every thread of its block; changes it makes are what the thread goes on with; ending the
launch raises LaunchError and the next launch works. The prompt is driven through a pipe."""
import inspect
import os
import pdb
import textwrap

import numpy as np
import pytest

from cutwin import cuda, debug
from cutwin.errors import LaunchError
from debug_programs import run_program, terminal_session


def lines_of(fn, text):
    """The source lines of `fn` (a jit function) that contain `text`."""
    src, first = inspect.getsourcelines(fn.py_func)
    return [first + k for k, line in enumerate(src) if text in line]


@pytest.fixture(autouse=True)
def simulator():
    with cuda.use_backend("sim"):
        yield


@cuda.jit(debug=True)
def scaled(a, out, factor):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i] * factor
        if i == 5:
            breakpoint()
        out[i] = v


def test_stop_shows_the_threads_variables_and_where_it_is():
    a = np.arange(64, dtype=np.float32)
    out = np.zeros_like(a)
    stops = []

    def look(stop):
        vs = stop.variables
        stops.append((stop.kernel, stop.function, os.path.basename(stop.file), stop.threadIdx, stop.blockIdx,
                      int(vs["i"]), float(vs["v"]), float(vs["factor"]), vs["a"].shape, vs["a"].dtype,
                      float(vs["a"][7]), stop.eval("a[i] * factor + cuda.threadIdx.x")))

    with debug.on_breakpoint(look):
        scaled[2, 32](a, out, np.float32(3))
    (line,) = lines_of(scaled, "breakpoint()")
    assert stops == [("scaled", "scaled", "test_debugger.py", (5, 0, 0), (0, 0, 0), 5, 15.0, 3.0, (64,),
                      np.dtype(np.float32), 7.0, 20.0)]
    np.testing.assert_array_equal(out, a * 3)
    seen = []
    with debug.on_breakpoint(lambda s: seen.append(s.line)):
        scaled[2, 32](a, out, np.float32(3))
    assert seen == [line]


def test_changes_made_at_the_stop_are_what_the_thread_goes_on_with():
    a = np.arange(64, dtype=np.float32)
    out = np.zeros_like(a)

    def change(stop):
        stop.set("v", -1.5)  # the local the thread stores next
        stop.variables["a"][0] = 100  # the argument array, in simulated memory
        stop.exec("out[0] = i * 2")  # thread 0 has stored its element already

    with debug.on_breakpoint(change):
        scaled[2, 32](a, out, np.float32(2))
    expected = a * 2
    expected[5] = -1.5
    expected[0] = 10
    np.testing.assert_array_equal(out, expected)
    assert a[0] == 100  # copied back from the simulated device


@cuda.jit(debug=True)
def conditional(out):
    i = cuda.grid(1)
    cuda.breakpoint(i % 7 == 3)
    out[i] = i


@cuda.jit(debug=True)
def traced(out):
    i = cuda.grid(1)
    if i == 2:
        pdb.set_trace()
    out[i] = i


def test_cuda_breakpoint_stops_where_its_condition_holds_and_pdb_set_trace_stops():
    out = np.zeros(40, np.int64)
    where = []
    with debug.on_breakpoint(lambda s: where.append(s.variables["i"])):
        conditional[2, 20](out)
    assert sorted(where) == [i for i in range(40) if i % 7 == 3]
    np.testing.assert_array_equal(out, np.arange(40))
    where.clear()
    with debug.on_breakpoint(lambda s: where.append((s.threadIdx, s.blockIdx))):
        traced[1, 8](out)
    assert where == [((2, 0, 0), (0, 0, 0))]


@cuda.jit
def not_debug(out):
    i = cuda.grid(1)
    breakpoint()
    out[i] = 2 * i


def test_without_debugging_breakpoints_do_nothing():
    out = np.zeros(32, np.int64)
    calls = []
    with debug.on_breakpoint(calls.append), pytest.warns(RuntimeWarning, match="not compiled for debugging"):
        not_debug[1, 32](out)
    assert calls == []
    np.testing.assert_array_equal(out, 2 * np.arange(32))


def test_ending_the_launch_raises_and_the_next_launch_works():
    a = np.arange(64, dtype=np.float32)
    out = np.zeros_like(a)
    with debug.on_breakpoint(lambda s: False), pytest.raises(LaunchError) as info:
        scaled[2, 32](a, out, np.float32(3))
    assert "ended in the debugger" in str(info.value)
    assert "test_debugger.py:%d" % lines_of(scaled, "breakpoint()")[0] in str(info.value)
    assert "thread (5, 0, 0), block (0, 0, 0)" in str(info.value)
    with debug.on_breakpoint(lambda s: True):
        scaled[2, 32](a, out, np.float32(3))
    np.testing.assert_array_equal(out, a * 3)


@cuda.jit(debug=True)
def staged(out):
    buf = cuda.shared.array(16, np.int32)
    t = cuda.threadIdx.x
    buf[t] = t * t
    cuda.syncthreads()
    if t == 3:
        breakpoint()
    cuda.syncthreads()
    out[t] = buf[(t + 1) % 16]


def test_the_thread_table_shows_where_every_thread_of_the_block_waits():
    out = np.zeros(16, np.int32)
    tables = []

    def look(stop):
        tables.append(stop.threads)
        np.testing.assert_array_equal(stop.variables["buf"], np.arange(16) ** 2)  # shared memory
        stop.variables["buf"][4] = -7  # seen by thread 3 after the barrier

    with debug.on_breakpoint(look):
        staged[1, 16](out)
    first_barrier, second_barrier = lines_of(staged, "cuda.syncthreads()")
    (table,) = tables
    states = {t.threadIdx[0]: (t.state, t.line) for t in table}
    assert states[3] == ("breakpoint", lines_of(staged, "breakpoint()")[0])
    # threads before 3 already wait at the second barrier, those after it at the first
    assert all(states[t] == ("barrier", second_barrier) for t in range(3))
    assert all(states[t] == ("barrier", first_barrier) for t in range(4, 16))
    expected = (np.arange(16) + 1) % 16
    expected = expected ** 2
    expected[3] = -7
    np.testing.assert_array_equal(out, expected)


def test_ending_the_launch_at_a_thread_among_barriers_raises_and_the_next_launch_works():
    out = np.zeros(16, np.int32)
    with debug.on_breakpoint(lambda s: False), pytest.raises(LaunchError, match="ended in the debugger"):
        staged[1, 16](out)
    with debug.on_breakpoint(lambda s: None):
        staged[1, 16](out)
    np.testing.assert_array_equal(out, ((np.arange(16) + 1) % 16) ** 2)


@cuda.jit(debug=True)
def pairs(out):
    t = cuda.threadIdx.x
    mine = t * 10
    cuda.syncthreads()
    if t == 5:
        breakpoint()
    out[t] = mine


def test_threads_waiting_at_a_barrier_show_their_own_variables():
    out = np.zeros(16, np.int64)
    seen = {}

    def look(stop):
        seen["self"] = int(stop.variables["mine"])
        seen["7"] = int(stop.thread((7,)).variables["mine"])
        seen["7 eval"] = stop.eval("mine + cuda.threadIdx.x", thread=(7,))
        seen["unknown"] = [t.threadIdx[0] for t in stop.threads if t.variables is None]
        stop.exec("mine = -1", thread=(9,))  # thread 9 goes on with it

    with debug.on_breakpoint(look):
        pairs[1, 16](out)
    # threads 0-4 have exited, 6-15 wait at the barrier with their frames
    assert seen == {"self": 50, "7": 70, "7 eval": 77, "unknown": [0, 1, 2, 3, 4]}
    expected = np.arange(16) * 10
    expected[9] = -1
    np.testing.assert_array_equal(out, expected)


@cuda.jit(device=True, debug=True)
def helper(x, scale):
    y = x * scale
    breakpoint()
    return y + 1


@cuda.jit(debug=True)
def calls_helper(out):
    i = cuda.grid(1)
    out[i] = helper(i, 10)


def test_a_breakpoint_in_a_device_function_shows_its_own_variables():
    out = np.zeros(4, np.int64)
    seen = []
    with debug.on_breakpoint(lambda s: seen.append((s.function, s.kernel, sorted(s.variables),
                                                    int(s.variables["y"])))):
        calls_helper[1, 4](out)
    assert seen == [("helper", "calls_helper", ["scale", "x", "y"], 10 * t) for t in range(4)]
    np.testing.assert_array_equal(out, 10 * np.arange(4) + 1)


PROGRAM = textwrap.dedent('''
    import numpy as np
    from cutwin import cuda

    @cuda.jit
    def stencil(a, out):
        i = cuda.grid(1)
        if 0 < i < a.size - 1:
            s = a[i - 1] + a[i] + a[i + 1]
            if i == 9:
                breakpoint()
            out[i] = s

    a = np.arange(16, dtype=np.float64) ** 2
    out = np.zeros_like(a)
    with cuda.use_backend("sim"):
        try:
            stencil[1, 16](a, out)
        except Exception as e:
            print("raised", type(e).__name__)
        stencil[1, 16](a, out)
    print("out[9] =", out[9])
''')


def test_the_prompt_prints_expressions_lists_threads_and_quits(tmp_path):
    prog = tmp_path / "stencil_program.py"
    out = run_program(prog, PROGRAM,
                      "p i, s\np a[i - 1:i + 2]\np cuda.threadIdx.x + 100\nthreads\nlist\nthread 3\nq\nc\n")
    assert "> breakpoint in kernel 'stencil' at %s:11 (stencil)" % prog in out
    assert "thread (9, 0, 0), block (0, 0, 0)" in out
    assert "(9, 245.0)" in out  # 64 + 81 + 100
    assert "array([ 64.,  81., 100.])" in out
    assert "109" in out
    assert "(9, 0, 0)     breakpoint     11" in out
    assert "  11 -> " + " " * 12 + "breakpoint()" in out
    assert "*** thread (3, 0, 0) is exited: its variables are not known there" in out
    assert "raised LaunchError" in out  # q ended the first launch
    assert "out[9] = 245.0" in out  # the second launch went on after c


def test_the_prompt_works_in_a_terminal(tmp_path):
    """The same program on a pseudo-terminal: the prompt reads each command as typed and the
    launch goes on after `c`."""
    text = terminal_session(tmp_path / "stencil_program.py", PROGRAM,
                            [(b"(cutwin) ", b"p s\n"), (b"245.0", b"c\n"),  # the first launch goes on
                             (b"(cutwin) ", b"c\n"),  # the second launch stops too
                             (b"out[9] = 245.0", None)])
    assert text.count("> breakpoint in kernel 'stencil'") == 2
    assert "raised" not in text


@cuda.jit(debug=True)
def off_by_one(a, out):
    i = cuda.grid(1)
    j = i + 1
    out[i] = a[j]  # a[a.size] for the last thread


def test_an_error_stops_the_faulting_thread_first_post_mortem():
    a = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    seen = []
    with debug.on_breakpoint(lambda s: seen.append((s.reason, s.threadIdx, int(s.variables["i"]),
                                                    int(s.variables["j"]), s.variables["a"].shape))):
        with pytest.raises(IndexError):  # continuing raises the error itself
            off_by_one[1, 8](a, out)
    assert seen == [("IndexError: index out of bounds", (7, 0, 0), 7, 8, (8,))]
    (line,) = lines_of(off_by_one, "out[i] = a[j]")
    with debug.on_breakpoint(lambda s: seen.append(s.line) or False), pytest.raises(LaunchError):
        off_by_one[1, 8](a, out)
    assert seen[-1] == line


OFF_BY_ONE_PROGRAM = textwrap.dedent('''
    import numpy as np
    from cutwin import cuda

    @cuda.jit(debug=True)
    def off_by_one(a, out):
        i = cuda.grid(1)
        j = i + 1
        out[i] = a[j]

    a = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    with cuda.use_backend("sim"):
        try:
            off_by_one[1, 8](a, out)
        except IndexError as e:
            print("raised", type(e).__name__)
''')


def test_on_a_terminal_an_error_opens_the_prompt_post_mortem(tmp_path):
    text = terminal_session(tmp_path / "off_by_one_program.py", OFF_BY_ONE_PROGRAM,
                            [(b"(cutwin) ", b"p i, j, a.size\n"), (b"(7, 8, 8)", b"c\n"),
                             (b"raised KernelIndexError", None)],
                            env_debug=False)
    assert "> post-mortem: IndexError: index out of bounds" in text
    assert "thread (7, 0, 0), block (0, 0, 0)" in text
    assert "raised KernelIndexError" in text


BARRIER_PROGRAM = textwrap.dedent('''
    import numpy as np
    from cutwin import cuda

    @cuda.jit
    def pairs(out):
        t = cuda.threadIdx.x
        mine = t * 10
        cuda.syncthreads()
        if t == 5:
            breakpoint()
        out[t] = mine

    out = np.zeros(16, np.int64)
    with cuda.use_backend("sim"):
        pairs[1, 16](out)
    print("out =", out.tolist())
''')


def test_the_prompt_switches_to_a_thread_waiting_at_a_barrier(tmp_path):
    out = run_program(tmp_path / "pairs_program.py", BARRIER_PROGRAM,
                      "p mine\nthread 7\np mine, cuda.threadIdx.x\n!mine = 123\nthreads\nthread\np mine\nc\n")
    assert "thread (7, 0, 0), block (0, 0, 0), waiting at the barrier of line 9 in pairs" in out
    assert "(70, 7)" in out
    assert "* (7, 0, 0)     barrier        9" in out  # the table marks the thread shown
    assert "thread (5, 0, 0), block (0, 0, 0), stopped at line 11" in out
    assert "out = [0, 10, 20, 30, 40, 50, 60, 123, 80" in out


@cuda.jit(debug=True)
def doubled_with_stop(out):
    i = cuda.grid(1)
    cuda.breakpoint(i == 3)
    out[i] = 2 * i


def test_on_every_backend_the_kernel_computes_the_same_and_only_the_simulator_stops(cutwin_backend):
    out = np.zeros(32, np.int64)
    stops = []
    if cutwin_backend == "gpu":
        with debug.on_breakpoint(stops.append), pytest.warns(RuntimeWarning, match="GPU kernels do not stop"):
            doubled_with_stop[1, 32](out)
        assert stops == []
    else:
        with debug.on_breakpoint(lambda s: stops.append(s.threadIdx)):
            doubled_with_stop[1, 32](out)
        assert stops == [(3, 0, 0)]
    np.testing.assert_array_equal(out, 2 * np.arange(32))


def test_without_a_terminal_a_post_mortem_stop_lets_the_error_be_raised():
    """The default handler (the prompt) opens post-mortem only on a terminal: under pytest's
    capture, a debug kernel's error is raised as it would be without debugging."""
    a = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    with pytest.raises(IndexError, match="index 8 out of bounds"):
        off_by_one[1, 8](a, out)


@cuda.jit(device=True, debug=True)
def twice_plus_one(x):
    y = x * 2
    return y + 1


@cuda.jit(debug=True)
def walk(out):
    i = cuda.grid(1)
    a = i + 1
    if i == 2:
        breakpoint()
    b = a * 2
    c = twice_plus_one(b)
    out[i] = c


def test_step_and_next_stop_the_same_thread_at_its_next_statements():
    out = np.zeros(4, np.int64)
    stops = []
    plan = ["next", "next", "step", "step", True]  # what to do at each stop

    def handler(stop):
        stops.append((stop.line, stop.function, stop.threadIdx))
        return plan[len(stops) - 1]

    with debug.on_breakpoint(handler):
        walk[1, 4](out)
    (bp,) = lines_of(walk, "breakpoint()")
    (b_line,) = lines_of(walk, "b = a * 2")
    (c_line,) = lines_of(walk, "c = twice_plus_one(b)")
    (y_line,) = lines_of(twice_plus_one, "y = x * 2")
    (ret_line,) = lines_of(twice_plus_one, "return y + 1")
    assert stops == [(bp, "walk", (2, 0, 0)), (b_line, "walk", (2, 0, 0)), (c_line, "walk", (2, 0, 0)),
                     (y_line, "twice_plus_one", (2, 0, 0)), (ret_line, "twice_plus_one", (2, 0, 0))]
    np.testing.assert_array_equal(out, (np.arange(4) + 1) * 4 + 1)


def test_a_line_breakpoint_stops_every_thread_that_reaches_the_line():
    out = np.zeros(4, np.int64)
    (line,) = lines_of(walk, "out[i] = c")
    seen = []
    debug.break_at(__file__, line)
    try:
        with debug.on_breakpoint(lambda s: seen.append((s.line, s.threadIdx, int(s.variables["c"])))):
            walk[1, 4](out)
    finally:
        debug.clear_breaks()
    # thread 2 also stops at its breakpoint() first
    assert [s for s in seen if s[0] == line] == [(line, (t, 0, 0), (t + 1) * 4 + 1) for t in range(4)]
    seen.clear()
    with debug.on_breakpoint(lambda s: seen.append(s.line)):
        walk[1, 4](out)
    assert seen == lines_of(walk, "breakpoint()")  # cleared: only the breakpoint() stops
