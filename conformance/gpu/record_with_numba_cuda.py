#!/usr/bin/env python3
"""Records expected outputs for conformance cases with numba-cuda on a real GPU.

For cases whose semantics are defined by what numba-cuda does on the GPU (e.g. where
NVVM contracts multiply-adds), the expected .npy files are taken from numba-cuda's GPU
output: an oracle recorded on hardware. Run on a machine with a GPU and numba-cuda:

    python3 conformance/gpu/record_with_numba_cuda.py CASE [CASE ...]
"""
import importlib.util
import json
import os
import sys

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda  # noqa: E402

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases")


def record(name):
    d = os.path.join(CASES, name)
    with open(os.path.join(d, "case.json")) as fh:
        c = json.load(fh)
    spec = importlib.util.spec_from_file_location("k_" + name, os.path.join(d, c.get("module", "kernel.py")))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    kernel = getattr(mod, c["kernel"])
    args, arrays = [], {}
    for a in c["args"]:
        if "scalar" in a:
            args.append(np.dtype(a["dtype"]).type(a["scalar"]))
            continue
        if "xoroshiro128p_states" in a:
            from numba.cuda.random import create_xoroshiro128p_states
            arrays[a["name"]] = create_xoroshiro128p_states(a["xoroshiro128p_states"], seed=a.get("seed", 0),
                                                            subsequence_start=a.get("subsequence_start", 0))
            args.append(arrays[a["name"]])
            continue
        host = np.load(os.path.join(d, a["npy"])) if "npy" in a else np.zeros(a["shape"], dtype=a["zeros"])
        arrays[a["name"]] = cuda.to_device(host)
        args.append(arrays[a["name"]])
    kernel[tuple(c["grid"]), tuple(c["block"]), 0, c.get("shared_bytes", 0)](*args)
    cuda.synchronize()
    for out_name, e in c["expect"].items():
        np.save(os.path.join(d, e["npy"]), arrays[out_name].copy_to_host())
    dev = cuda.get_current_device()
    print("%s: recorded %s on %s" % (name, ", ".join(c["expect"]), dev.name.decode() if isinstance(dev.name, bytes) else dev.name))


if __name__ == "__main__":
    for n in sys.argv[1:]:
        record(n)
