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
        if name not in ("KernelRaceError", "KernelUninitializedError"):
            import traceback

            text += "\n" + traceback.format_exc()
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


TOOLS = ("racecheck", "initcheck", "memcheck")


def summarize(folder):
    """A Markdown table: for each case, what each compute-sanitizer tool reported (its
    error and hazard lines, counted) beside the corpus's expectation."""
    os.environ["CORPUS_CUDA"] = "numba"  # (only the cases' names and marks are needed)
    import corpus

    found = {}
    for tool in TOOLS:
        path = os.path.join(folder, tool + ".log")
        if not os.path.exists(path):
            continue
        case = None
        for line in open(path, errors="replace"):
            m = re.match(r"=== case (\S+)", line)
            if m:
                case = m.group(1)
                found.setdefault((case, tool), [])
                continue
            if case and re.search(r"(Error|Warning|Hazard)", line) and "=== " not in line and "ERROR SUMMARY" not in line:
                found[(case, tool)].append(line.strip())
    print("| case | planted bug | " + " | ".join(TOOLS) + " |")
    print("|---|---|" + "---|" * len(TOOLS))
    for c in corpus.CASES:
        cells = []
        for tool in TOOLS:
            lines = found.get((c.name, tool))
            if lines is None:
                cells.append("not run")
            elif not lines:
                cells.append("-")
            else:
                first = re.sub(r"^=+\s*", "", lines[0])[:60]
                cells.append("%d: %s" % (len(lines), first))
        print("| %s | %s | %s |" % (c.name, ("%s, %s" % (c.bug, c.memory)) if c.bug else "none (correct)",
                                    " | ".join(cells)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checks", default="all", help="the sanitizer's checks (race, init, all)")
    ap.add_argument("--plain", action="store_true", help="launch without the sanitizer (for compute-sanitizer)")
    ap.add_argument("--filter", default="", help="only cases whose name contains this")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each report")
    ap.add_argument("--summarize", metavar="DIR",
                    help="read compute_sanitizer.sh's logs in DIR and print what each tool reported per case")
    args = ap.parse_args()
    if args.summarize:
        return summarize(args.summarize)
    if not args.plain:
        os.environ["CUTWIN_SANITIZE"] = args.checks
    import corpus

    failures = 0
    # (kernels that wait for other threads last: a tool that serialises threads may stall them)
    for c in sorted(corpus.CASES, key=lambda c: args.plain and ("spin" in c.name or "flag_chain" in c.name)):
        if args.filter not in c.name:
            continue
        if args.plain:  # what a tool prints during the launch belongs to the case named before it
            print("=== case %s" % c.name, flush=True)
        kind, lines, memory, text = run_case(c)
        if args.plain:
            print("=== raised %s %s" % (kind or "nothing", text if kind not in ("race", "uninit") else
                                        text.split("\n")[0][:300]), flush=True)
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
