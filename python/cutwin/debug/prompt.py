"""The debugger's prompt: gdb's commands on a Stop (print, locals, up, down, step, next,
until, finish, break, watch, threads, ...)."""
import cmd
import os
import pprint
import re

import numpy as np

from ._indices import plain_numbers, thread_index
from .points import break_at, breakpoints, clear_breaks, delete, watch
from .stops import _source


_FILTER = re.compile(r"\s+(thread|block)\s*=\s*(\([^)]*\)|\d+)\s*$")


def _parse_filters(text):
    """`... thread=(1, 0) block=2` -> ("...", {"thread": (1, 0, 0), "block": (2, 0, 0)})."""
    found = {}
    while (m := _FILTER.search(text)) is not None:
        found[m.group(1)] = thread_index(eval(m.group(2), {"__builtins__": {}}))
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
            with plain_numbers():
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
        with plain_numbers():
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
            bid = thread_index(tuple(int(v) for v in arg.replace(",", " ").replace("(", " ").replace(")", " ").split()))
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
        with plain_numbers():
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
