#!/usr/bin/env python3
"""stumpy's GPU tests (conformance/stumpy/run.py), unchanged, on cutwin's simulator as
numba.cuda against numba-cuda's own simulator, in one run: wall time of each pytest run and
the ratio (the target: cutwin >= 10x faster in total, with every test that passes on numba's
simulator passing on cutwin's). Prints a Markdown table per file and the totals.

    PYTHONPATH=build/python python bench/stumpy.py [--work build/stumpy-suite]
"""
import argparse
import os
import subprocess
import sys

RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance", "stumpy", "run.py")


def measure(work, baseline):
    records = os.path.join(work, "baseline.tsv" if baseline else "cutwin.tsv")
    cmd = [sys.executable, RUN, "--work", work, "--records", records] + (["--baseline"] if baseline else [])
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL)
    total, tests = None, {}
    with open(records) as fh:
        for line in fh:
            if line.startswith("# seconds"):
                total = float(line.split()[2])
                continue
            name, outcome, seconds = line.rstrip("\n").split("\t")
            tests[name] = (outcome, float(seconds))
    return total, tests


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="build/stumpy-suite")
    args = ap.parse_args()
    work = os.path.abspath(args.work)
    cutwin_total, cutwin = measure(work, baseline=False)
    numba_total, numba = measure(work, baseline=True)
    files = sorted({name.split("::")[0] for name in numba} | {name.split("::")[0] for name in cutwin})
    print("| file | passed (numba sim) | passed (cutwin) | numba sim s | cutwin s | speed-up |")
    print("|---|---:|---:|---:|---:|---:|")
    for f in files:
        n = [v for k, v in numba.items() if k.startswith(f + "::")]
        c = [v for k, v in cutwin.items() if k.startswith(f + "::")]
        ns, cs = sum(s for _, s in n), sum(s for _, s in c)
        print("| %s | %d | %d | %.1f | %.1f | %.1fx |" % (f, sum(o == "passed" for o, _ in n),
                                                         sum(o == "passed" for o, _ in c), ns, cs, ns / max(cs, 1e-9)))
    lost = [k for k, (o, _) in numba.items() if o == "passed" and cutwin.get(k, ("missing",))[0] != "passed"]
    print("\nwall time of the whole pytest run: numba's simulator %.1f s, cutwin %.1f s: %.1fx faster"
          % (numba_total, cutwin_total, numba_total / cutwin_total))
    print("tests passing on numba's simulator: %d; of those, not passing on cutwin: %d%s"
          % (sum(o == "passed" for o, _ in numba.values()), len(lost), (" " + ", ".join(lost[:10])) if lost else ""))
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
