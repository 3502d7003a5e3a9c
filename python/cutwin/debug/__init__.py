"""The debugger for kernels, on the simulator.

In a kernel compiled for debugging (``@cuda.jit(debug=True)``, or every kernel with
``CUTWIN_DEBUG=1``), ``breakpoint()``, ``pdb.set_trace()`` and ``cuda.breakpoint(cond)``
stop the simulated thread that reaches them; so do line breakpoints (``break_at``), steps
(``step``, ``next``, ``until``, ``finish``), watchpoints (``watch``: a store that changes an
element) and errors (post-mortem: an index out of bounds, an assert, a raise, barrier or
warp divergence, an illegal address). The launch pauses there and a prompt opens
(``Prompt``), or the function given to ``on_breakpoint`` runs, with a ``Stop``: the kernel,
the source line, the thread and block, its call stack (``frames``: each function's
variables, arrays as NumPy arrays viewing the simulated memory, writable) and every thread
of its block. The thread goes on as the prompt or the function says; quitting ends the
launch with a LaunchError and the process keeps working. The prompt opens post-mortem only
where someone can answer it (a terminal, Jupyter); elsewhere the error is raised as it
would be without debugging.

    from cutwin import debug
    with debug.on_breakpoint(lambda stop: print(stop.line, stop.variables["i"])):
        kernel[4, 32](a)
"""
import contextlib
import sys

from .. import _cutwin
from . import _state
from .points import Breakpoint, Watchpoint, break_at, breakpoints, clear_breaks, delete, watch
from .prompt import Prompt
from .stops import Frame, Quit, Stop, ThreadState

__all__ = ["Stop", "Frame", "ThreadState", "Prompt", "on_breakpoint", "set_handler", "Quit", "break_at",
           "clear_breaks", "watch", "delete", "breakpoints", "Breakpoint", "Watchpoint"]


def _in_jupyter():
    shell = sys.modules.get("IPython")
    try:
        ip = shell.get_ipython() if shell is not None else None
    except Exception:
        return False
    return ip is not None and getattr(ip, "kernel", None) is not None


def _interactive():
    """Whether someone can answer a prompt: a terminal on standard input, or Jupyter."""
    try:
        if sys.stdin is not None and sys.stdin.isatty():
            return True
    except (AttributeError, OSError, ValueError):  # replaced or closed (pytest's capture)
        pass
    return _in_jupyter()


def _prompt(stop):
    if stop.reason and not _interactive():
        return True  # post-mortem without anyone to answer: the error is raised as without debugging
    p = Prompt(stop)
    p.cmdloop()
    return p.result


_handler = _prompt


def set_handler(fn):
    """Calls fn(stop) at each stop instead of the prompt (None: the prompt again). fn
    returns None or True to go on, False (or raises Quit) to end the launch, "step", "next"
    or "finish" to go on and stop the thread again at its next statement, its next one in
    this function, or where this function returns; ("until", LINE) to stop at a statement
    of this function at LINE or later."""
    global _handler
    _handler = fn if fn is not None else _prompt


@contextlib.contextmanager
def on_breakpoint(fn):
    """`with on_breakpoint(fn):` calls fn(stop) at each stop inside the block."""
    global _handler
    previous = _handler
    set_handler(fn)
    try:
        yield
    finally:
        _handler = previous


def _condition_holds(stop, b):
    if not b.condition:
        return True
    try:
        return bool(stop.eval(b.condition))
    except Exception as e:  # as gdb does: a condition that fails to evaluate stops
        sys.stderr.write("cutwin.debug: breakpoint %d's condition %r raised %s: %s\n" % (
            b.number, b.condition, type(e).__name__, e))
        return True


def _dispatch(d):
    stop = Stop(d)
    if stop.cause == "break":
        stop.breakpoints = [b for b in stop.breakpoints if _condition_holds(stop, b)]
        if not stop.breakpoints:
            return True  # no condition holds: the thread goes on unseen
        for b in stop.breakpoints:
            b.hits += 1
    if stop.watchpoint is not None:
        stop.watchpoint.hits += 1
    _state.current = stop
    try:
        result = _handler(stop)
    except Quit:
        return False
    except BaseException as e:  # the handler failed: end the launch, saying why
        sys.stderr.write("cutwin.debug: the breakpoint handler raised %s: %s\n" % (type(e).__name__, e))
        return False
    finally:
        _state.current = None
    if result in ("step", "next", "finish") or (isinstance(result, tuple) and result[:1] == ("until",)):
        return result
    return result is None or bool(result)


_cutwin.set_breakpoint_handler(_dispatch)
