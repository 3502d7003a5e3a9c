#!/usr/bin/env python3
"""Writes each conformance case's inputs, expected outputs and case.json.

NumPy is the oracle: every expected output is computed here independently of cutwin,
with NumPy operations that reproduce the kernel's arithmetic in the same order (so that
float results can be compared bit for bit), or with a stated ulp tolerance where the
kernel calls libdevice functions. Run from the repository root:

    python3 conformance/tools/make_case_data.py [case ...]
    python3 conformance/tools/make_case_data.py --check   # regenerate and compare
"""
import filecmp
import os
import sys
import tempfile

import numpy as np

import cases_features
import cases_math
import cases_programs
from case_data import CASES, REGISTRY, write

CASE_MODULES = (cases_features, cases_programs, cases_math)  # each registers its cases on import


def check(names):
    """Regenerates every case into a scratch folder and compares with the committed files."""
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            write(name, REGISTRY[name](), tmp)
            fresh = os.path.join(tmp, name)
            for f in sorted(os.listdir(fresh)):
                if f.startswith("expected_") and REGISTRY[name]().get("recorded_on_gpu"):
                    continue
                committed = os.path.join(CASES, name, f)
                if not os.path.exists(committed) or not filecmp.cmp(os.path.join(fresh, f), committed, shallow=False):
                    print("%s/%s differs from what NumPy computes now" % (name, f))
                    bad += 1
    print("%d cases regenerated, %d files differ" % (len(names), bad))
    return 1 if bad else 0


def main(argv):
    if argv[:1] == ["--check"]:
        return check(argv[1:] or sorted(REGISTRY))
    names = argv or sorted(REGISTRY)
    for name in names:
        write(name, REGISTRY[name]())
        print("wrote", name)
    return 0


if __name__ == "__main__":
    with np.errstate(all="ignore"):
        sys.exit(main(sys.argv[1:]))
