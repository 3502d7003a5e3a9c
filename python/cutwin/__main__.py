"""`python -m cutwin run prog.py [args]` or `python -m cutwin run -m module [args]`: runs a
numba-cuda program unchanged, with `numba.cuda` as cutwin (cutwin/as_numba.py). The switch
is also set in the environment (CUTWIN_NUMBA=1), so the program's child processes get it.

`python -m cutwin cache [--clear]`: the kernel cache on disk (its folder, entries and size);
--clear removes every entry."""
import argparse
import os
import runpy
import sys


def run(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    if argv[0] == "-m":
        if len(argv) < 2:
            print("python -m cutwin run -m: a module name is missing", file=sys.stderr)
            return 2
        target, as_module, rest = argv[1], True, argv[2:]
    else:
        target, as_module, rest = argv[0], False, argv[1:]
    os.environ["CUTWIN_NUMBA"] = "1"
    from . import as_numba

    as_numba.install()
    sys.argv = [target] + rest
    if as_module:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        runpy.run_path(target, run_name="__main__")
    return 0


def cache(argv):
    parser = argparse.ArgumentParser(prog="python -m cutwin cache",
                                     description="the kernel cache on disk: its folder, entries and size")
    parser.add_argument("--clear", action="store_true", help="remove every entry")
    args = parser.parse_args(argv)
    from . import _cutwin

    if args.clear:
        removed = _cutwin.clear_kernel_cache()
        print("removed %d entries from %s" % (removed, _cutwin.kernel_cache_usage()[0]))
        return 0
    directory, entries, size = _cutwin.kernel_cache_usage()
    print("%s: %d entries, %d MiB" % (directory, entries, (size + 512 * 1024) // (1024 * 1024)))
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m cutwin", description="cutwin's command line")
    parser.add_argument("command", choices=("run", "cache"),
                        help="run: a numba-cuda program with numba.cuda as cutwin; cache: the kernel cache on disk")
    if not argv or argv[0] not in ("run", "cache"):
        parser.print_help()
        return 2
    return run(argv[1:]) if argv[0] == "run" else cache(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
