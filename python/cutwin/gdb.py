"""Runs a Python program under gdb with cutwin's gdb extension loaded, its kernels on the
simulator and compiled for debugging:

    python -m cutwin.gdb prog.py [args...]
    (gdb) break prog.py:12
    (gdb) run

Sets CUTWIN_BACKEND=sim and CUTWIN_DEBUG=1 unless they are set. `--print-path` prints the
extension's path instead (to `source` it in gdb yourself, or from a VS Code launch
configuration's setupCommands).
"""
import os
import shutil
import sys

EXTENSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gdb_extension.py")


def command(argv, gdb="gdb"):
    """The gdb command line that runs `argv` (a Python program and its arguments)."""
    # the extension now, and leave its auto-load script (run when the library loads) allowed
    return [gdb, "-q", "-iex", "source " + EXTENSION, "-iex", "add-auto-load-safe-path " + os.path.dirname(EXTENSION),
            "--args", sys.executable] + list(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--print-path"]:
        print(EXTENSION)
        return 0
    if not argv or argv[0] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 0 if argv else 2
    gdb = shutil.which("gdb")
    if gdb is None:
        sys.stderr.write("cutwin.gdb: gdb is not installed (apt-get install gdb)\n")
        return 1
    os.environ.setdefault("CUTWIN_BACKEND", "sim")
    os.environ.setdefault("CUTWIN_DEBUG", "1")
    os.execv(gdb, command(argv, gdb))


if __name__ == "__main__":
    sys.exit(main())
