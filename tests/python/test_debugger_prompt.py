"""The debugger's prompt as a user types at it (standard input of a child process):
watching a shared-memory element names the thread that writes it; where/up/down walk the
call stack; finish stops at a device function's return with its result; break with a
condition and a thread filter stops only the matching thread; delete removes it."""
from debug_programs import run_program


SHARED_WRITER = '''
import numpy as np
from cutwin import cuda

@cuda.jit
def fill(out):
    buf = cuda.shared.array(8, np.int32)
    t = cuda.threadIdx.x
    buf[t] = t
    cuda.syncthreads()
    if t == 0:
        breakpoint()
    cuda.syncthreads()
    if t == 6:
        buf[2] = 77
    cuda.syncthreads()
    out[t] = buf[t]

out = np.zeros(8, np.int32)
with cuda.use_backend("sim"):
    fill[1, 8](out)
print("out =", out.tolist())
'''


def test_a_watch_typed_at_the_prompt_names_the_thread_that_writes_the_shared_element(tmp_path):
    prog = tmp_path / "shared_writer.py"
    out = run_program(prog, SHARED_WRITER, "p buf\nwatch buf[2]\nc\np t, buf[2]\nwhere\nc\n")
    assert "array([0, 1, 2, 3, 4, 5, 6, 7], dtype=int32)" in out
    assert "Watchpoint 1: buf[2] (now 2)" in out
    assert "> watchpoint 1: buf[2] changed from 2 to 77" in out
    assert "> watchpoint in kernel 'fill' at %s:15 (fill)" % prog in out
    assert "thread (6, 0, 0), block (0, 0, 0)" in out
    assert "(6, 77)" in out
    assert "   kernel fill, thread (6, 0, 0), block (0, 0, 0)" in out
    assert "out = [0, 1, 77, 3, 4, 5, 6, 7]" in out


CALLS = '''
import numpy as np
from cutwin import cuda

@cuda.jit(device=True)
def cube(x):
    y = x * x
    return y * x

@cuda.jit
def cubes(out):
    i = cuda.grid(1)
    if i == 2:
        breakpoint()
    out[i] = cube(i + 1)

out = np.zeros(4, np.int64)
with cuda.use_backend("sim"):
    cubes[1, 4](out)
print("out =", out.tolist())
'''


def test_the_prompt_walks_the_call_stack_and_finish_shows_the_result(tmp_path):
    prog = tmp_path / "calls.py"
    # a breakpoint in cube that threads 1..3 meet and only thread 2 may stop at
    out = run_program(prog, CALLS, "break 7 if x > 1 thread=(2,0,0)\nc\nwhere\np x, y\nup\np i\ndown\n"
                      "finish\np __return__\ndelete\nbreak\nc\n")
    assert "Breakpoint 1 at calls.py:7" in out
    assert "> breakpoint 1 at calls.py:7" in out
    assert "> breakpoint in kernel 'cubes' at %s:7 (cube)" % prog in out
    assert "   %s:15 in cubes\n-> %s:7 in cube\n" % (prog, prog) in out  # the kernel first
    assert "(3, 0)" in out  # stopped before line 7 runs: y is not yet set
    assert "> %s:15 (cubes)" % prog in out  # up
    assert "(cutwin) 2\n" in out  # p i in the kernel's frame
    assert "> %s:7 (cube)" % prog in out  # down
    assert "--Return--" in out  # finish stops at cube's return
    assert "(cutwin) 27\n" in out  # its result
    assert out.count("> breakpoint 1 at") == 1  # the filter let no other thread stop there
    assert "out = [1, 8, 27, 64]" in out
