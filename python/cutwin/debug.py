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
import cmd
import contextlib
import ctypes
import linecache
import os
import pprint
import re
import sys
import types

import numpy as np

from . import _cutwin

__all__ = ["Stop", "Frame", "ThreadState", "Prompt", "on_breakpoint", "set_handler", "Quit", "break_at",
           "clear_breaks", "watch", "delete", "breakpoints", "Breakpoint", "Watchpoint"]


class Quit(Exception):
    """Raised by a handler to end the launch (as the prompt's `q` does)."""


def _plain_numbers():
    """NumPy scalars shown as numbers (`9`, not `np.int64(9)`), as NumPy 1 showed them."""
    if int(np.__version__.split(".")[0]) < 2:
        return contextlib.nullcontext()  # NumPy 1 shows them so
    return np.printoptions(legacy="1.25")


def _tid(t):
    """A thread or block index given as x, (x,), (x, y) or (x, y, z), as (x, y, z)."""
    if isinstance(t, (int, np.integer)):
        t = (t,)
    t = tuple(int(v) for v in t)
    if not 1 <= len(t) <= 3:
        raise ValueError("an index has 1 to 3 components, not %r" % (t,))
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


class Frame:
    """One function of a stopped thread's call stack: `function`, `file`, `line` (for a
    caller, the line of its call) and `variables` (numbers as NumPy scalars, arrays as
    writable views of the simulated memory; `__return__` holds a device function's return
    value once it is set)."""

    def __init__(self, function, file, line, variables):
        self.function, self.file, self.line = function, file, line
        self.views, self.scalars, self.memory = {}, set(), {}
        for name, dtype, ndim, address, memory in variables:
            if ndim:
                self.views[name] = _array_view(dtype, ndim, address)
                self.memory[name] = memory
            else:
                self.views[name] = _scalar_view(dtype, address)
                self.scalars.add(name)

    @property
    def variables(self):
        return {n: (v[0] if n in self.scalars else v) for n, v in self.views.items()}

    def set(self, name, value):
        """Stores `value` into the number `name`; the thread goes on with it."""
        if name not in self.views:
            raise KeyError("%s has no variable %r" % (self.function, name))
        if name not in self.scalars:
            raise TypeError("%s is an array: assign to its elements (%s[i] = value)" % (name, name))
        self.views[name][0] = value

    def __repr__(self):
        return "Frame(%s, %s:%d)" % (self.function, os.path.basename(self.file), self.line)


class ThreadState:
    """One thread of a resident block: threadIdx, blockIdx, state ("running", "barrier",
    "grid barrier", "warp", "breakpoint", "exited", "faulted"), the line it waits at (0 if
    none) and its call stack `frames` (innermost first; empty where not known: a thread not
    started or exited). `function` and `variables` are those of its innermost frame (None
    where not known)."""

    def __init__(self, tid, bid, state, line, frames):
        self.threadIdx, self.blockIdx = tuple(tid), tuple(bid)
        self.state, self.line = state, line
        self.frames = [Frame(*f) for f in frames]

    @property
    def function(self):
        return self.frames[0].function if self.frames else None

    @property
    def variables(self):
        return self.frames[0].variables if self.frames else None

    def __repr__(self):
        return "ThreadState(%s, %s, %r, line %d)" % (self.threadIdx, self.blockIdx, self.state, self.line)


class Stop:
    """A simulated thread stopped for the debugger. Valid only while the handler runs.

    cause: "breakpoint", "step", "break" (a line breakpoint: `breakpoints` says which),
    "watch" (`watchpoint`, `old`, `new`: a store changed that element) or "error"
    (post-mortem: `reason` is the error about to be raised). kernel, function, file, line:
    where it stopped (`at_return`: after its function's last statement). threadIdx,
    blockIdx, blockDim, gridDim: (x, y, z) tuples. frames: its call stack, innermost first;
    variables: frames[0]'s (numbers as NumPy scalars, arrays as writable views of the
    simulated memory), `set(name, value)` changes a number. threads: a ThreadState for every
    thread of the block (`thread(tid)` finds one); all_threads: those of every resident
    block (a cooperative launch keeps all its blocks resident).
    """

    def __init__(self, d):
        self.cause = d["cause"]
        self.kernel = d["kernel"]
        self.column = d["column"]
        self.at_return = d["at_return"]
        self.reason = d["reason"] or None
        self.threadIdx = tuple(d["threadIdx"])
        self.blockIdx = tuple(d["blockIdx"])
        self.blockDim = tuple(d["blockDim"])
        self.gridDim = tuple(d["gridDim"])
        self.frames = [Frame(*f) for f in d["frames"]]
        self.function, self.file, self.line = self.frames[0].function, self.frames[0].file, self.frames[0].line
        self.all_threads = [ThreadState(*t) for t in d["threads"]]
        for t in self.all_threads:  # the stopped thread: its frames are the stop's
            if t.threadIdx == self.threadIdx and t.blockIdx == self.blockIdx:
                t.frames = self.frames
        self.threads = [t for t in self.all_threads if t.blockIdx == self.blockIdx]
        self.breakpoints = [b for b in _numbered.values() if isinstance(b, Breakpoint)
                            and b._id in d["line_breakpoints"]]
        self.watchpoint = self.old = self.new = None
        if d["watch"] is not None:
            wid, before, after = d["watch"]
            self.watchpoint = next((w for w in _numbered.values() if isinstance(w, Watchpoint) and w._id == wid),
                                   None)
            dt = self.watchpoint.dtype if self.watchpoint is not None else np.dtype(np.uint8)
            self.old = np.frombuffer(before, dtype=dt)[0]
            self.new = np.frombuffer(after, dtype=dt)[0]

    @property
    def variables(self):
        return self.frames[0].variables

    def set(self, name, value):
        """Stores `value` into the thread's variable `name` (a number)."""
        self.frames[0].set(name, value)

    def thread(self, tid, block=None):
        """The ThreadState of threadIdx `tid` in this block (or in resident block `block`)."""
        tid = _tid(tid)
        bid = _tid(block) if block is not None else self.blockIdx
        for t in self.all_threads:
            if t.threadIdx == tid and t.blockIdx == bid:
                return t
        if bid != self.blockIdx:
            raise KeyError("block %s is not resident: the blocks of a launch without grid synchronisation "
                           "run one after another" % (bid,))
        raise KeyError("no thread %s in a block of %s" % (tid, self.blockDim))

    def _frame_of(self, thread=None, block=None, frame=0):
        """Frame `frame` (0: innermost) of the stopped thread, or of another suspended one."""
        if thread is None and block is None:
            frames = self.frames
        else:
            t = self.thread(thread if thread is not None else self.threadIdx, block)
            frames = t.frames
            if not frames:
                raise KeyError("thread %s is %s: its variables are not known there" % (t.threadIdx, t.state))
        if not 0 <= frame < len(frames):
            raise IndexError("no frame %d: the thread is in %d function(s)" % (frame, len(frames)))
        return frames[frame]

    def cuda_namespace(self, thread=None, block=None):
        """What `cuda.threadIdx.x` and friends are for the stopped thread (or `thread` of
        `block`), for evaluating expressions."""
        t = _tid(thread) if thread is not None else self.threadIdx
        b = _tid(block) if block is not None else self.blockIdx
        d = self.blockDim

        def grid(ndim):
            idx = [t[k] + b[k] * d[k] for k in range(3)]
            return idx[0] if ndim == 1 else tuple(idx[:ndim])

        def gridsize(ndim):
            n = [d[k] * self.gridDim[k] for k in range(3)]
            return n[0] if ndim == 1 else tuple(n[:ndim])

        return types.SimpleNamespace(threadIdx=_dim3(t), blockIdx=_dim3(b), blockDim=_dim3(d),
                                     gridDim=_dim3(self.gridDim), grid=grid, gridsize=gridsize,
                                     laneid=(t[0] + d[0] * (t[1] + d[1] * t[2])) % 32, warpsize=32)

    def namespace(self, thread=None, block=None, frame=0):
        """Names an expression can use: the variables of the stopped thread's frame `frame`
        (or of another suspended thread), `cuda`, `np`."""
        ns = {"np": np, "numpy": np, "cuda": self.cuda_namespace(thread, block)}
        ns.update(self._frame_of(thread, block, frame).variables)
        return ns

    def eval(self, expression, thread=None, block=None, frame=0):
        """Evaluates a Python expression over the thread's variables."""
        return eval(expression, {"__builtins__": __builtins__}, self.namespace(thread, block, frame))

    def exec(self, statement, thread=None, block=None, frame=0):
        """Runs a Python statement (`a[3] = 0`); numbers assigned by name are stored back."""
        f = self._frame_of(thread, block, frame)
        ns = self.namespace(thread, block, frame)
        before = dict(ns)
        exec(statement, {"__builtins__": __builtins__}, ns)
        for name in f.scalars:
            if ns.get(name) is not before.get(name):
                f.views[name][0] = ns[name]

    def where(self):
        return "%s:%d in %s (kernel %s), thread %s, block %s" % (self.file, self.line, self.function, self.kernel,
                                                                 self.threadIdx, self.blockIdx)

    def thread_table(self, focus=None, block=None):
        block = _tid(block) if block is not None else self.blockIdx
        focus = _tid(focus) if focus is not None else self.threadIdx
        rows = ["  thread        state          line  function"]
        for t in self.all_threads:
            if t.blockIdx != block:
                continue
            mark = "*" if t.threadIdx == focus else " "
            rows.append(("%s %-13s %-14s %-5s %s" % (mark, "(%d, %d, %d)" % t.threadIdx, t.state, t.line or "",
                                                     t.function or "")).rstrip())
        return "\n".join(rows)


def _source(file, line, context=5):
    """The source lines around `line`, the line marked."""
    out = []
    for n in range(max(1, line - context), line + context + 1):
        text = linecache.getline(file, n)
        if text:
            out.append("%4d%s %s" % (n, " ->" if n == line else "   ", text.rstrip("\n")))
    return "\n".join(out)


# ---- breakpoints and watchpoints -----------------------------------------------------------------

_numbered = {}  # number -> Breakpoint or Watchpoint, numbered together as gdb does
_next_number = [1]


def _number(obj):
    n = _next_number[0]
    _next_number[0] += 1
    _numbered[n] = obj
    return n


def _filters_text(thread, block):
    return "".join(" %s=%s" % (k, v) for k, v in (("thread", thread), ("block", block)) if v is not None)


class Breakpoint:
    """A line breakpoint (`break_at`): `number`, `file`, `line`, `condition` (a Python
    expression over the thread's variables, or None), `thread` and `block` filters, and
    `hits` (stops so far)."""

    def __init__(self, file, line, condition, thread, block):
        self.file, self.line, self.condition = file, line, condition
        self.thread, self.block = thread, block
        self.hits = 0
        self._id = _cutwin.add_line_breakpoint(file, line, thread, block)
        self.number = _number(self)

    def _remove(self):
        _cutwin.remove_line_breakpoint(self._id)

    def __str__(self):
        cond = " if %s" % self.condition if self.condition else ""
        return "%d  breakpoint at %s:%d%s%s (hit %d)" % (self.number, self.file, self.line, cond,
                                                        _filters_text(self.thread, self.block), self.hits)


class Watchpoint:
    """A watchpoint (`watch`): `number`, `expression` (what was watched), `dtype`, filters,
    `hits`. A watchpoint set at a stop ends with that launch; one on a device array lasts
    until deleted."""

    def __init__(self, expression, address, dtype, thread, block, launch_scoped, owner=None):
        self.expression, self.dtype = expression, np.dtype(dtype)
        self.thread, self.block = thread, block
        self.launch_scoped = launch_scoped
        self.hits = 0
        self._owner = owner  # keeps a device array's memory alive while it is watched
        self._id = _cutwin.add_watchpoint(address, self.dtype.itemsize, thread, block, launch_scoped)
        self.number = _number(self)

    def _remove(self):
        _cutwin.remove_watchpoint(self._id)

    def __str__(self):
        scope = " (this launch)" if self.launch_scoped else ""
        return "%d  watchpoint %s%s%s (hit %d)" % (self.number, self.expression,
                                                  _filters_text(self.thread, self.block), scope, self.hits)


def _filter(v):
    return None if v is None else _tid(v)


def break_at(file, line, cond=None, thread=None, block=None):
    """Every thread of a debug kernel that reaches a statement of `file`:`line` stops there
    (the handler or the prompt runs), only threads of threadIdx `thread` and blockIdx `block`
    if given, and only where the Python expression `cond` over the thread's variables is
    true. Returns the Breakpoint; `delete(bp)` or `clear_breaks()` removes it."""
    file = os.path.abspath(file) if os.path.exists(file) else file
    return Breakpoint(file, int(line), cond, _filter(thread), _filter(block))


def _element(array, index):
    """(address, dtype) of element `index` of an ndarray (or a view of simulated memory)."""
    if not isinstance(index, tuple):
        index = (index,)
    if len(index) != array.ndim:
        raise IndexError("watch one element: %d indices for an array of %d dimensions" % (len(index), array.ndim))
    offset = 0
    for i, n, s in zip(index, array.shape, array.strides):
        i = int(i)
        i = i + n if i < 0 else i
        if not 0 <= i < n:
            raise IndexError("index %d out of bounds for an axis of size %d" % (i, n))
        offset += i * s
    return array.__array_interface__["data"][0] + offset, array.dtype


def _local_owner(address):
    """(threadIdx, blockIdx) of the thread whose local array holds `address` at the stop
    being handled, or None."""
    if _current is None:
        return None
    for t in _current.all_threads:
        for f in t.frames:
            for name, memory in f.memory.items():
                v = f.views[name]
                start = v.__array_interface__["data"][0]
                if memory == "local" and start <= address < start + max(v.nbytes, 1):
                    return t.threadIdx, t.blockIdx
    return None


def watch(array, index, thread=None, block=None, name=None):
    """Watches element `index` of an array: a store by a thread of a debug kernel (of
    threadIdx `thread` and blockIdx `block`, if given) that changes it stops that thread
    just after the store, at the statement that made it. Returns the Watchpoint.

    A device array (cuda.to_device) keeps its memory across launches: the watchpoint lasts
    until deleted. At a stop, any array the thread sees (a variable of a frame: global,
    shared or local memory) can be watched for the rest of that launch; a thread's local
    array only for that thread's stores."""
    shown = ", ".join(map(str, index)) if isinstance(index, tuple) else index
    expression = "%s[%s]" % (name or getattr(array, "__name__", "array"), shown)
    if isinstance(array, np.ndarray):
        if _current is None:
            raise TypeError("a host array is copied to the device for each launch: watch a device array "
                            "(cuda.to_device), or watch a variable's array at a stop")
        address, dtype = _element(array, index)
        owner = _local_owner(address)
        if owner is not None and thread is None and block is None:
            thread, block = owner  # its slot is another thread's once this one ends
        return Watchpoint(expression, address, dtype, _filter(thread), _filter(block), True)
    iface = getattr(array, "__cuda_array_interface__", None)
    if iface is None:
        raise TypeError("watch takes a device array, not %s" % type(array).__name__)
    dtype = np.dtype(iface["typestr"])
    shape = tuple(iface["shape"])
    strides = iface.get("strides") or tuple(int(np.prod(shape[k + 1:])) * dtype.itemsize
                                            for k in range(len(shape)))
    view = np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape=shape, strides=strides)
    offset, _ = _element(view, index)
    offset -= view.__array_interface__["data"][0]
    return Watchpoint(expression, iface["data"][0] + offset, dtype, _filter(thread), _filter(block), False,
                      owner=array)


def delete(*items):
    """Removes breakpoints and watchpoints (the objects or their numbers); none: all."""
    _forget_ended_watches()
    targets = list(_numbered) if not items else [i if isinstance(i, int) else i.number for i in items]
    for n in targets:
        obj = _numbered.pop(n, None)
        if obj is None:
            raise KeyError("no breakpoint or watchpoint %d" % n)
        obj._remove()


def clear_breaks():
    """Removes every line breakpoint."""
    delete(*[b for b in _numbered.values() if isinstance(b, Breakpoint)])


def breakpoints():
    """The breakpoints and watchpoints, by number."""
    _forget_ended_watches()
    return dict(_numbered)


def _forget_ended_watches():
    """Drops the watchpoints of launches that ended (the simulator removed them)."""
    live = set(_cutwin.watchpoint_ids())
    for n, w in list(_numbered.items()):
        if isinstance(w, Watchpoint) and w._id not in live:
            del _numbered[n]


# ---- the prompt ----------------------------------------------------------------------------------

_FILTER = re.compile(r"\s+(thread|block)\s*=\s*(\([^)]*\)|\d+)\s*$")


def _parse_filters(text):
    """`... thread=(1, 0) block=2` -> ("...", {"thread": (1, 0, 0), "block": (2, 0, 0)})."""
    found = {}
    while (m := _FILTER.search(text)) is not None:
        found[m.group(1)] = _tid(eval(m.group(2), {"__builtins__": {}}))
        text = text[:m.start()]
    return text.strip(), found


class Prompt(cmd.Cmd):
    """The interactive prompt at a stop (pdb's commands where they apply):

    p EXPR / pp EXPR      print an expression over the thread's variables, `cuda`, `np`
    !STATEMENT            run a statement (`!a[3] = 0`, `!x = 2`)
    l / list              the source around the stop
    w / where / bt        the call stack (the thread shown: marked ->)
    u / up, d / down      show the caller's frame / back towards the stop
    threads               every thread of the block, where it waits and in which function
    thread TX [TY TZ]     show another thread (one waiting at a barrier); `thread`: back
    block BX [BY BZ]      show a thread of another resident block (cooperative launches)
    s / step              go on to the thread's next statement (into calls)
    n / next              go on to its next statement in this function (or a caller)
    unt / until [LINE]    go on to a statement of this function past this line (or LINE)
    r / finish / return   go on until this function returns
    c / continue          let the thread go on (after an error: the error is raised)
    b / break [FILE:]LINE [if COND] [thread=(..)] [block=(..)]
                          every matching thread stops at that line; break alone: list
    watch ARRAY[INDEX] [thread=(..)] [block=(..)]
                          stop the thread whose store changes that element (this launch)
    delete [N ...]        remove breakpoints and watchpoints (all without N)
    clear                 remove the line breakpoints
    q / quit              end the launch (LaunchError)
    """
    prompt = "(cutwin) "

    def __init__(self, stop, stdin=None, stdout=None):
        super().__init__(stdin=stdin, stdout=stdout)
        if stdin is not None:
            self.use_rawinput = False
        self.stop = stop
        self.focus = None  # (threadIdx, blockIdx) of another suspended thread shown, or None
        self.frame = 0  # which of the shown thread's frames
        self.result = True

    def _say(self, text):
        self.stdout.write(text + "\n")

    def _error(self, e):
        self._say("*** %s" % (e.args[0] if isinstance(e, (KeyError, IndexError)) and e.args else
                              "%s: %s" % (type(e).__name__, e)))

    def _where(self):
        """(thread, block, frame) that expressions use."""
        t, b = self.focus if self.focus else (None, None)
        return {"thread": t, "block": b, "frame": self.frame}

    def _frames(self):
        if self.focus is None:
            return self.stop.frames
        return self.stop.thread(*self.focus).frames

    def preloop(self):
        s = self.stop
        if s.reason:
            self._say("> post-mortem: %s" % s.reason)
        if s.watchpoint is not None or s.cause == "watch":
            what = s.watchpoint.expression if s.watchpoint is not None else "an element"
            with _plain_numbers():
                self._say("> watchpoint %s: %s changed from %r to %r" % (
                    s.watchpoint.number if s.watchpoint is not None else "?", what, s.old, s.new))
        for b in s.breakpoints:
            self._say("> breakpoint %d at %s:%d" % (b.number, os.path.basename(b.file), b.line))
        what = {"error": "error", "step": "step", "break": "breakpoint", "watch": "watchpoint"}.get(s.cause,
                                                                                                  "breakpoint")
        self._say("> %s in kernel '%s' at %s:%d (%s)%s" % (what, s.kernel, s.file, s.line, s.function,
                                                           " --Return--" if s.at_return else ""))
        self._say("  thread %s, block %s" % (s.threadIdx, s.blockIdx))
        self._say(_source(s.file, s.line, 2))

    def _show(self, arg, pretty):
        try:
            v = self.stop.eval(arg, **self._where())
        except Exception as e:  # an error in the expression, as pdb reports it
            self._say("*** %s: %s" % (type(e).__name__, e))
            return
        with _plain_numbers():
            self._say(pprint.pformat(v) if pretty else repr(v))

    def do_p(self, arg):
        """p EXPR: the value of EXPR in the thread and frame shown."""
        self._show(arg, False)

    def do_pp(self, arg):
        """pp EXPR: the value of EXPR, pretty-printed."""
        self._show(arg, True)

    def default(self, line):
        if line.startswith("!"):
            try:
                self.stop.exec(line[1:], **self._where())
            except Exception as e:
                self._say("*** %s: %s" % (type(e).__name__, e))
            return
        self._say("*** unknown command %r (help lists them)" % line.split()[0])

    def do_list(self, arg):
        """list: the source around the line of the frame shown."""
        f = self._frames()[self.frame]
        self._say(_source(f.file, f.line))

    do_l = do_list

    def do_where(self, arg):
        """where: the call stack of the thread shown, the kernel first; -> marks the frame
        that p and ! use."""
        frames = self._frames()
        for k in range(len(frames) - 1, -1, -1):
            f = frames[k]
            self._say("%s %s:%d in %s" % ("->" if k == self.frame else "  ", f.file, f.line, f.function))
        t, b = self.focus if self.focus else (self.stop.threadIdx, self.stop.blockIdx)
        self._say("   kernel %s, thread %s, block %s" % (self.stop.kernel, t, b))

    do_w = do_bt = do_where

    def _move(self, delta):
        frames = self._frames()
        k = self.frame + delta
        if not 0 <= k < len(frames):
            self._say("*** %s frame" % ("oldest" if delta > 0 else "newest"))
            return
        self.frame = k
        f = frames[k]
        self._say("> %s:%d (%s)" % (f.file, f.line, f.function))
        self._say(_source(f.file, f.line, 2))

    def do_up(self, arg):
        """up: show the frame of the function that called this one."""
        self._move(int(arg or 1))

    do_u = do_up

    def do_down(self, arg):
        """down: back towards the stopped function."""
        self._move(-int(arg or 1))

    do_d = do_down

    def do_threads(self, arg):
        """threads: every thread of the block shown, its state, the line it waits at."""
        t, b = self.focus if self.focus else (None, None)
        self._say(self.stop.thread_table(t, b))

    def _show_thread(self, t):
        self.focus = None if (t.threadIdx, t.blockIdx) == (self.stop.threadIdx, self.stop.blockIdx) else \
            (t.threadIdx, t.blockIdx)
        self.frame = 0
        if self.focus is None:
            self._say("thread %s, block %s, stopped at line %d" % (t.threadIdx, t.blockIdx, self.stop.line))
        else:
            self._say("thread %s, block %s, waiting at the %s of line %d in %s" % (
                t.threadIdx, t.blockIdx, t.state, t.line, t.function))

    def do_thread(self, arg):
        """thread TX [TY TZ]: show another thread of the block shown (one waiting at a
        barrier); thread alone: back to the stopped thread."""
        if not arg.strip():
            self._show_thread(self.stop.thread(self.stop.threadIdx))
            return
        try:
            tid = tuple(int(v) for v in arg.replace(",", " ").replace("(", " ").replace(")", " ").split())
            block = self.focus[1] if self.focus else None
            self.stop._frame_of(tid, block)
            t = self.stop.thread(tid, block)
        except (KeyError, ValueError, IndexError) as e:
            self._error(e)
            return
        self._show_thread(t)

    def do_block(self, arg):
        """block BX [BY BZ]: show a thread of another resident block (the blocks of a
        cooperative launch wait at its grid barriers); block alone: back."""
        if not arg.strip():
            self._show_thread(self.stop.thread(self.stop.threadIdx))
            return
        try:
            bid = _tid(tuple(int(v) for v in arg.replace(",", " ").replace("(", " ").replace(")", " ").split()))
            if bid == self.stop.blockIdx:
                t = self.stop.thread(self.stop.threadIdx)
            else:
                known = [t for t in self.stop.all_threads if t.blockIdx == bid]
                if not known:
                    self.stop.thread((0, 0, 0), bid)  # raises: not resident
                with_frames = [t for t in known if t.frames]
                t = (with_frames or known)[0]
                if not t.frames:
                    raise KeyError("block %s: no thread of it is suspended where its variables are known" % (bid,))
        except (KeyError, ValueError, IndexError) as e:
            self._error(e)
            return
        self._show_thread(t)

    def _resume(self, result):
        if self.focus is not None and result != True:  # noqa: E712 (True, not truthiness)
            self._say("*** only the stopped thread %s moves: `thread` goes back to it" % (self.stop.threadIdx,))
            return False
        self.result = result
        return True

    def do_continue(self, arg):
        """continue: the thread goes on."""
        self.result = True
        return True

    do_c = do_cont = do_continue

    def do_step(self, arg):
        """step: the thread goes on and stops at its next statement (into device functions)."""
        return self._resume("step")

    do_s = do_step

    def do_next(self, arg):
        """next: the thread goes on and stops at its next statement in this function (or,
        once it returns, in its caller)."""
        return self._resume("next")

    do_n = do_next

    def do_until(self, arg):
        """until [LINE]: the thread goes on to a statement of this function at a line past
        the current one (or at LINE or later), or until the function returns: out of loops."""
        try:
            line = int(arg) if arg.strip() else self.stop.line + 1
        except ValueError:
            self._say("*** until takes a line number, not %r" % arg)
            return False
        return self._resume(("until", line))

    do_unt = do_until

    def do_finish(self, arg):
        """finish: the thread goes on until this function returns (it stops there, after its
        last statement; `p __return__` shows a device function's result)."""
        return self._resume("finish")

    do_r = do_return = do_finish

    def do_break(self, arg):
        """break [FILE:]LINE [if COND] [thread=(TX, TY, TZ)] [block=(BX, BY, BZ)]: every
        matching thread of a debug kernel stops at that line (FILE: this one by default);
        break alone lists the breakpoints and watchpoints."""
        if not arg.strip():
            for n, b in sorted(breakpoints().items()):
                self._say(str(b))
            return
        try:
            text, filters = _parse_filters(arg)
            where, _, cond = text.partition(" if ")
            where = where.strip()
            file, _, line = where.rpartition(":")
            b = break_at(file or self.stop.file, int(line), cond.strip() or None, **filters)
        except (ValueError, SyntaxError, NameError):
            self._say("*** break takes [FILE:]LINE [if COND] [thread=(..)] [block=(..)], not %r" % arg)
            return
        self._say("Breakpoint %d at %s:%d" % (b.number, os.path.basename(b.file), b.line))

    do_b = do_break

    def do_watch(self, arg):
        """watch ARRAY[INDEX] [thread=(..)] [block=(..)]: the thread whose store changes that
        element (global, shared or local memory) stops after it, for the rest of this launch."""
        try:
            text, filters = _parse_filters(arg)
            m = re.fullmatch(r"(.+)\[(.+)\]\s*", text)
            if not m:
                raise ValueError("watch takes ARRAY[INDEX], not %r" % text)
            array = self.stop.eval(m.group(1), **self._where())
            index = self.stop.eval(m.group(2), **self._where())
            if not isinstance(array, np.ndarray):
                raise TypeError("%s is not an array" % m.group(1))
            w = watch(array, index, name=m.group(1).strip(), **filters)
        except Exception as e:
            self._say("*** %s" % e)
            return
        with _plain_numbers():
            self._say("Watchpoint %d: %s (now %r)" % (w.number, w.expression, array[index]))

    def do_delete(self, arg):
        """delete [N ...]: remove breakpoints and watchpoints by number (all without N)."""
        try:
            delete(*[int(v) for v in arg.split()])
        except (KeyError, ValueError) as e:
            self._error(e)

    def do_clear(self, arg):
        """clear: remove every line breakpoint."""
        clear_breaks()

    def do_quit(self, arg):
        """quit: end the launch (LaunchError); the process keeps working."""
        self.result = False
        return True

    do_q = do_exit = do_quit

    def do_EOF(self, arg):
        self._say("")
        return self.do_quit(arg)

    def emptyline(self):
        pass


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


_current = None  # the Stop being handled


def _dispatch(d):
    global _current
    stop = Stop(d)
    if stop.cause == "break":
        stop.breakpoints = [b for b in stop.breakpoints if _condition_holds(stop, b)]
        if not stop.breakpoints:
            return True  # no condition holds: the thread goes on unseen
        for b in stop.breakpoints:
            b.hits += 1
    if stop.watchpoint is not None:
        stop.watchpoint.hits += 1
    _current = stop
    try:
        result = _handler(stop)
    except Quit:
        return False
    except BaseException as e:  # the handler failed: end the launch, saying why
        sys.stderr.write("cutwin.debug: the breakpoint handler raised %s: %s\n" % (type(e).__name__, e))
        return False
    finally:
        _current = None
    if result in ("step", "next", "finish") or (isinstance(result, tuple) and result[:1] == ("until",)):
        return result
    return result is None or bool(result)


_cutwin.set_breakpoint_handler(_dispatch)
