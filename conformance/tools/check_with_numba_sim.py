#!/usr/bin/env python3
"""Cross-checks the conformance cases with numba-cuda, an independent implementation:
each case's kernel.py is run by numba-cuda (its CUDA simulator with
NUMBA_ENABLE_CUDASIM=1, or a real GPU) on the case's inputs, and the results are compared
with the expected outputs under the case's tolerance. Error cases are checked for the
exception numba raises where it has one (IndexError); numba's simulator cannot detect
barrier divergence, so that case is reported as not comparable.

    NUMBA_ENABLE_CUDASIM=1 python3 conformance/tools/check_with_numba_sim.py
"""
import json
import os
import sys

import numpy as np

from numba_case import NumbaCase

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases")


def ulp_distance(a, b):
    if a.dtype == np.float32:
        ia, ib = a.view(np.int32).astype(np.int64), b.view(np.int32).astype(np.int64)
        ia = np.where(ia < 0, -2**31 - ia, ia)
        ib = np.where(ib < 0, -2**31 - ib, ib)
    else:
        ia, ib = a.view(np.int64).astype(object), b.view(np.int64).astype(object)
        ia = np.array([-2**63 - v if v < 0 else v for v in ia], dtype=object)
        ib = np.array([-2**63 - v if v < 0 else v for v in ib], dtype=object)
    d = np.abs(ia - ib)
    both_nan = np.isnan(a) & np.isnan(b)
    return np.where(both_nan, 0, d)


def row_digests(a, any_nan=False):
    """FNV-1a (64 bits) of each row's bytes, as conformance/runner.cpp computes them; with
    any_nan ("nans": "any") every NaN hashed as one pattern."""
    a = np.ascontiguousarray(a)
    if any_nan and a.dtype.kind in "fc":
        parts = a.view(np.float32 if a.dtype in (np.float32, np.complex64) else np.float64).copy()
        parts[np.isnan(parts)] = np.frombuffer(b"\xff" * (parts.itemsize - 1) + b"\x7f", parts.dtype)[0]
        a = parts.view(a.dtype)
    out = []
    for row in a.reshape(a.shape[0], -1):
        h = 0xcbf29ce484222325
        for byte in row.tobytes():
            h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
        out.append("%016x" % h)
    return out


def simulator():
    return os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def run_case(case_dir):
    try:
        case = NumbaCase(case_dir)
    except Exception as e:  # numba-cuda-mlir cannot stand in for numba.cuda's own modules
        if type(e).__name__ == "NotRetargetable":
            return "not comparable (%s)" % e
        raise
    c, arrays = case.spec, case.arrays
    if "expect_error" in c:
        kind = c["expect_error"]["kind"]
        if kind != "IndexOutOfBounds":
            return "not comparable (numba cannot detect %s)" % kind
        if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
            return "not comparable (numba-cuda does no bounds checking on the GPU)"
        try:
            case.launch()
        except IndexError as e:
            return "ok: numba raised IndexError (%s)" % str(e).splitlines()[0][:60]
        raise AssertionError("numba raised no IndexError")
    digests = any("row_digests" in spec for spec in c["expect"].values())
    if digests and os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return "not comparable (digests of libdevice results; numba's simulator uses Python's libm)"
    case.launch()
    notes, failures = [], []
    for name, spec in c["expect"].items():
        got = arrays[name].copy_to_host()
        if "row_digests" in spec:
            mine = row_digests(got, spec.get("nans") == "any")
            if os.environ.get("CUTWIN_PRINT_DIGESTS") == "1":
                print("digests %s: %s" % (name, ", ".join('"%s"' % d for d in mine)))
            bad = [i for i, (a, b) in enumerate(zip(mine, spec["row_digests"])) if a != b]
            # rows documented to differ from numba-cuda on the GPU (known_differences["numba-cuda"])
            known = spec.get("known_differences", {}).get("numba-cuda", {}) if not simulator() else {}
            known_rows = set(known.get("rows", []))
            unexpected = [i for i in bad if spec["rows"][i] not in known_rows]
            if unexpected:
                failures.append("%s: rows %s differ (%s)" % (name, unexpected,
                                                            ", ".join(spec["rows"][i] for i in unexpected)))
            elif bad:
                notes.append("%s bit-exact by digest but rows %s (known: %s)" % (
                    name, ", ".join(spec["rows"][i] for i in bad), known["why"][:60]))
            else:
                notes.append("%s bit-exact by digest" % name)
            continue
        want = np.load(os.path.join(case_dir, spec["npy"]))
        if got.dtype.kind in "fc" and ("rtol" in spec or "atol" in spec):
            if not np.allclose(got, want, rtol=spec.get("rtol", 0), atol=spec.get("atol", 0), equal_nan=True):
                raise AssertionError("%s: outside rtol %g, atol %g" % (name, spec.get("rtol", 0), spec.get("atol", 0)))
            notes.append("%s within tolerance" % name)
        elif got.dtype.kind == "f" and spec.get("max_ulp", 0):
            worst = int(np.max(ulp_distance(got.ravel(), want.ravel())))
            if worst > spec["max_ulp"]:
                raise AssertionError("%s: %d ulp > %d" % (name, worst, spec["max_ulp"]))
            notes.append("%s within %d ulp" % (name, worst))
        else:
            same = (got.view(np.uint8) == want.view(np.uint8)).all() if got.shape == want.shape else False
            if not same:
                bad = np.argwhere(got != want)[:1]
                raise AssertionError("%s differs, first at %s: %r vs %r" % (
                    name, bad.tolist(), got[tuple(bad[0])] if len(bad) else None,
                    want[tuple(bad[0])] if len(bad) else None))
            notes.append("%s bit-exact" % name)
    if failures:  # every output's digests printed before the case fails
        raise AssertionError("; ".join(failures))
    return "ok: " + ", ".join(notes)


def main(argv):
    cases = CASES
    if argv[:1] == ["--cases"]:  # another folder of cases
        cases, argv = argv[1], argv[2:]
    names = argv or sorted(d for d in os.listdir(cases) if os.path.exists(os.path.join(cases, d, "case.json")))
    failed = 0
    for name in names:
        case_dir = os.path.join(cases, name)
        with open(os.path.join(case_dir, "case.json")) as fh:
            spec = json.load(fh)
        simulator = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
        known = spec.get("numba_sim_difference" if simulator else "numba_difference")
        try:
            result = run_case(case_dir)
        except Exception as e:  # report and continue
            if known:
                result = "known %sdifference (%s: %s): %s" % ("simulator " if simulator else "", type(e).__name__,
                                                            str(e)[:60], known)
            else:
                result = "FAIL: %s: %s" % (type(e).__name__, e)
                failed += 1
        print("%-22s %s" % (name, result))
    print("%d cases, %d failed" % (len(names), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
