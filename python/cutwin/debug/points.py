"""Breakpoints at source lines (`break_at`) and watchpoints on array elements (`watch`),
numbered together as gdb numbers them, with thread and block filters."""
import os

import numpy as np

from .. import _cutwin
from . import _state
from ._indices import thread_index




def _number(obj):
    n = _state.next_number[0]
    _state.next_number[0] += 1
    _state.numbered[n] = obj
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
    return None if v is None else thread_index(v)


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
    if _state.current is None:
        return None
    for t in _state.current.all_threads:
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
        if _state.current is None:
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
    targets = list(_state.numbered) if not items else [i if isinstance(i, int) else i.number for i in items]
    for n in targets:
        obj = _state.numbered.pop(n, None)
        if obj is None:
            raise KeyError("no breakpoint or watchpoint %d" % n)
        obj._remove()


def clear_breaks():
    """Removes every line breakpoint."""
    delete(*[b for b in _state.numbered.values() if isinstance(b, Breakpoint)])


def breakpoints():
    """The breakpoints and watchpoints, by number."""
    _forget_ended_watches()
    return dict(_state.numbered)


def _forget_ended_watches():
    """Drops the watchpoints of launches that ended (the simulator removed them)."""
    live = set(_cutwin.watchpoint_ids())
    for n, w in list(_state.numbered.items()):
        if isinstance(w, Watchpoint) and w._id not in live:
            del _state.numbered[n]
