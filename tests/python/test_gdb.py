"""gdb on a Python program whose kernels run on the simulator, with cutwin's gdb extension
(python -m cutwin.gdb's command line, in batch mode): arguments and arrays (global, shared)
print with their shape and elements, `a[i]` and `$at(a, i, j)` index them, `cuda.threadIdx`
is known, `cutwin threads` lists the simulated threads and `cutwin thread` selects one
waiting at a barrier; `next` stays in the stopped thread, and a step past its last line
says that the thread ended."""
import os
import re
import shutil
import subprocess
import textwrap

import pytest

from cutwin import gdb as cutwin_gdb

pytestmark = pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed (ci/setup.sh installs it)")

PROGRAM = textwrap.dedent('''\
    import numpy as np
    from cutwin import cuda

    @cuda.jit(debug=True)
    def blur(a, out, grid):
        buf = cuda.shared.array(8, np.float32)
        t = cuda.threadIdx.x
        buf[t] = a[t] * 2
        cuda.syncthreads()
        left = buf[(t + 7) % 8]
        out[t] = left + t
        grid[t % 2, t // 2] = t

    a = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    grid = np.zeros((2, 4), np.int64)
    blur[1, 8](a, out, grid)
    print("out[3] =", out[3])
''')


# gdb's own failure to call any function in the process it debugs (not cutwin's: a plain C
# program's getpid() fails alike there).
GDB_CANNOT_CALL = "Couldn't write extended state status"


def gdb_session(tmp_path, commands, program=PROGRAM, name="blur_program.py"):
    """Runs `program` under gdb with the extension, `commands` in batch mode; returns the
    output."""
    path = tmp_path / name
    path.write_text(program)
    argv = cutwin_gdb.command([str(path)])
    gdb, rest = argv[0], argv[1:]
    batch = [gdb, "-batch", "-nx"] + [x for c in commands for x in ("-ex", c)] + rest
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(cutwin_gdb.__file__)))
    env = dict(os.environ, CUTWIN_BACKEND="sim", CUTWIN_DEBUG="1",
               PYTHONPATH=os.pathsep.join([package_root] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    r = subprocess.run(batch, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    out = r.stdout + r.stderr
    if GDB_CANNOT_CALL in out:
        pytest.skip("this machine's gdb cannot call a function in the debugged process (gdb 13 on a CPU "
                    "whose extended register state it does not know, e.g. with AMX: '%s'); the extension's "
                    "thread table needs that call" % GDB_CANNOT_CALL)
    return out


def printed(out, n):
    """What gdb printed as $n."""
    m = re.search(r"^\$%d = (.*)$" % n, out, re.M)
    assert m, "no $%d in:\n%s" % (n, out[-3000:])
    return m.group(1)


def test_arguments_arrays_and_cuda_print_at_a_breakpoint(tmp_path):
    out = gdb_session(tmp_path, ["break blur_program.py:10", "run", "info args", "print a", "print a[3]",
                                 "print buf", "print $at(grid, 1, 2)", "print cuda.threadIdx",
                                 "print cuda.blockDim.x", "print a[8]", "kill"])
    assert re.search(r"^a = array\(float32, 1d, C\) shape \(8,\) = \{0, 1, 2, 3, 4, 5, 6, 7\}$", out, re.M), out
    assert re.search(r"^out = array\(float32, 1d, C\) shape \(8,\)", out, re.M)
    assert re.search(r"^grid = array\(int64, 2d, C\) shape \(2, 4\)", out, re.M)
    assert printed(out, 1).startswith("array(float32, 1d, C) shape (8,) = {0, 1, 2")
    assert printed(out, 2) == "3"
    # every thread filled buf before the barrier: thread 0 stops after it
    assert printed(out, 3) == "array(float32, 1d, C) in shared memory shape (8,) = {0, 2, 4, 6, 8, 10, 12, 14}"
    assert printed(out, 4) == "0"  # not written yet
    assert printed(out, 5) == "{x = 0, y = 0, z = 0}"
    assert printed(out, 6) == "8"
    assert "index 8 is out of bounds for an axis of size 8" in out


def test_the_threads_at_a_barrier_are_listed_and_one_can_be_selected(tmp_path):
    out = gdb_session(tmp_path, ["break blur_program.py:10", "run", "cutwin threads", "cutwin thread 5",
                                 "print t", "print cuda.threadIdx.x", "info locals", "cutwin thread", "print t",
                                 "kill"])
    table = out[out.index("cutwin threads") if "cutwin threads" in out else 0:]
    assert re.search(r"^\* \(0, 0, 0\)\s+\(0, 0, 0\)\s+running\s+blur at blur_program.py:10$", table, re.M), out
    for t in range(1, 8):
        assert re.search(r"^\+ \(%d, 0, 0\)\s+\(0, 0, 0\)\s+barrier\s+blur at blur_program.py:9$" % t, table, re.M)
    assert "[simulated thread (5, 0, 0) of block (0, 0, 0), barrier]" in out
    assert printed(out, 1) == "5" and printed(out, 2) == "5"
    assert re.search(r"^left = 0$", out, re.M)  # thread 5 has not run line 10 yet
    assert printed(out, 3) == "0"  # back to the thread that stopped


def test_next_stays_in_the_stopped_thread_and_its_end_is_reported(tmp_path):
    out = gdb_session(tmp_path, ["break blur_program.py:10", "run", "delete", "next", "print t", "print left",
                                 "next", "next", "next", "print 1", "kill"])
    assert re.search(r"^11\s+out\[t\] = left \+ t$", out, re.M), out
    assert printed(out, 1) == "0"  # the same thread after next, though a barrier lies behind it
    assert printed(out, 2) == "14"  # buf[7]
    assert "[cutwin: simulated thread (0, 0, 0) of block (0, 0, 0) returned from" in out


def test_a_barrier_can_be_stepped_over_in_one_thread(tmp_path):
    out = gdb_session(tmp_path, ["break blur_program.py:9 if t == 3", "run", "print t", "next", "print t",
                                 "print buf", "kill"])
    assert printed(out, 1) == "3"
    assert printed(out, 2) == "3"  # next over syncthreads(): the other threads ran meanwhile
    assert printed(out, 3).endswith("{0, 2, 4, 6, 8, 10, 12, 14}")


def test_the_launcher_prints_the_extension_path():
    r = subprocess.run([os.sys.executable, "-m", "cutwin.gdb", "--print-path"], capture_output=True, text=True,
                       check=True)
    path = r.stdout.strip()
    assert path.endswith("gdb_extension.py") and os.path.exists(path)
