"""pytest plugin for running numba-cuda's cudapy tests against cutwin (see run.py).

Makes numba.cuda cutwin's (selection.py) before any test module is imported, provides the one fixture of
numba-cuda's (unshipped) conftest that its test classes use, deselects the tests listed in
excluded.txt, and writes every test's outcome to the file named by --numba-suite-report.
"""
import faulthandler
import json
import os
import re

import pytest

import selection

HERE = os.path.dirname(os.path.abspath(__file__))


def pytest_addoption(parser):
    group = parser.getgroup("numba-suite")
    group.addoption("--numba-selection", choices=("sim", "gpu"), default="sim",
                    help="sim: select and skip tests as numba-cuda does on its simulator; gpu: as on a GPU")
    group.addoption("--numba-suite-report", default=None, help="write outcomes (JSON lines) here")
    group.addoption("--numba-own-simulator", action="store_true",
                    help="no switch: numba-cuda's own simulator runs the tests (the baseline)")
    parser.addoption("--dump-failed-filechecks", action="store_true", help="(numba-cuda's option; unused)")


def excluded_tests():
    """node id -> reason, from excluded.txt: a comment block gives the reason for the
    entries after it; an entry is a file (all of it) or `<file>::<class>::<test>`."""
    out, reason, in_comment = {}, [], False
    with open(os.path.join(HERE, "excluded.txt")) as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                reason = (reason if in_comment else []) + [line.lstrip("# ")]
                in_comment = True
                continue
            in_comment = False
            out[line] = " ".join(reason)
    return out


def pytest_configure(config):
    if config.getoption("--numba-own-simulator"):
        assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "the baseline runs under NUMBA_ENABLE_CUDASIM=1"
        import numpy as np

        if not hasattr(np, "row_stack"):  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it
            np.row_stack = np.vstack
        import numba.cuda  # noqa: F401  before collection puts test folders on sys.path
    else:
        selection.switch(config.getoption("--numba-selection"))
    config._numba_excluded = excluded_tests()
    config._numba_outcomes = {}
    path = config.getoption("--numba-suite-report")
    config._numba_report = open(path, "w") if path else None


def _excluded_reason(config, nodeid):
    rel = nodeid.split("cudapy/")[-1]
    for key, reason in config._numba_excluded.items():
        if rel == key or rel.startswith(key + "::"):
            return reason
    return None


def pytest_ignore_collect(collection_path, config):
    # A whole excluded file is not even imported (its imports are numba's internals).
    if collection_path.name in config._numba_excluded:
        _write(config, collection_path.name + "::<file>", "excluded", config._numba_excluded[collection_path.name])
        return True
    return None


def pytest_collection_modifyitems(config, items):
    keep, dropped = [], []
    for item in items:
        module = getattr(item, "module", None)
        if getattr(module, "FUTURE_TIMEOUT", None) is not None:
            # test_ipc waits 4 s for a spawned worker, its start (Python, numba, the package)
            # included: a tolerance for numba's machines that a loaded 2-core CI runner
            # can miss. The worker's result is checked as before.
            module.FUTURE_TIMEOUT = 120
        (dropped if _excluded_reason(config, item.nodeid) is not None else keep).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
        for item in dropped:
            _write(config, item.nodeid, "excluded")


def _write(config, nodeid, outcome, message=""):
    if config._numba_report:
        rel = nodeid.split("cudapy/")[-1]
        config._numba_report.write(json.dumps({"test": rel, "outcome": outcome, "message": message}) + "\n")
        config._numba_report.flush()


def pytest_runtest_logreport(report):
    """Folds a test's reports (setup, call, teardown, and each subtest's) into one outcome:
    failed if any failed, else skipped if it was skipped, else passed."""
    config = pytest_runtest_logreport.config
    state = config._numba_outcomes.setdefault(report.nodeid, ["passed", ""])
    if report.outcome == "failed":
        if state[0] != "failed":
            state[:] = ["failed", _short(report.longreprtext)]
    elif report.outcome == "skipped" and state[0] == "passed":
        reason = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else ""
        state[:] = ["skipped", reason]


def pytest_collectreport(report):
    if report.outcome == "failed":
        _write(pytest_runtest_logreport.config, report.nodeid + "::<collection>", "failed",
               _short(report.longreprtext))


def pytest_runtest_logstart(nodeid, location):
    # A test that hangs (or crashes the process) is known by its "started" record; a hang
    # ends the process after CUTWIN_NUMBA_TEST_TIMEOUT seconds, and run.py goes on after it.
    _write(pytest_runtest_logreport.config, nodeid, "started")
    timeout = int(os.environ.get("CUTWIN_NUMBA_TEST_TIMEOUT", "0"))
    if timeout:
        faulthandler.dump_traceback_later(timeout, exit=True)


def pytest_runtest_logfinish(nodeid, location):
    faulthandler.cancel_dump_traceback_later()
    config = pytest_runtest_logreport.config
    outcome, message = config._numba_outcomes.pop(nodeid, ["failed", "no report"])
    _write(config, nodeid, outcome, message)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    pytest_runtest_logreport.config = session.config


def _short(text):
    """The last exception of a failure report with the lines of its message (joined by " | ")."""
    lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    named = [i for i, ln in enumerate(lines) if re.match(r"[\w.]*(Error|Exception|Exit|Interrupt)\b", ln)]
    if named:
        best = " | ".join(ln for ln in lines[named[-1]:] if ln)
    else:
        best = lines[-1] if lines else text.strip().splitlines()[-1] if text.strip() else ""
    return best[:300]


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    request.cls._dump_failed_filechecks = False
