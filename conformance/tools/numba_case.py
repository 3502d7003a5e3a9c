"""A conformance case prepared for numba-cuda (its CUDA simulator or a real GPU): the
case's description, its kernel imported from the case folder, and its arguments as numba
device arrays. Shared by check_with_numba_sim.py and gpu/record_with_numba_cuda.py."""
import contextlib
import importlib.util
import json
import os

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still refers to it
    np.row_stack = np.vstack

from numba import cuda  # noqa: E402


@contextlib.contextmanager
def _working_directory(path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


class NumbaCase:
    def __init__(self, case_dir):
        self.dir = case_dir
        with open(os.path.join(case_dir, "case.json")) as fh:
            self.spec = json.load(fh)
        c = self.spec
        module = importlib.util.spec_from_file_location("case_kernel_" + os.path.basename(case_dir),
                                                        os.path.join(case_dir, c.get("module", "kernel.py")))
        mod = importlib.util.module_from_spec(module)
        module.loader.exec_module(mod)
        self.kernel = getattr(mod, c["kernel"])
        self.args, self.arrays = [], {}
        for a in c["args"]:
            if "scalar" in a:
                self.args.append(np.dtype(a["dtype"]).type(a["scalar"]))
                continue
            if "xoroshiro128p_states" in a:
                from numba.cuda.random import create_xoroshiro128p_states
                d = create_xoroshiro128p_states(a["xoroshiro128p_states"], seed=a.get("seed", 0),
                                                subsequence_start=a.get("subsequence_start", 0))
            else:
                host = (np.load(os.path.join(case_dir, a["npy"])) if "npy" in a
                        else np.zeros(a["shape"], dtype=a["zeros"]))
                d = cuda.to_device(host)
            self.arrays[a["name"]] = d
            self.args.append(d)

    def launch(self):
        """Runs the kernel once; link=[...] paths in the kernel are relative to the case."""
        c = self.spec
        with _working_directory(self.dir):
            self.kernel[tuple(c["grid"]), tuple(c["block"]), 0, c.get("shared_bytes", 0)](*self.args)
            cuda.synchronize()
