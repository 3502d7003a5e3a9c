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

import numpy as np
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
# Where the threads of the block that stopped were (4 blocks of 64 threads, each thread in
# the loop): a thread loop runs them one after another; fibers take turns.
WHERE = {"endless": "0 finished, 1 stopped in the loop at line %d (thread (0,0,0)), 63 not started"
                    % LINES["endless"],
         # (the barrier above the loop opened; the other threads resume from it in turn)
         "endless_in_fibers": "1 stopped in the loop at line %d (thread (0,0,0)), 63 at the barrier at line %d"
                              % (LINES["endless_in_fibers"], LINES["endless_in_fibers"] - 2),
         "waits_for_nobody": "spinning in the loop at line %d" % LINES["waits_for_nobody"]}


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
    assert lines[2].startswith("  where: ") and WHERE[kernel] in lines[2], lines
    assert lines[3] == "next 7"


@pytest.mark.parametrize("kernel", ["endless", "endless_in_fibers"])
def test_the_watchdog_ends_a_launch_past_its_time(tmp_path, kernel):
    lines = run(tmp_path, kernel, "wait", CUTWIN_SIM_TIMEOUT="0.3")
    assert lines[0] == "KernelError KernelTimeoutError True %s %d" % (kernel, LINES[kernel]), lines
    assert "the watchdog stopped the launch after 0.3 s (its time limit: the launch's timeout, or " \
        "CUTWIN_SIM_TIMEOUT) in the loop at line %d" % LINES[kernel] in lines[1]
    assert lines[2].startswith("  where: ") and WHERE[kernel] in lines[2], lines
    assert lines[3] == "next 7"


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


def test_a_launch_sets_its_own_watchdog_and_learns_where_its_threads_were():
    """`kernel.configure(..., timeout=S)`: this launch's watchdog, whatever CUTWIN_SIM_TIMEOUT
    says; the error names the blocks finished and where each thread of the stopped block was."""
    from cutwin import cuda
    from cutwin.errors import KernelTimeoutError

    @cuda.jit
    def one_thread_never_arrives(out):
        if cuda.threadIdx.x == 3:
            x = 1
            while x > 0:
                x = (x * 5 + 1) % 999979 + 1
            out[0] = x
        cuda.syncthreads()
        out[1] = 1

    out = np.zeros(2, np.int64)
    with pytest.raises(KernelTimeoutError) as e:
        one_thread_never_arrives.configure(1, 32, timeout=0.2)(out)
    message = str(e.value)
    line = one_thread_never_arrives.py_func.__code__.co_firstlineno + 4  # the while
    barrier = line + 3
    assert "after 0.2 s" in message and "in the loop at line %d" % line in message, message
    assert message.splitlines()[-1] == (
        "  where: 0 of 1 blocks had finished; threads of block (0,0,0): 3 at the barrier at line %d, "
        "1 stopped in the loop at line %d (thread (3,0,0)), 28 ready to run" % (barrier, line))
    # the option is this configuration's: an ordinary launch has no limit, and runs
    @cuda.jit
    def fine(out):
        out[0] = 7
    fine[1, 1](out)
    assert out[0] == 7
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        fine.configure(1, 1, timeout=0)
    import pickle
    assert pickle.loads(pickle.dumps(fine.configure(2, 32, timeout=2.5))).timeout == 2.5


LONG_KERNEL = textwrap.dedent("""
    import os, signal, sys, threading, time
    import numpy as np
    from cutwin import cuda

    @cuda.jit
    def seconds_of_work(out, rate, limit):
        v = 1.0
        n = 0
        while v < limit:  # (a float loop: no trip count the simulator could bound)
            v = v * rate + 1e-300
            n += 1
        out[0] = n

    @cuda.jit
    def fine(out):
        out[1] = 7

    out = cuda.to_device(np.zeros(2, np.int64))
    seconds_of_work.compile("void(int64[::1], float64, float64)")
    sent = []
    def press():
        time.sleep(0.3)
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=press, daemon=True).start()
    try:
        seconds_of_work[1, 1](out, 1.0000001, 1e20)  # 4.6e8 dependent steps: seconds on either backend
        cuda.synchronize()  # (the GPU's launch returned at once: the wait is here)
        print("ended by itself")
    except KeyboardInterrupt as e:
        print("KeyboardInterrupt", type(e).__name__, "%.1f" % ((time.perf_counter() - sent[0]) * 1e3))
    cuda.synchronize()  # waits for what the GPU still runs (the simulator's launch ended)
    fine[1, 1](out)
    print("next", out.copy_to_host()[1])
""")


def test_ctrl_c_ends_the_wait_for_a_long_kernel(tmp_path, cutwin_backend):
    """On the simulator Ctrl-C stops the launch; on a GPU it ends the synchronisation that
    waits for the kernel (which runs on there, and the next synchronisation waits for it)."""
    script = tmp_path / "long_kernel.py"
    script.write_text(LONG_KERNEL)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, CUTWIN_BACKEND=cutwin_backend))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    words = lines[0].split()
    assert words[:2] == ["KeyboardInterrupt", "KernelInterrupted"], lines
    assert float(words[2]) < 1000, lines  # ms from the signal to the exception (target: 100)
    assert lines[1] == "next 7", lines
