"""Runs the sanitizer's corpus (corpus.py) and prints, for each case, what was reported.

    python conformance/sanitize/run.py              # cutwin's simulator, sanitize=all
    python conformance/sanitize/run.py --checks race
    CORPUS_CUDA=numba compute-sanitizer --tool racecheck python conformance/sanitize/run.py --plain

With cutwin, each kernel is compiled with the sanitizer's checks and the report must name the
case's kind, memory and marked lines; the exit status is the number of cases that did not
get the expected report (a planted bug missed or misnamed, or any report on a correct
kernel). `--plain` launches the kernels without checks (for another tool to watch: NVIDIA's
compute-sanitizer on a GPU, with numba-cuda), printing only what each launch raised.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def run_case(c, checks=None):
    """(kind, lines, memory, message) of what launching `c` reported; kind None if nothing."""
    try:
        c.launch(checks)
    except Exception as e:  # noqa: BLE001 - a report is an exception; anything else is a finding too
        name = type(e).__name__
        text = str(e)
        kind = {"KernelRaceError": "race", "KernelUninitializedError": "uninit"}.get(name, name)
        lines = {int(n) for n in re.findall(r"\.py:(\d+)", text)}
        memory = next((m for m in ("shared", "global", "local") if re.search(r"\b%s\b" % m, text.split("\n")[0])),
                      "")
        return kind, lines, memory, text
    return None, set(), "", ""


def judge(c, kind, lines, memory):
    """'' if the report is what the case expects, else why not."""
    if not c.bug:
        return "" if kind is None else "false positive"
    if kind is None:
        return "missed"
    if kind != c.bug:
        return "reported as %s, not %s" % (kind, c.bug)
    if lines != c.marked_lines():
        return "named lines %s, not %s" % (sorted(lines), sorted(c.marked_lines()))
    if memory != c.memory:
        return "named %s memory, not %s" % (memory or "no", c.memory)
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checks", default="all", help="the sanitizer's checks (race, init, all)")
    ap.add_argument("--plain", action="store_true", help="launch without the sanitizer (for compute-sanitizer)")
    ap.add_argument("--filter", default="", help="only cases whose name contains this")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each report")
    args = ap.parse_args()
    if not args.plain:
        os.environ["CUTWIN_SANITIZE"] = args.checks
    import corpus

    failures = 0
    for c in corpus.CASES:
        if args.filter not in c.name:
            continue
        kind, lines, memory, text = run_case(c)
        if args.plain:
            print("%-40s %s" % (c.name, kind or "-"))
            continue
        why = judge(c, kind, lines, memory)
        failures += bool(why)
        print("%-40s %-7s %-6s %s" % (c.name, c.bug or "ok", "PASS" if not why else "FAIL", why))
        if args.verbose and text:
            print("    " + text.replace("\n", "\n    "))
    if not args.plain:
        print("%d cases (%d planted bugs, %d correct kernels): %d failed" %
              (len(corpus.CASES), len(corpus.BUGS), len(corpus.CORRECT), failures))
    return min(failures, 100)


if __name__ == "__main__":
    sys.exit(main())
