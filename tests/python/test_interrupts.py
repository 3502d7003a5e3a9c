"""Ctrl-C and the watchdog stop a simulator launch that would not end by itself: an
endless loop in a thread loop or in fibers, a thread spinning on a flag nobody sets. The
launch raises KeyboardInterrupt (cutwin.errors.KernelInterrupted, naming kernel, loop line,
thread and block) or, past CUTWIN_SIM_TIMEOUT seconds, a KernelError that is a TimeoutError;
the process keeps working and the next launch runs. Each case runs in a process of its own,
which sends itself SIGINT once the launch is under way."""
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    import numpy as np
    from cutwin import cuda
    from cutwin.errors import KernelError

    @cuda.jit
    def endless(out):
        x = 1
        while x > 0:
            x = (x * 3 + 1) % 1000003 + 1
        out[0] = x

    @cuda.jit
    def endless_in_fibers(out):
        cuda.syncthreads()
        x = 1
        while x > 0:
            x = (x * 7 + 3) % 999983 + 1
        out[0] = x

    @cuda.jit
    def waits_for_nobody(flag, out):
        while cuda.atomic.add(flag, 0, 0) == 0:
            pass
        out[0] = 1

    @cuda.jit
    def fine(out):
        out[0] = 7

    kernels = {"endless": (endless, lambda: (np.zeros(1, np.int64),), "void(int64[::1])"),
               "endless_in_fibers": (endless_in_fibers, lambda: (np.zeros(1, np.int64),), "void(int64[::1])"),
               "waits_for_nobody": (waits_for_nobody, lambda: (np.zeros(1, np.int32), np.zeros(1, np.int32)),
                                    "void(int32[::1], int32[::1])")}
    kernel, args, signature = kernels[sys.argv[1]]
    kernel.compile(signature)  # (compiled before the clock starts)
    sent = []
    if sys.argv[2] == "ctrl-c":
        def press():
            time.sleep(0.5)
            sent.append(time.perf_counter())
            os.kill(os.getpid(), signal.SIGINT)
        threading.Thread(target=press, daemon=True).start()
    try:
        kernel[4, 64](*args())
        print("ended by itself")
    except KeyboardInterrupt as e:
        print("KeyboardInterrupt", type(e).__name__, e.kernel, e.line, e.thread, e.block,
              "%.1f" % ((time.perf_counter() - sent[0]) * 1e3))
        print(e)
    except KernelError as e:
        print("KernelError", type(e).__name__, isinstance(e, TimeoutError), e.kernel, e.line)
        print(e)
    out = np.zeros(1, np.int64)
    fine[1, 1](out)  # the process keeps working
    print("next", out[0])
""")

def _loop_line(kernel):
    """The line of the `while` in `kernel` (the script's own numbering)."""
    lines = SCRIPT.splitlines()
    start = next(i for i, text in enumerate(lines) if text.startswith("def %s(" % kernel))
    return next(i for i in range(start, len(lines)) if lines[i].lstrip().startswith("while")) + 1


LINES = {k: _loop_line(k) for k in ("endless", "endless_in_fibers", "waits_for_nobody")}


def run(tmp_path, kernel, how, **env):
    script = tmp_path / "interrupts.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, CUTWIN_BACKEND="sim", **env)
    r = subprocess.run([sys.executable, str(script), kernel, how], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


@pytest.mark.parametrize("kernel", sorted(LINES))
def test_ctrl_c_stops_the_launch_with_keyboard_interrupt(tmp_path, kernel):
    lines = run(tmp_path, kernel, "ctrl-c")
    words = lines[0].split()
    assert words[:4] == ["KeyboardInterrupt", "KernelInterrupted", kernel, str(LINES[kernel])], lines
    assert "interrupted (Ctrl-C) in the loop at line %d" % LINES[kernel] in lines[1]
    assert "interrupts.py:%d in %s, thread (" % (LINES[kernel], kernel) in lines[1]
    # (how soon, in ms after the signal: docs/simulator.md records it; here only that it ended)
    assert float(words[-1]) < 10_000
    assert lines[2] == "next 7"


@pytest.mark.parametrize("kernel", ["endless", "endless_in_fibers"])
def test_the_watchdog_ends_a_launch_past_its_time(tmp_path, kernel):
    lines = run(tmp_path, kernel, "wait", CUTWIN_SIM_TIMEOUT="0.3")
    assert lines[0] == "KernelError KernelTimeoutError True %s %d" % (kernel, LINES[kernel]), lines
    assert "the watchdog stopped the launch after 0.3 s (CUTWIN_SIM_TIMEOUT) in the loop at line %d" % \
        LINES[kernel] in lines[1]
    assert lines[2] == "next 7"


BETWEEN_LAUNCHES = textwrap.dedent("""
    import os, signal, threading, time
    import numpy as np
    from cutwin import cuda

    @cuda.jit
    def k(a):
        a[0] += 1

    a = np.zeros(1)
    k[1, 1](a)  # (the simulator's handler is in place from the first launch on)
    threading.Thread(target=lambda: (time.sleep(0.3), os.kill(os.getpid(), signal.SIGINT))).start()
    try:
        time.sleep(5)
        print("slept on")
    except KeyboardInterrupt as e:
        print(type(e).__name__)
    k[1, 1](a)
    print(a[0])
""")


def test_ctrl_c_between_launches_is_pythons_own(tmp_path):
    script = tmp_path / "between.py"
    script.write_text(BETWEEN_LAUNCHES)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, CUTWIN_BACKEND="sim"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["KeyboardInterrupt", "2.0"]
