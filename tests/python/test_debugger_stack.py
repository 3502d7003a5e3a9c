"""The debugger's call stack and stepping on the simulator: a stop shows every frame of the
thread (device functions and the kernel), each with its own variables; finish, until, step
and next move one simulated thread; line breakpoints take a condition and thread/block
filters and can be deleted."""
import inspect

import numpy as np
import pytest

from cutwin import cuda, debug


def lines_of(fn, text):
    """The source lines of `fn` (a jit function) that contain `text`."""
    src, first = inspect.getsourcelines(fn.py_func)
    return [first + k for k, line in enumerate(src) if text in line]


@pytest.fixture(autouse=True)
def simulator():
    with cuda.use_backend("sim"):
        yield
    debug.delete()


@cuda.jit(device=True, debug=True)
def inner(x):
    w = x + 100
    if w == 102:
        breakpoint()
    return w * 3


@cuda.jit(device=True, debug=True)
def middle(x, scale):
    u = x * scale
    return inner(u) + 1


@cuda.jit(debug=True)
def nested(out):
    i = cuda.grid(1)
    base = i + 10
    r = middle(i, 2)
    out[i] = r + base


def expected_nested(n):
    i = np.arange(n)
    return (i * 2 + 100) * 3 + 1 + i + 10


def test_a_stop_in_a_device_function_shows_every_frame_with_its_own_variables():
    out = np.zeros(4, np.int64)
    seen = []

    def look(stop):
        seen.append(stop)
        assert [f.function for f in stop.frames] == ["inner", "middle", "nested"]
        assert [f.line for f in stop.frames] == [lines_of(inner, "breakpoint()")[0],
                                                 lines_of(middle, "return inner(u)")[0],
                                                 lines_of(nested, "r = middle(i, 2)")[0]]
        assert int(stop.frames[0].variables["w"]) == 102
        assert int(stop.frames[1].variables["u"]) == 2 and int(stop.frames[1].variables["scale"]) == 2
        assert int(stop.frames[2].variables["base"]) == 11
        # expressions evaluate in any frame; a frame's numbers can be changed
        assert stop.eval("u * scale + 1", frame=1) == 5
        assert stop.eval("base - cuda.threadIdx.x", frame=2) == 10
        stop.frames[2].set("base", 1000)

    with debug.on_breakpoint(look):
        nested[1, 4](out)
    assert len(seen) == 1 and seen[0].threadIdx == (1, 0, 0)
    want = expected_nested(4)
    want[1] += 1000 - 11  # the change to the caller's variable is what it goes on with
    np.testing.assert_array_equal(out, want)


def test_finish_stops_where_the_function_returns_with_its_result_then_in_the_caller():
    out = np.zeros(4, np.int64)
    stops = []

    def handler(stop):
        stops.append((stop.function, stop.line, stop.at_return, stop.variables.get("__return__"),
                      [f.function for f in stop.frames]))
        return "finish" if len(stops) < 4 else True

    with debug.on_breakpoint(handler):
        nested[1, 4](out)
    (bp,) = lines_of(inner, "breakpoint()")
    (inner_ret,) = lines_of(inner, "return w * 3")
    (middle_ret,) = lines_of(middle, "return inner(u) + 1")
    (nested_end,) = lines_of(nested, "out[i] = r + base")
    assert stops[0] == ("inner", bp, False, None, ["inner", "middle", "nested"])
    assert stops[1] == ("inner", inner_ret, True, 306, ["inner", "middle", "nested"])
    assert stops[2] == ("middle", middle_ret, True, 307, ["middle", "nested"])
    assert stops[3][:3] == ("nested", nested_end, True)
    assert stops[3][4] == ["nested"]
    np.testing.assert_array_equal(out, expected_nested(4))


def test_step_goes_into_a_call_next_goes_over_it_and_both_stay_in_the_thread():
    out = np.zeros(4, np.int64)
    (call,) = lines_of(nested, "r = middle(i, 2)")
    (end,) = lines_of(nested, "out[i] = r + base")
    (u_line,) = lines_of(middle, "u = x * scale")
    for mode, second in (("step", ("middle", u_line)), ("next", ("nested", end))):
        stops = []
        debug.break_at(__file__, call, thread=3)

        def handler(stop):
            stops.append((stop.function, stop.line, stop.threadIdx))
            return mode if stop.cause == "break" else True

        with debug.on_breakpoint(handler):
            nested[1, 4](out)
        debug.clear_breaks()
        # thread 1 stops at its breakpoint() on the way (next does not skip a breakpoint)
        mine = [s for s in stops if s[2] == (3, 0, 0)]
        assert mine == [("nested", call, (3, 0, 0)), second + ((3, 0, 0),)]
    np.testing.assert_array_equal(out, expected_nested(4))


@cuda.jit(debug=True)
def looped(out, n):
    i = cuda.grid(1)
    acc = 0
    for j in range(n):
        acc += j * i
    done = acc + 1
    out[i] = done


def test_until_runs_the_rest_of_a_loop_and_stops_after_it():
    out = np.zeros(4, np.int64)
    (body,) = lines_of(looped, "acc += j * i")
    (after,) = lines_of(looped, "done = acc + 1")
    stops = []
    debug.break_at(__file__, body, thread=2)

    def handler(stop):
        stops.append((stop.cause, stop.line, int(stop.variables["j"]), int(stop.variables["acc"])))
        if len(stops) == 1:
            debug.clear_breaks()  # else each iteration stops at the breakpoint again
            return ("until", body + 1)
        return True

    with debug.on_breakpoint(handler):
        looped[1, 4](out, 5)
    assert stops == [("break", body, 0, 0), ("step", after, 4, 2 * (0 + 1 + 2 + 3 + 4))]
    np.testing.assert_array_equal(out, np.arange(4) * 10 + 1)


def test_step_in_the_last_statement_ends_with_the_thread_not_in_another():
    out = np.zeros(4, np.int64)
    (end,) = lines_of(looped, "out[i] = done")
    stops = []
    debug.break_at(__file__, end, thread=1)

    def handler(stop):
        stops.append((stop.threadIdx, stop.line, stop.at_return))
        return "step"

    with debug.on_breakpoint(handler):
        looped[1, 4](out, 3)
    # after its return event the thread has finished: no stop in thread 2, nor in the scheduler
    assert stops == [((1, 0, 0), end, False), ((1, 0, 0), end, True)]
    np.testing.assert_array_equal(out, np.arange(4) * 3 + 1)


@cuda.jit(debug=True)
def grid2d(out):
    x, y = cuda.grid(2)
    v = x * 100 + y
    out[x, y] = v


def test_line_breakpoint_conditions_and_thread_and_block_filters():
    out = np.zeros((8, 8), np.int64)
    (line,) = lines_of(grid2d, "out[x, y] = v")

    def run(**kw):
        bp = debug.break_at(__file__, line, **kw)
        seen = []
        with debug.on_breakpoint(lambda s: seen.append((s.threadIdx, s.blockIdx, int(s.variables["v"])))):
            grid2d[(2, 2), (4, 4)](out)
        debug.delete(bp)
        return bp, seen

    bp, seen = run(cond="v % 7 == 0")
    want = sorted(((x % 4, y % 4, 0), (x // 4, y // 4, 0), x * 100 + y)
                  for x in range(8) for y in range(8) if (x * 100 + y) % 7 == 0)
    assert sorted(seen) == want and bp.hits == len(want)
    _, seen = run(thread=(1, 2))
    assert sorted(seen) == sorted(((1, 2, 0), (bx, by, 0), (bx * 4 + 1) * 100 + by * 4 + 2)
                                  for bx in range(2) for by in range(2))
    _, seen = run(thread=(1, 2), block=(1, 0))
    assert seen == [((1, 2, 0), (1, 0, 0), 502)]
    _, seen = run(block=(0, 1), cond="cuda.threadIdx.x == cuda.threadIdx.y")
    assert sorted(seen) == [((t, t, 0), (0, 1, 0), t * 100 + 4 + t) for t in range(4)]
    # deleted: nothing stops any more
    seen = []
    with debug.on_breakpoint(lambda s: seen.append(s)):
        grid2d[(2, 2), (4, 4)](out)
    assert seen == [] and debug.breakpoints() == {}
    np.testing.assert_array_equal(out, np.arange(8)[:, None] * 100 + np.arange(8)[None, :])


def test_a_condition_that_fails_to_evaluate_stops_and_says_why(capsys):
    out = np.zeros((8, 8), np.int64)
    (line,) = lines_of(grid2d, "v = x * 100 + y")
    debug.break_at(__file__, line, cond="no_such_name > 1", thread=(0, 0), block=(0, 0))
    seen = []
    with debug.on_breakpoint(lambda s: seen.append(s.threadIdx)):
        grid2d[(2, 2), (4, 4)](out)
    assert seen == [(0, 0, 0)]
    assert "condition 'no_such_name > 1' raised NameError" in capsys.readouterr().err


def test_breakpoints_and_watchpoints_are_numbered_and_deleted_by_number():
    (line,) = lines_of(grid2d, "v = x * 100 + y")
    a = debug.break_at(__file__, line)
    d = cuda.to_device(np.zeros(4, np.int32))
    w = debug.watch(d, 2)
    b = debug.break_at(__file__, line + 1, thread=(1, 0))
    assert [a.number + 1, a.number + 2] == [w.number, b.number]
    assert debug.breakpoints() == {a.number: a, w.number: w, b.number: b}
    assert "thread=(1, 0, 0)" in str(b) and "%s:%d" % (__file__, line + 1) in str(b)
    debug.delete(w.number)
    assert list(debug.breakpoints()) == [a.number, b.number]
    with pytest.raises(KeyError, match="no breakpoint or watchpoint %d" % w.number):
        debug.delete(w.number)
    debug.clear_breaks()
    assert debug.breakpoints() == {}


def test_a_breakpoint_in_a_file_without_debug_kernels_stops_nothing():
    out = np.zeros((8, 8), np.int64)
    debug.break_at("/no/such/file.py", 3)
    seen = []
    with debug.on_breakpoint(lambda s: seen.append(s)):
        grid2d[(2, 2), (4, 4)](out)
    assert seen == []
