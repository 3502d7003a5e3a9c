"""Breakpoints in kernels, on the simulator.

In a kernel compiled for debugging (``@cuda.jit(debug=True)``, or every kernel with
``CUTWIN_DEBUG=1``), ``breakpoint()``, ``pdb.set_trace()`` and ``cuda.breakpoint(cond)``
stop the simulated thread that reaches them. The launch pauses there and a prompt opens
(``Prompt``), or the function given to ``on_breakpoint`` runs, with a ``Stop``: the
kernel, the source line, the thread and block, and the thread's variables, arrays as
NumPy arrays viewing the simulated memory (writable). The thread goes on when the prompt
continues or the function returns; quitting ends the launch with a LaunchError. Before a
debug kernel raises an error (an index out of bounds, an assert, a raise), the thread stops
the same way (post-mortem, `stop.reason` saying which error), its variables intact; the
prompt opens there only when standard input is a terminal (else the error is raised as it
would be without debugging).

    from cutwin import debug
    with debug.on_breakpoint(lambda stop: print(stop.line, stop.variables["i"])):
        kernel[4, 32](a)
"""
import cmd
import contextlib
import ctypes
import linecache
import os
import pprint
import sys
import types

import numpy as np

from . import _cutwin

__all__ = ["Stop", "Prompt", "on_breakpoint", "set_handler", "Quit", "break_at", "clear_breaks"]


class Quit(Exception):
    """Raised by a handler to end the launch (as the prompt's `q` does)."""


def _plain_numbers():
    """NumPy scalars shown as numbers (`9`, not `np.int64(9)`), as NumPy 1 showed them."""
    if int(np.__version__.split(".")[0]) < 2:
        return contextlib.nullcontext()  # NumPy 1 shows them so
    return np.printoptions(legacy="1.25")


def _tid(t):
    """A thread index given as (x,), (x, y) or (x, y, z), as (x, y, z)."""
    t = tuple(int(v) for v in t)
    return t + (0,) * (3 - len(t))


def _dim3(t):
    return types.SimpleNamespace(x=t[0], y=t[1], z=t[2])


def _scalar_view(dtype, address):
    dt = np.dtype(dtype)
    buf = (ctypes.c_char * dt.itemsize).from_address(address)
    return np.frombuffer(buf, dtype=dt)  # one element, writable: the variable itself


def _array_view(dtype, ndim, address):
    """The array whose descriptor (data address, extents, byte strides) is at `address`."""
    dt = np.dtype(dtype)
    data = ctypes.c_uint64.from_address(address).value
    shape = tuple((ctypes.c_int64 * ndim).from_address(address + 8))
    strides = tuple((ctypes.c_int64 * ndim).from_address(address + 8 + 8 * ndim))
    if any(s == 0 for s in shape) or data == 0:
        return np.empty(shape, dtype=dt)
    low = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
    high = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + dt.itemsize
    buf = (ctypes.c_char * (high - low)).from_address(data + low)
    return np.ndarray(shape, dtype=dt, buffer=buf, offset=-low, strides=strides)


class _Frame:
    """A thread's variables from (name, dtype, ndim, address) each: a one-element view of a
    number (`scalars` names them), or the array itself."""

    def __init__(self, variables):
        self.views, self.scalars = {}, set()
        for name, dtype, ndim, address in variables:
            if ndim:
                self.views[name] = _array_view(dtype, ndim, address)
            else:
                self.views[name] = _scalar_view(dtype, address)
                self.scalars.add(name)

    def values(self):
        """name -> value: numbers as NumPy scalars, arrays as views."""
        return {n: (v[0] if n in self.scalars else v) for n, v in self.views.items()}


class ThreadState:
    """One thread of the stopped thread's block: threadIdx, state ("running", "barrier",
    "grid barrier", "warp", "breakpoint", "exited"), the line it waits at (0 if none), and
    for a thread waiting at a barrier of a debug kernel its function and variables (None
    where they are not known)."""

    def __init__(self, tid, state, line, function, variables):
        self.threadIdx = tuple(tid)
        self.state = state
        self.line = line
        self.function = function or None
        self._frame = _Frame(variables) if function else None  # None: not known where it is

    @property
    def variables(self):
        return self._frame.values() if self._frame is not None else None

    def __repr__(self):
        return "ThreadState(%s, %r, line %d)" % (self.threadIdx, self.state, self.line)


class Stop:
    """A simulated thread stopped at a breakpoint.

    kernel, function, file, line: where it stopped. reason: None at a breakpoint; at a
    post-mortem stop (a debug kernel about to raise an error), the error. threadIdx, blockIdx, blockDim,
    gridDim: (x, y, z) tuples. variables: the function's variables by name, numbers as
    NumPy scalars and arrays as writable NumPy views of the simulated memory; `set(name,
    value)` changes a number. threads: a ThreadState for every thread of the block
    (`thread(tid)` finds one). Valid only while the handler runs.
    """

    def __init__(self, d):
        self.kernel = d["kernel"]
        self.function = d["function"]
        self.file = d["file"]
        self.line = d["line"]
        self.column = d["column"]
        self.reason = d["reason"] or None  # post-mortem: the error about to be raised
        self.threadIdx = tuple(d["threadIdx"])
        self.blockIdx = tuple(d["blockIdx"])
        self.blockDim = tuple(d["blockDim"])
        self.gridDim = tuple(d["gridDim"])
        self._own = _Frame(d["variables"])
        self.threads = [ThreadState(t, state, line, function, variables)
                        for t, state, line, function, variables in d["threads"]]
        for t in self.threads:  # the stopped thread: its variables are the stop's
            if t.threadIdx == self.threadIdx:
                t.function, t._frame = self.function, self._own

    @property
    def variables(self):
        return self._own.values()

    def set(self, name, value):
        """Stores `value` into the thread's variable `name` (a number)."""
        if name not in self._own.scalars:
            raise TypeError("%s is an array: assign to its elements (%s[i] = value)" % (name, name))
        self._own.views[name][0] = value

    def cuda_namespace(self, thread=None):
        """What `cuda.threadIdx.x` and friends are for the stopped thread (or `thread`, a
        threadIdx of its block), for evaluating expressions."""
        t = _tid(thread) if thread is not None else self.threadIdx
        d, b = self.blockDim, self.blockIdx

        def grid(ndim):
            idx = [t[k] + b[k] * d[k] for k in range(3)]
            return idx[0] if ndim == 1 else tuple(idx[:ndim])

        return types.SimpleNamespace(threadIdx=_dim3(t), blockIdx=_dim3(b), blockDim=_dim3(d),
                                     gridDim=_dim3(self.gridDim), grid=grid,
                                     laneid=(t[0] + d[0] * (t[1] + d[1] * t[2])) % 32, warpsize=32)

    def thread(self, tid):
        """The ThreadState of threadIdx `tid` in this block."""
        tid = _tid(tid)
        for t in self.threads:
            if t.threadIdx == tid:
                return t
        raise KeyError("no thread %s in a block of %s" % (tid, self.blockDim))

    def _frame_of(self, thread):
        """The variables of the stopped thread, or of `thread` waiting at a barrier."""
        if thread is None or _tid(thread) == self.threadIdx:
            return self._own
        t = self.thread(thread)
        if t._frame is None:
            raise KeyError("thread %s is %s: its variables are not known there" % (t.threadIdx, t.state))
        return t._frame

    def namespace(self, thread=None):
        """Names an expression can use: the variables of the stopped thread (or of `thread`,
        one waiting at a barrier), `cuda`, `np`."""
        ns = {"np": np, "numpy": np, "cuda": self.cuda_namespace(thread)}
        ns.update(self._frame_of(thread).values())
        return ns

    def eval(self, expression, thread=None):
        """Evaluates a Python expression over the thread's variables."""
        return eval(expression, {"__builtins__": __builtins__}, self.namespace(thread))

    def exec(self, statement, thread=None):
        """Runs a Python statement (`a[3] = 0`); numbers assigned by name are stored back."""
        frame = self._frame_of(thread)
        ns = self.namespace(thread)
        before = dict(ns)
        exec(statement, {"__builtins__": __builtins__}, ns)
        for name in frame.scalars:
            if ns.get(name) is not before.get(name):
                frame.views[name][0] = ns[name]

    def where(self):
        return "%s:%d in %s (kernel %s), thread %s, block %s" % (self.file, self.line, self.function, self.kernel,
                                                                 self.threadIdx, self.blockIdx)

    def source(self, context=5):
        """The source lines around the stop, the current one marked."""
        lines = []
        for n in range(max(1, self.line - context), self.line + context + 1):
            text = linecache.getline(self.file, n)
            if not text:
                continue
            lines.append("%4d%s %s" % (n, " ->" if n == self.line else "   ", text.rstrip("\n")))
        return "\n".join(lines)

    def thread_table(self, focus=None):
        rows = ["  thread        state          line"]
        focus = _tid(focus) if focus is not None else self.threadIdx
        for t in self.threads:
            mark = "*" if t.threadIdx == focus else " "
            rows.append(("%s %-13s %-14s %s" % (mark, "(%d, %d, %d)" % t.threadIdx, t.state, t.line or "")).rstrip())
        return "\n".join(rows)


class Prompt(cmd.Cmd):
    """The interactive prompt at a stop (pdb's commands where they apply):

    p EXPR / pp EXPR   print an expression over the thread's variables, `cuda`, `np`
    !STATEMENT         run a statement (`!a[3] = 0`, `!x = 2`)
    l / list           the source around the stop
    w / where          kernel, file:line, thread and block
    threads            every thread of the block and where it waits
    thread TX [TY TZ]  show another thread (one waiting at a barrier); `thread`: back
    s / step           go on to the thread's next statement (into calls)
    n / next           go on to its next statement in this function
    break [FILE:]LINE  every thread of a debug kernel stops at that line; break: list
    clear              remove the line breakpoints
    c / continue       let the thread go on (after an error: the error is raised)
    q / quit           end the launch (LaunchError)
    """
    prompt = "(cutwin) "

    def __init__(self, stop, stdin=None, stdout=None):
        super().__init__(stdin=stdin, stdout=stdout)
        if stdin is not None:
            self.use_rawinput = False
        self.stop = stop
        self.focus = None  # another thread of the block, waiting at a barrier, or None
        self.result = True

    def preloop(self):
        s = self.stop
        if s.reason:
            self.stdout.write("> post-mortem: %s\n" % s.reason)
        self.stdout.write("> %s in kernel '%s' at %s:%d (%s)\n" % ("error" if s.reason else "breakpoint", s.kernel,
                                                                   s.file, s.line, s.function))
        self.stdout.write("  thread %s, block %s\n" % (s.threadIdx, s.blockIdx))
        self.stdout.write(s.source(2) + "\n")

    def _show(self, arg, pretty):
        try:
            v = self.stop.eval(arg, self.focus)
        except Exception as e:  # an error in the expression, as pdb reports it
            self.stdout.write("*** %s: %s\n" % (type(e).__name__, e))
            return
        with _plain_numbers():
            self.stdout.write((pprint.pformat(v) if pretty else repr(v)) + "\n")

    def do_p(self, arg):
        """p EXPR: the value of EXPR in the stopped thread."""
        self._show(arg, False)

    def do_pp(self, arg):
        """pp EXPR: the value of EXPR, pretty-printed."""
        self._show(arg, True)

    def default(self, line):
        if line.startswith("!"):
            try:
                self.stop.exec(line[1:], self.focus)
            except Exception as e:
                self.stdout.write("*** %s: %s\n" % (type(e).__name__, e))
            return
        self.stdout.write("*** unknown command %r (help lists them)\n" % line.split()[0])

    def do_list(self, arg):
        """list: the source around the stop."""
        self.stdout.write(self.stop.source() + "\n")

    do_l = do_list

    def do_where(self, arg):
        """where: kernel, file:line, thread and block."""
        self.stdout.write(self.stop.where() + "\n")

    do_w = do_where

    def do_threads(self, arg):
        """threads: every thread of the block, its state and the line it waits at."""
        self.stdout.write(self.stop.thread_table(self.focus) + "\n")

    def do_thread(self, arg):
        """thread TX [TY TZ]: show another thread of the block (one waiting at a barrier);
        thread alone: back to the stopped thread."""
        if not arg.strip():
            self.focus = None
            self.stdout.write("thread %s, stopped at line %d\n" % (self.stop.threadIdx, self.stop.line))
            return
        try:
            tid = tuple(int(v) for v in arg.replace(",", " ").split())
            self.stop._frame_of(tid)
            t = self.stop.thread(tid)
        except (KeyError, ValueError) as e:
            self.stdout.write("*** %s\n" % (e.args[0] if e.args else e))
            return
        self.focus = None if t.threadIdx == self.stop.threadIdx else t.threadIdx
        if self.focus is None:
            self.stdout.write("thread %s, stopped at line %d\n" % (t.threadIdx, self.stop.line))
        else:
            self.stdout.write("thread %s, waiting at the %s of line %d in %s\n" % (t.threadIdx, t.state, t.line,
                                                                                t.function))

    def do_continue(self, arg):
        """continue: the thread goes on."""
        return True

    do_c = do_cont = do_continue

    def do_step(self, arg):
        """step: the thread goes on and stops at its next statement (into device functions)."""
        self.result = "step"
        return True

    do_s = do_step

    def do_next(self, arg):
        """next: the thread goes on and stops at its next statement in this function."""
        self.result = "next"
        return True

    do_n = do_next

    def do_break(self, arg):
        """break [FILE:]LINE: every thread of a debug kernel stops at that line (FILE: this
        one by default); break alone lists them."""
        if not arg.strip():
            for f, n in sorted(_line_breaks):
                self.stdout.write("%s:%d\n" % (f, n))
            return
        where, _, line = arg.strip().rpartition(":")
        try:
            break_at(where or self.stop.file, int(line))
        except ValueError:
            self.stdout.write("*** break takes [FILE:]LINE, not %r\n" % arg)

    do_b = do_break

    def do_clear(self, arg):
        """clear: remove every line breakpoint."""
        clear_breaks()

    def do_quit(self, arg):
        """quit: end the launch (LaunchError); the process keeps working."""
        self.result = False
        return True

    do_q = do_exit = do_quit

    def do_EOF(self, arg):
        self.stdout.write("\n")
        return self.do_quit(arg)

    def emptyline(self):
        pass


def _interactive():
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, OSError, ValueError):  # replaced or closed (pytest's capture)
        return False


def _prompt(stop):
    if stop.reason and not _interactive():
        return True  # post-mortem without a terminal: the error is raised as without debugging
    p = Prompt(stop)
    p.cmdloop()
    return p.result


_handler = _prompt
_line_breaks = set()


def break_at(file, line):
    """Every thread of a debug kernel that reaches a statement of `file`:`line` stops there
    (the handler or the prompt runs), until clear_breaks()."""
    file = os.path.abspath(file) if os.path.exists(file) else file
    _line_breaks.add((file, int(line)))
    _cutwin.set_line_breakpoint(file, int(line), True)


def clear_breaks():
    """Removes every line breakpoint."""
    _line_breaks.clear()
    _cutwin.clear_line_breakpoints()


def set_handler(fn):
    """Calls fn(stop) at each breakpoint instead of the prompt (None: the prompt again).
    fn returns None or True to go on, False (or raises Quit) to end the launch, "step" or
    "next" to go on and stop at the thread's next statement (in the same function for
    "next")."""
    global _handler
    _handler = fn if fn is not None else _prompt


@contextlib.contextmanager
def on_breakpoint(fn):
    """`with on_breakpoint(fn):` calls fn(stop) at each breakpoint inside the block."""
    global _handler
    previous = _handler
    set_handler(fn)
    try:
        yield
    finally:
        _handler = previous


def _dispatch(d):
    stop = Stop(d)
    try:
        result = _handler(stop)
    except Quit:
        return False
    except BaseException as e:  # the handler failed: end the launch, saying why
        sys.stderr.write("cutwin.debug: the breakpoint handler raised %s: %s\n" % (type(e).__name__, e))
        return False
    if result in ("step", "next"):
        return result
    return result is None or bool(result)


_cutwin.set_breakpoint_handler(_dispatch)
