"""A stop of a simulated thread as the debugger shows it: the kernel, the source line, the
thread and block, the call stack (each frame's variables, arrays as NumPy views of the
simulated memory) and every thread of its block."""
import ctypes
import linecache
import os
import types

import numpy as np

from ..types import numpy_dtype
from . import _state
from ._indices import thread_index
from .points import Breakpoint, Watchpoint


class Quit(Exception):
    """Raised by a handler to end the launch (as the prompt's `q` does)."""


def _dim3(t):
    return types.SimpleNamespace(x=t[0], y=t[1], z=t[2])


def _scalar_view(dtype, address):
    dt = numpy_dtype(dtype)
    buf = (ctypes.c_char * dt.itemsize).from_address(address)
    return np.frombuffer(buf, dtype=dt)  # one element, writable: the variable itself


def _array_view(dtype, ndim, address):
    """The array whose descriptor (data address, extents, byte strides) is at `address`."""
    dt = numpy_dtype(dtype)
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
        self.breakpoints = [b for b in _state.numbered.values() if isinstance(b, Breakpoint)
                            and b._id in d["line_breakpoints"]]
        self.watchpoint = self.old = self.new = None
        if d["watch"] is not None:
            wid, before, after = d["watch"]
            self.watchpoint = next((w for w in _state.numbered.values() if isinstance(w, Watchpoint) and w._id == wid),
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
        tid = thread_index(tid)
        bid = thread_index(block) if block is not None else self.blockIdx
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
        t = thread_index(thread) if thread is not None else self.threadIdx
        b = thread_index(block) if block is not None else self.blockIdx
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
        block = thread_index(block) if block is not None else self.blockIdx
        focus = thread_index(focus) if focus is not None else self.threadIdx
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
