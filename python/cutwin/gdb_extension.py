"""gdb commands and printers for kernels on cutwin's simulator (runs inside gdb's Python).

Loaded by `python -m cutwin.gdb PROGRAM ...`, by gdb's auto-load next to cutwin's native
library, or with `source` (see docs/debugging.md). Every simulated thread of a debug kernel
is a fiber or an iteration of the block's thread loop on one OS thread, so gdb's own
thread commands see one thread; these add the simulated ones:

    cutwin threads                       the block's threads: where each is, which can be selected
    cutwin thread TX [TY [TZ]]           select a suspended thread of this block (frames, locals)
    cutwin thread (tx, ty, tz) (bx, by, bz)   ... of a resident block (a cooperative launch)
    cutwin block BX [BY [BZ]]            the threads of that resident block
    cutwin thread                        back to the thread that stopped

A thread selected this way is inspected in place; the program resumes (continue, next,
step, ...) from the thread that stopped. Arrays print with their shape and elements;
`a[i]` indexes a 1-d array and `$at(a, i, j, ...)` any array. `step` or `next` past a thread's
last line stops where the thread ends, saying so: `continue` runs on to the next stop.
"""
import json
import re

import gdb
import gdb.printing
import gdb.xmethod

# ---- arrays ------------------------------------------------------------------------------------

_ARRAY = re.compile(r"^array\((\w+), (\d+)d, (\w)\)")


def _descriptor(value):
    """(data pointer, shape, byte strides) of an array descriptor value."""
    t = value.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_PTR:
        value = value.dereference()
    ndim = int(_ARRAY.match(str(value.type.strip_typedefs().name or value.type.strip_typedefs().tag)).group(2))
    shape = [int(value["shape"][k]) for k in range(ndim)]
    strides = [int(value["strides"][k]) for k in range(ndim)]
    return value["data"], shape, strides


def _is_array(t):
    t = t.strip_typedefs()
    name = t.name or t.tag
    return t.code == gdb.TYPE_CODE_STRUCT and name is not None and _ARRAY.match(name) is not None


def _element(value, index):
    data, shape, strides = _descriptor(value)
    if len(index) != len(shape):
        raise gdb.GdbError("%d indices for an array of %d dimensions" % (len(index), len(shape)))
    offset = 0
    for i, n, s in zip(index, shape, strides):
        i = int(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise gdb.GdbError("index %d is out of bounds for an axis of size %d" % (int(i), n))
        offset += i * s
    elem = data.type.target()
    address = int(data.cast(gdb.lookup_type("unsigned long"))) + offset
    return gdb.Value(address).cast(elem.pointer()).dereference()


class ArrayPrinter:
    """`array(float32, 1d, C) shape (64,) = {0, 1, 2, ...}`: elements in C order."""

    def __init__(self, value):
        self.value = value
        self.data, self.shape, self.strides = _descriptor(value)

    def to_string(self):
        name = self.value.type.strip_typedefs().name or self.value.type.strip_typedefs().tag
        shape = "(%s)" % ", ".join(map(str, self.shape)) if len(self.shape) != 1 else "(%d,)" % self.shape[0]
        return "%s shape %s" % (name, shape)

    def display_hint(self):
        return "array"

    def children(self):
        if int(self.data.cast(gdb.lookup_type("unsigned long"))) == 0:
            return
        total = 1
        for n in self.shape:
            total *= n
        for flat in range(total):
            index, rest = [], flat
            for n in reversed(self.shape):
                index.append(rest % n)
                rest //= n
            index.reverse()
            yield "[%s]" % ", ".join(map(str, index)), _element(self.value, index)


def _lookup_printer(value):
    return ArrayPrinter(value) if _is_array(value.type) else None


class _IndexWorker(gdb.xmethod.XMethodWorker):
    def __init__(self, nargs):
        self.nargs = nargs

    def get_arg_types(self):
        return [gdb.lookup_type("long")] * self.nargs

    def get_result_type(self, obj, *args):
        data, _, _ = _descriptor(obj)
        return data.type.target()

    def __call__(self, obj, *args):
        return _element(obj, list(args))


class _IndexMatcher(gdb.xmethod.XMethodMatcher):
    """`a[i]` on 1-d array descriptors."""

    def __init__(self):
        gdb.xmethod.XMethodMatcher.__init__(self, "cutwin array index")

    def match(self, class_type, method_name):
        if not _is_array(class_type):
            return None
        ndim = int(_ARRAY.match(class_type.strip_typedefs().name or class_type.strip_typedefs().tag).group(2))
        if method_name == "operator[]" and ndim == 1:
            return _IndexWorker(1)
        return None


class _At(gdb.Function):
    """$at(ARRAY, I, J, ...): element (I, J, ...) of a cutwin array (any dimensions)."""

    def __init__(self):
        super().__init__("at")

    def invoke(self, array, *index):
        if not _is_array(array.type):
            raise gdb.GdbError("$at takes a cutwin array, not %s" % array.type)
        return _element(array, [int(i) for i in index])


# ---- simulated threads -------------------------------------------------------------------------

_REGISTERS = ("rip", "rsp", "rbp", "rbx", "r12", "r13", "r14", "r15")
_saved = None  # the registers of the thread that stopped, while another one is selected
_selected = None  # (threadIdx, blockIdx) of that other one


def _state():
    """The simulator's thread table (see backend_sim/gdb_view.h), or None outside a debug kernel."""
    try:
        text = gdb.parse_and_eval("((const char *(*)(void)) cutwin_gdb_threads)()").string()
    except gdb.error as e:
        if "extended state" in str(e):  # gdb 13 on a CPU whose register state it does not know (AMX)
            raise gdb.GdbError("this gdb cannot call a function in the debugged process on this CPU (%s); "
                               "the simulated threads' table needs that call" % e)
        return None
    return json.loads(text)


def _dims(text, what):
    """"3", "3 1", "(3, 1)" -> (3, 1, 0)-style triples; two groups: thread and block."""
    groups = re.findall(r"\(([^)]*)\)", text)
    if not groups:
        groups = [text]
    out = []
    for g in groups:
        nums = [int(x) for x in re.split(r"[\s,]+", g.strip()) if x]
        if not 1 <= len(nums) <= 3:
            raise gdb.GdbError("%s takes 1 to 3 indices, not %r" % (what, g))
        out.append(tuple(nums + [0] * (3 - len(nums))))
    return out


def _restore():
    """Puts back the stopped thread's registers (before the program resumes)."""
    global _saved, _selected
    if _saved is None:
        return
    gdb.newest_frame().select()
    for name, value in _saved.items():
        gdb.execute("set $%s = %d" % (name, value), to_string=True)
    _saved = _selected = None


def _select(thread):
    """Makes gdb's frame 0 that of the suspended simulated thread `thread`."""
    global _saved, _selected
    regs = thread.get("registers")
    if regs is None:
        raise gdb.GdbError("thread %s of block %s is %s: it has no frames to select" % (
            tuple(thread["threadIdx"]), tuple(thread["blockIdx"]), thread["state"]))
    _restore()
    frame = gdb.newest_frame()
    frame.select()
    _saved = {name: int(frame.read_register(name)) for name in _REGISTERS}
    for name in _REGISTERS:
        gdb.execute("set $%s = %d" % (name, regs[name]), to_string=True)
    _selected = (tuple(thread["threadIdx"]), tuple(thread["blockIdx"]))
    # the innermost frames are the scheduler's switch; show the kernel's
    frame = _kernel_frame(gdb.newest_frame())
    if frame is not None:
        frame.select()


def _in_kernel(frame):
    sal = frame.find_sal()
    return sal is not None and sal.symtab is not None and sal.symtab.filename.endswith(".py")


def _kernel_frame(frame):
    """`frame` or the nearest older one in kernel code (a .py line), or None."""
    while frame is not None and not _in_kernel(frame):
        frame = frame.older()
    return frame


def _where(t):
    frames = t.get("frames")
    if not frames:
        return ""
    fn, file, line = frames[0]
    if "waits_at" in t:
        line = t["waits_at"]
    return "%s at %s:%d" % (fn, file.rsplit("/", 1)[-1], line)


def _line_shown():
    """(file name, line) of the kernel frame gdb shows, or None."""
    frame = _kernel_frame(gdb.selected_frame())
    if frame is None:
        return None
    sal = frame.find_sal()
    return sal.symtab.filename.rsplit("/", 1)[-1], sal.line


def _current_thread():
    """(threadIdx, blockIdx) of the thread gdb shows, from `cuda` in its kernel frame."""
    frame = _kernel_frame(gdb.selected_frame())
    if frame is None:
        return None
    try:
        cuda = frame.read_var("cuda")
    except ValueError:
        return None
    dim = lambda v: tuple(int(v[c]) for c in "xyz")
    return dim(cuda["threadIdx"]), dim(cuda["blockIdx"])


class CutwinPrefix(gdb.Command):
    """Commands for cutwin's simulated GPU threads: cutwin threads, cutwin thread, cutwin block."""

    def __init__(self):
        super().__init__("cutwin", gdb.COMMAND_USER, gdb.COMPLETE_NONE, True)


class CutwinThreads(gdb.Command):
    """cutwin threads: every thread of the block (of every resident block in a cooperative
    launch): its state (running, ready, barrier, warp, breakpoint, exited, not started) and
    where it is. * marks the thread shown; + those `cutwin thread` can select."""

    def __init__(self):
        super().__init__("cutwin threads", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        state = _state()
        if state is None:
            raise gdb.GdbError("no debug kernel is running on this thread (kernels need debug=True)")
        shown = _selected or _current_thread()
        block = tuple(int(x) for x in (arg.split() if arg else []))
        print("kernel %s" % state["kernel"])
        print("  %-14s %-14s %-12s %s" % ("threadIdx", "blockIdx", "state", "where"))
        for t in state["threads"]:
            tid, bid = tuple(t["threadIdx"]), tuple(t["blockIdx"])
            if block and bid[:len(block)] != block:
                continue
            mark = "*" if shown == (tid, bid) else ("+" if "registers" in t else " ")
            where = _where(t)
            shown_line = _line_shown() if t["state"] == "running" and _saved is None else None
            if shown_line and t.get("frames"):  # its frame record has the line of the last stop
                where = "%s at %s:%d" % (t["frames"][0][0], shown_line[0], shown_line[1])
            print("%s %-14s %-14s %-12s %s" % (mark, str(tid), str(bid), t["state"], where))


class CutwinThread(gdb.Command):
    """cutwin thread TX [TY [TZ]] | (tx, ty, tz) [(bx, by, bz)]: select a suspended simulated
    thread (one waiting at a barrier, a warp operation or a breakpoint): bt, frame, info
    locals and print then show it. `cutwin thread` alone goes back to the thread that
    stopped; resuming the program does too."""

    def __init__(self):
        super().__init__("cutwin thread", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if not arg.strip():
            _restore()
            gdb.execute("frame", from_tty)
            return
        state = _state()
        if state is None:
            raise gdb.GdbError("no debug kernel is running on this thread (kernels need debug=True)")
        dims = _dims(arg, "cutwin thread")
        tid = dims[0]
        here = _current_thread() if _saved is None else None
        bid = dims[1] if len(dims) > 1 else (_selected[1] if _selected else (here[1] if here else None))
        for t in state["threads"]:
            if tuple(t["threadIdx"]) == tid and (bid is None or tuple(t["blockIdx"]) == bid):
                if _saved is None and here == (tid, tuple(t["blockIdx"])):
                    return  # already the thread shown
                if _saved is not None and _selected is None:
                    break
                _select(t)
                print("[simulated thread %s of block %s, %s]" % (tid, tuple(t["blockIdx"]), t["state"]))
                gdb.execute("frame", from_tty)
                return
        raise gdb.GdbError("no thread %s%s in the resident blocks" % (tid, "" if bid is None else
                                                                       " of block %s" % (bid,)))


class CutwinBlock(gdb.Command):
    """cutwin block BX [BY [BZ]]: the thread table of that resident block (a cooperative
    launch keeps every block resident; otherwise only the running one is)."""

    def __init__(self):
        super().__init__("cutwin block", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        (bid,) = _dims(arg, "cutwin block")
        gdb.execute("cutwin threads %d %d %d" % bid, from_tty)


class CutwinRestore(gdb.Command):
    """cutwin restore: put back the stopped thread's registers (run before resuming)."""

    def __init__(self):
        super().__init__("cutwin restore", gdb.COMMAND_MAINTENANCE)

    def invoke(self, arg, from_tty):
        _restore()


# ---- stepping stays in the simulated thread ----------------------------------------------------

_stepping_from = None  # (threadIdx, blockIdx, kernel) a step started in


def _on_stop(event):
    """A step past a kernel's last line ends in the scheduler's code: say so, and that the
    thread is done, rather than leave the user in code without lines (nor step on into
    the next simulated thread)."""
    global _stepping_from
    was, _stepping_from = _stepping_from, None
    if was is None or isinstance(event, (gdb.BreakpointEvent, gdb.SignalEvent)):
        return
    try:
        frame = gdb.newest_frame()
    except gdb.error:
        return
    if _in_kernel(frame):
        return
    tid, bid, kernel = was
    print("[cutwin: simulated thread %s of block %s returned from %s; `continue` runs on to the next stop]" % (
        tid, bid, kernel))


def _on_continue(event):
    global _stepping_from
    _stepping_from = None
    try:
        frame = gdb.newest_frame()
        if _in_kernel(frame):
            here = _current_thread()
            if here is not None:
                _stepping_from = here + (frame.name(),)
    except gdb.error:
        pass


def _install_hooks():
    # registers swapped by `cutwin thread` go back before anything resumes the program
    for command in ("continue", "next", "step", "finish", "until", "advance", "stepi", "nexti", "jump",
                    "signal", "kill", "detach"):
        try:
            gdb.execute("define hook-%s\ncutwin restore\nend" % command, to_string=True)
        except gdb.error:
            pass


def register():
    CutwinPrefix()
    CutwinThreads()
    CutwinThread()
    CutwinBlock()
    CutwinRestore()
    gdb.printing.register_pretty_printer(None, _lookup_printer, replace=True)
    gdb.xmethod.register_xmethod_matcher(None, _IndexMatcher(), replace=True)
    _At()
    gdb.events.stop.connect(_on_stop)
    gdb.events.cont.connect(_on_continue)
    _install_hooks()
    gdb.execute("set breakpoint pending on", to_string=True)


if not getattr(gdb, "_cutwin_loaded", False):
    gdb._cutwin_loaded = True
    register()
