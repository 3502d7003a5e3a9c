#!/usr/bin/env python3
"""Records expected outputs for conformance cases with numba-cuda on a real GPU.

For cases whose semantics are defined by what numba-cuda does on the GPU (e.g. where
NVVM contracts multiply-adds), the expected .npy files are taken from numba-cuda's GPU
output: an oracle recorded on hardware. Run on a machine with a GPU and numba-cuda:

    python3 conformance/gpu/record_with_numba_cuda.py CASE [CASE ...]
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from numba_case import NumbaCase  # noqa: E402
from numba import cuda  # noqa: E402

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases")


def record(name):
    d = os.path.join(CASES, name)
    case = NumbaCase(d)
    case.launch()
    for out_name, e in case.spec["expect"].items():
        np.save(os.path.join(d, e["npy"]), case.arrays[out_name].copy_to_host())
    dev = cuda.get_current_device()
    print("%s: recorded %s on %s" % (name, ", ".join(case.spec["expect"]), dev.name.decode() if isinstance(dev.name, bytes) else dev.name))


if __name__ == "__main__":
    for n in sys.argv[1:]:
        record(n)
