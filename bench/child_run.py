"""Runs a benchmark's child program in its own Python process (cutwin and numba-cuda never
share one) and returns the JSON object its last line prints. The program is written to a
file first: kernels and reductions compile from their source, which `python -c` lacks."""
import json
import os
import subprocess
import sys
import tempfile


def run_child(source, *args, timeout=600):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(source)
    try:
        out = subprocess.run([sys.executable, "-W", "ignore", fh.name] + [str(a) for a in args],
                             capture_output=True, text=True, timeout=timeout)
    finally:
        os.unlink(fh.name)
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])
