#!/usr/bin/env python3
"""Runs numba-cuda's own kernel tests (numba/cuda/tests/cudapy, shipped in its wheel)
against cutwin, with `numba.cuda` as cutwin (the package's switch, cutwin/as_numba.py,
through selection.py), and prints a
per-file table of passed / failed / skipped / excluded tests.

    python conformance/numba_suite/run.py [--selection sim|gpu] [--backend sim|gpu]
        [--devices N] [--floor N] [--table FILE] [--jobs N] [--timeout S] [FILE_PATTERN ...]

--selection sim selects and skips tests as numba-cuda does under its own simulator (the
selection numba's simulator is measured on); gpu as on a GPU. --backend picks cutwin's
backend (CUTWIN_BACKEND). Each test file runs in its own pytest process; a test that runs
past --timeout seconds is recorded as a timeout and the rest of its file runs on. With
--floor, the exit status is 1 if fewer than N tests pass. --devices N runs the simulator
with N devices (CUTWIN_SIM_DEVICES), for the tests that need several. A pattern with a
folder (cudadrv/test_context_stack.py) names a file of another folder of numba-cuda's
tests.
"""
import argparse
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))


def suite_dir(python):
    """numba-cuda's tests folder (numba/cuda/tests: cudapy, cudadrv, ...)."""
    out = subprocess.run([python, "-c", "import numba_cuda, os; print(os.path.dirname(numba_cuda.__file__))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return os.path.join(out, "numba", "cuda", "tests")


def run_file(python, path, args, env):
    """Runs one test file; returns its outcome records. Restarts after a timeout (the
    test that hung is recorded as one) until every test of the file has run."""
    records, done = [], set()
    for _attempt in range(50):
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as rep:
            report = rep.name
        cmd = [python, "-X", "faulthandler", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "plugin"] + \
              (["--numba-own-simulator"] if args.numba_own_simulator else []) + [
               "--import-mode=importlib", "--numba-selection", args.selection, "--numba-suite-report", report,
               "--rootdir", os.path.dirname(path), path]
        for test in sorted(done):
            cmd += ["--deselect", os.path.join(os.path.dirname(path), test)]
        test_env = dict(env, CUTWIN_NUMBA_TEST_TIMEOUT=str(args.timeout))
        try:
            proc = subprocess.run(cmd, env=test_env, capture_output=True, text=True,
                                  timeout=args.timeout * 20 + 300)
            status, output = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as e:
            status, output = "timeout", (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) \
                else (e.stdout or "")
        started = None
        with open(report) as fh:
            for line in fh:
                rec = json.loads(line)
                if rec["outcome"] == "started":
                    started = rec["test"]
                    continue
                if rec["test"] not in done or rec["outcome"] != "excluded":
                    records.append(rec)
                done.add(rec["test"])
                if rec["test"] == started:
                    started = None
        os.unlink(report)
        if started is None:
            if status not in (0, 1, 5) and not records:
                records.append({"test": os.path.basename(path) + "::<file>", "outcome": "failed",
                                "message": "pytest exited with status %s: %s" % (status, output.strip()[-300:])})
            return records
        # The process died in `started` (a timeout, or a crash): record it, go on after it.
        why = "timeout (%d s)" % args.timeout if "Timeout" in output or status == "timeout" else \
            "process died (status %s)" % status
        records.append({"test": started, "outcome": "failed", "message": why})
        done.add(started)
    return records


def excluded_files():
    """file -> reason, for the files excluded.txt excludes whole (numba-internal tests)."""
    sys.path.insert(0, HERE)
    from plugin import excluded_tests

    return {k: v for k, v in excluded_tests().items() if k.endswith(".py")}


def table(records):
    files = {}
    for r in records:
        f = r["test"].split("::")[0]
        row = files.setdefault(f, {"passed": 0, "failed": 0, "skipped": 0, "excluded": 0})
        row[r["outcome"] if r["outcome"] in row else "failed"] += 1
    total = {k: sum(r[k] for r in files.values()) for k in ("passed", "failed", "skipped", "excluded")}
    lines = ["| file | passed | failed | skipped | excluded |", "|---|---:|---:|---:|---:|"]
    for f in sorted(files):
        r = files[f]
        lines.append("| %s | %d | %d | %d | %d |" % (f, r["passed"], r["failed"], r["skipped"], r["excluded"]))
    lines.append("| **total** | **%d** | **%d** | **%d** | **%d** |" % (
        total["passed"], total["failed"], total["skipped"], total["excluded"]))
    return "\n".join(lines), total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--selection", choices=("sim", "gpu"), default="sim")
    ap.add_argument("--backend", choices=("sim", "gpu"), default="sim")
    ap.add_argument("--floor", type=int, default=None)
    ap.add_argument("--devices", type=int, default=None, help="simulated devices (CUTWIN_SIM_DEVICES)")
    ap.add_argument("--table", default=None, help="also write the table (Markdown) here")
    ap.add_argument("--records", default=None, help="write every test's outcome (JSON lines) here")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=120, help="seconds a test may run")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--numba-own-simulator", action="store_true",
                    help="the baseline: numba-cuda's own Python simulator runs the tests (no cutwin)")
    ap.add_argument("patterns", nargs="*", help="test file name patterns (default: test_*.py)")
    args = ap.parse_args()

    root = suite_dir(args.python)
    tests = os.path.join(root, "cudapy")
    files = sorted(f for f in os.listdir(tests) if f.startswith("test_") and f.endswith(".py"))
    if args.patterns:
        files = [f for f in files if any(fnmatch.fnmatch(f, p) or p in f for p in args.patterns if "/" not in p)]
        files += sorted(os.path.relpath(os.path.join(root, p), tests) for p in args.patterns if "/" in p)
    env = dict(os.environ)
    if args.devices:
        env["CUTWIN_SIM_DEVICES"] = str(args.devices)
    env["PYTHONPATH"] = os.pathsep.join([HERE] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["CUTWIN_BACKEND"] = args.backend
    env.pop("NUMBA_ENABLE_CUDASIM", None)  # numba-cuda's own simulator must not load
    if args.numba_own_simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
        args.selection = "sim"
    excluded = excluded_files()
    start = time.time()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda f: run_file(args.python, os.path.join(tests, f), args, env),
                                [f for f in files if f not in excluded]))
    records = [{"test": f + "::<file>", "outcome": "excluded", "message": excluded[f]} for f in files if f in excluded]
    records += list({r["test"]: r for rs in results for r in rs}.values())
    text, total = table(records)
    print(text)
    who = "numba-cuda's own simulator" if args.numba_own_simulator else "cutwin backend %s" % args.backend
    print("\nnumba-cuda %s selection, %s: %d passed, %d failed, %d skipped, %d excluded (%.0f s)"
          % (args.selection, who, total["passed"], total["failed"], total["skipped"], total["excluded"],
             time.time() - start))
    if args.table:
        with open(args.table, "w") as fh:
            fh.write(text + "\n")
    if args.records:
        with open(args.records, "w") as fh:
            for r in records:
                fh.write(json.dumps(r) + "\n")
    if args.floor is not None and total["passed"] < args.floor:
        print("FAIL: %d tests passed, below the floor of %d" % (total["passed"], args.floor))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
