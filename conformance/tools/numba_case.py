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

# CUTWIN_ORACLE=mlir: numba-cuda-mlir replays the cases instead of numba-cuda (the kernel
# files' `from numba import cuda` then names numba_cuda_mlir's).
ORACLE = os.environ.get("CUTWIN_ORACLE", "numba")
if ORACLE == "mlir":
    from numba_cuda_mlir import cuda  # noqa: E402
else:
    from numba import cuda  # noqa: E402


@contextlib.contextmanager
def _working_directory(path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def _host_array(case_dir, a):
    return np.load(os.path.join(case_dir, a["npy"])) if "npy" in a else np.zeros(a["shape"], dtype=a["zeros"])


class NumbaCase:
    def __init__(self, case_dir):
        self.dir = case_dir
        with open(os.path.join(case_dir, "case.json")) as fh:
            self.spec = json.load(fh)
        c = self.spec
        path = os.path.join(case_dir, c.get("module", "kernel.py"))
        module = importlib.util.spec_from_file_location("case_kernel_" + os.path.basename(case_dir), path)
        mod = importlib.util.module_from_spec(module)
        if ORACLE == "mlir":
            from retarget import retarget  # raises NotRetargetable for numba.cuda's own modules

            with open(path) as fh:
                source = retarget(fh.read(), "numba_cuda_mlir")
            mod.__file__ = path
            with _working_directory(case_dir):
                exec(compile(source, path, "exec"), mod.__dict__)
            assert mod.cuda is cuda, "the case's kernels must be numba-cuda-mlir's"
        else:
            module.loader.exec_module(mod)
        self.module = mod
        self.args, self.arrays = [], {}
        if "steps" in c:  # several devices; case k runs on device k modulo those there are
            for name, a in c["arrays"].items():
                with self._device(a["device"]):
                    self.arrays[name] = cuda.to_device(_host_array(case_dir, a))
            return
        self.kernel = getattr(mod, c["kernel"])
        for a in c["args"]:
            if "scalar" in a:
                self.args.append(np.dtype(a["dtype"]).type(a["scalar"]))
                continue
            if "xoroshiro128p_states" in a:
                from numba.cuda.random import create_xoroshiro128p_states
                d = create_xoroshiro128p_states(a["xoroshiro128p_states"], seed=a.get("seed", 0),
                                                subsequence_start=a.get("subsequence_start", 0))
            else:
                d = cuda.to_device(_host_array(case_dir, a))
            self.arrays[a["name"]] = d
            self.args.append(d)

    def launch(self):
        """Runs the kernel once; link=[...] paths in the kernel are relative to the case."""
        c = self.spec
        if "steps" in c:
            return self._run_steps()
        with _working_directory(self.dir):
            self.kernel[tuple(c["grid"]), tuple(c["block"]), 0, c.get("shared_bytes", 0)](*self.args)
            cuda.synchronize()

    @staticmethod
    def _device(k):
        return cuda.gpus[k % len(cuda.gpus)]

    def _run_steps(self):
        """A case of several devices: its launches, each on its device, and its copies of an
        array into a stretch of another (peer copies)."""
        for step in self.spec["steps"]:
            if "copy" in step:
                src = self.arrays[step["from"]]
                dst = self.arrays[step["copy"]].reshape(-1)
                dst[step.get("offset", 0):step.get("offset", 0) + src.size].copy_to_device(src)
                continue
            args = [self.arrays[a] if isinstance(a, str) else np.dtype(a["dtype"]).type(a["scalar"])
                    for a in step["args"]]
            with self._device(step["device"]):
                getattr(self.module, step["kernel"])[tuple(step["grid"]), tuple(step["block"]), 0,
                                                     step.get("shared_bytes", 0)](*args)
                cuda.synchronize()
