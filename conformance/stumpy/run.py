#!/usr/bin/env python3
"""Runs stumpy's GPU tests, unchanged, on cutwin's simulator with CUTWIN_NUMBA=1: stumpy's
source distribution (it ships its tests) comes from PyPI, and pytest runs its GPU selection
(tests/test_gpu_*.py and the `-k gpu` tests of test_core, test_non_normalized_decorator and
test_precision) with `numba.cuda` as cutwin. Prints a per-file table and the total time.

    python conformance/stumpy/run.py [--version V] [--work DIR] [--baseline] [--devices N]
        [-k KEYWORD] [--expect N] [--records FILE] [--table FILE]

--baseline runs the same tests on numba-cuda's own simulator (NUMBA_ENABLE_CUDASIM=1, no
cutwin) instead, for the speed comparison in bench/stumpy.py. With --expect N the exit
status is 1 unless N tests ran and every one passed (numba's simulator passes all of them).
--devices N gives the simulator N devices (CUTWIN_SIM_DEVICES): stumpy's multi-device
tests (`-k parallel`: gpu_stump and gpu_aamp with device_id=[0, ..., N-1]) then split
their work over them, one process per device.

cutwin is taken as installed, or from the folder `--cutwin-dir` (default: where `import
cutwin` finds it); a folder outside site-packages gets its cutwin-numba.pth read as
site-packages would (a sitecustomize calling site.addsitedir), so the switch under test is
the one an installed package has.
"""
import argparse
import glob
import os
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET

STUMPY_VERSION = "1.14.1"
SELECTION = ["tests/test_gpu_*.py", "tests/test_core.py", "tests/test_non_normalized_decorator.py",
             "tests/test_precision.py"]
WARNINGS = ["-W", "ignore::RuntimeWarning", "-W", "ignore::DeprecationWarning", "-W", "ignore::UserWarning"]


def fetch(python, version, work):
    """stumpy's source tree for `version`, downloaded once into `work`."""
    tree = os.path.join(work, "stumpy-%s" % version)
    if os.path.isdir(os.path.join(tree, "tests")):
        return tree
    archive = os.path.join(work, "stumpy-%s.tar.gz" % version)
    if not os.path.exists(archive):
        subprocess.run([python, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                        "--no-binary", ":all:", "-d", work, "stumpy==%s" % version], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(work, filter="data") if sys.version_info >= (3, 12) else tar.extractall(work)
    return tree


def cutwin_dir(python):
    out = subprocess.run([python, "-c", "import cutwin, os; print(os.path.dirname(os.path.dirname(cutwin.__file__)))"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("conformance/stumpy/run.py: cannot import cutwin: " + out.stderr.strip()[-400:])
    return out.stdout.strip()


def environment(args, work):
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if args.baseline:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
        env.pop("CUTWIN_NUMBA", None)
        return env
    env["CUTWIN_NUMBA"] = "1"
    env["CUTWIN_BACKEND"] = args.backend
    if args.devices:
        env["CUTWIN_SIM_DEVICES"] = str(args.devices)
    folder = args.cutwin_dir or cutwin_dir(args.python)
    import site

    if folder not in site.getsitepackages() + [site.getusersitepackages()]:
        sitedir = os.path.join(work, "site")
        os.makedirs(sitedir, exist_ok=True)
        with open(os.path.join(sitedir, "sitecustomize.py"), "w") as fh:
            fh.write("import site\nsite.addsitedir(%r)  # reads cutwin-numba.pth there\n" % folder)
        env["PYTHONPATH"] = os.pathsep.join([sitedir, folder] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                                                 if p])
    return env


def results(junit):
    """(file, test, outcome, seconds) for each test case of a JUnit XML report."""
    out = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped":
                outcome = "skipped"
        module = case.get("classname", "").split(".")[-1]
        out.append((module + ".py", case.get("name"), outcome, float(case.get("time", 0))))
    return out


def table(rows):
    files = {}
    for f, _, outcome, seconds in rows:
        r = files.setdefault(f, {"passed": 0, "failed": 0, "skipped": 0, "seconds": 0.0})
        r[outcome] += 1
        r["seconds"] += seconds
    lines = ["| file | passed | failed | skipped | seconds |", "|---|---:|---:|---:|---:|"]
    for f in sorted(files):
        r = files[f]
        lines.append("| %s | %d | %d | %d | %.1f |" % (f, r["passed"], r["failed"], r["skipped"], r["seconds"]))
    total = {k: sum(r[k] for r in files.values()) for k in ("passed", "failed", "skipped", "seconds")}
    lines.append("| **total** | **%d** | **%d** | **%d** | **%.1f** |" % (
        total["passed"], total["failed"], total["skipped"], total["seconds"]))
    return "\n".join(lines), total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", default=STUMPY_VERSION)
    ap.add_argument("--work", default=os.path.join(os.getcwd(), "stumpy-suite"))
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--backend", default="sim", choices=("sim", "gpu"))
    ap.add_argument("--cutwin-dir", default=None)
    ap.add_argument("--devices", type=int, default=None, help="simulated devices (CUTWIN_SIM_DEVICES)")
    ap.add_argument("--baseline", action="store_true", help="numba-cuda's own simulator runs the tests (no cutwin)")
    ap.add_argument("--expect", type=int, default=None, help="fail unless this many tests ran and all passed")
    ap.add_argument("--table", default=None)
    ap.add_argument("--records", default=None, help="write each test's outcome and time (TSV) here")
    ap.add_argument("-k", dest="keyword", default="gpu")
    args = ap.parse_args()

    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    tree = fetch(args.python, args.version, work)
    junit = os.path.join(work, "baseline.xml" if args.baseline else "cutwin.xml")
    files = sorted(set(f for pattern in SELECTION for f in glob.glob(os.path.join(tree, pattern))))
    cmd = [args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", args.keyword, "--junitxml", junit] + \
        WARNINGS + [os.path.relpath(f, tree) for f in files]
    start = time.time()
    proc = subprocess.run(cmd, cwd=tree, env=environment(args, work), capture_output=True, text=True)
    elapsed = time.time() - start
    if not os.path.exists(junit):
        print(proc.stdout[-4000:] + proc.stderr[-4000:])
        return 1
    rows = results(junit)
    text, total = table(rows)
    print(text)
    who = "numba-cuda's own simulator" if args.baseline else "cutwin (%s) as numba.cuda" % args.backend
    print("\nstumpy %s GPU tests on %s: %d passed, %d failed, %d skipped in %.1f s"
          % (args.version, who, total["passed"], total["failed"], total["skipped"], elapsed))
    if total["failed"]:
        print("\n".join(line for line in proc.stdout.splitlines() if line.startswith(("FAILED", "ERROR")))[:6000])
    if args.table:
        with open(args.table, "w") as fh:
            fh.write(text + "\n")
    if args.records:
        with open(args.records, "w") as fh:
            fh.write("# seconds %.3f\n" % elapsed)
            for f, name, outcome, seconds in rows:
                fh.write("%s::%s\t%s\t%.3f\n" % (f, name, outcome, seconds))
    if args.expect is not None and (total["passed"] != args.expect or total["failed"] or total["skipped"]):
        print("FAIL: expected %d tests to run and pass; %d passed, %d failed, %d skipped"
              % (args.expect, total["passed"], total["failed"], total["skipped"]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
