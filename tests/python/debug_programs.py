"""Runs a Python program that launches debug kernels, as a user would: its standard input
a pipe of prompt commands (run_program) or a pseudo-terminal typed at (terminal_session).
Shared by the debugger's tests."""
import os
import pty
import select
import subprocess
import sys
import time


def run_program(path, source, commands):
    """Runs `source` (saved at `path`) with CUTWIN_DEBUG=1, `commands` as its standard input;
    returns what it printed."""
    path.write_text(source)
    env = dict(os.environ, CUTWIN_DEBUG="1")
    r = subprocess.run([sys.executable, str(path)], input=commands, capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def terminal_session(path, source, steps, env_debug=True):
    """Runs `source` (saved at `path`) on a pseudo-terminal, as a user at a shell would:
    for each (marker, keys) of `steps`, waits until `marker` appears in what the program
    writes from then on, then types `keys`. Returns everything it wrote."""
    path.write_text(source)
    master, slave = pty.openpty()
    env = dict(os.environ, TERM="dumb")
    if env_debug:
        env["CUTWIN_DEBUG"] = "1"
    proc = subprocess.Popen([sys.executable, str(path)], stdin=slave, stdout=slave, stderr=slave, env=env,
                            close_fds=True)
    os.close(slave)
    seen = b""

    def read_until(marker, timeout=60):
        nonlocal seen
        start = len(seen)
        deadline = time.monotonic() + timeout
        while marker not in seen[start:]:
            left = deadline - time.monotonic()
            assert left > 0, "no %r in %r" % (marker, seen[-400:])
            if select.select([master], [], [], left)[0]:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk

    try:
        for marker, keys in steps:
            read_until(marker)
            if keys:
                os.write(master, keys)
        proc.wait(timeout=60)
    finally:
        proc.kill()
        os.close(master)
    return seen.decode(errors="replace")
