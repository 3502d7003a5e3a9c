#!/usr/bin/env python3
"""Python launch overhead and first calls, cutwin against numba-cuda and numba-cuda-mlir in
the same run (each where installed, each in its own process, the same kernel files; only
the import differs). Prints Markdown.

- launch: host time per launch of an empty kernel (bursts of 256 launches, synchronised
  between bursts outside the timing) with no arguments; 1 and 4 arrays of the
  implementation's own; 1 and 4 foreign arrays (CuPy and PyTorch where installed on a GPU:
  cutwin reads their CUDA Array Interface, numba-cuda 0.30 their DLPack export; on the
  simulator NumPy memory through a CUDA Array Interface property and through DLPack, the
  producers the simulator can use); 16 and 256 scalars;
- first call (compile + load + launch + synchronise) of vadd, the tiled matmul and the
  block sum, and a warm compile: the first call of another kernel in the same process;
- kernel time (GPU only, CUDA events): vadd over 64M float32, the tiled matmul 2048²,
  the block sum over 64M, `cuda.reduce` over 64M.

    python bench/python_launch.py [--backend gpu|sim] [--numba gpu|sim|none] [--mlir auto|none]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAUNCH_KERNELS = os.path.join(ROOT, "bench", "kernels", "launch_args.py")
BURST = 256
FIRST_CALL = [("vadd", "conformance/cases/vadd/kernel.py"), ("matmul_tiled", "conformance/cases/matmul_tiled/kernel.py"),
              ("block_sum", "conformance/cases/block_sum/kernel.py")]
IMPORTS = {"cutwin": "from cutwin import cuda", "numba": "from numba import cuda",
           "mlir": "from numba_cuda_mlir import cuda"}
MODULES = {"cutwin": "cutwin", "numba": "numba", "mlir": "numba_cuda_mlir"}
sys.path.insert(0, os.path.join(ROOT, "conformance", "tools"))
from retarget import retarget  # noqa: E402


def load_as(path, impl, tmpdir, name=None):
    """Imports a kernel file with its `from numba import cuda` pointing at `impl`."""
    import importlib.util
    src = open(os.path.join(ROOT, path) if not os.path.isabs(path) else path).read()
    src = retarget(src, MODULES[impl])
    name = name or "k_%s_%s" % (impl, os.path.basename(os.path.dirname(path)) or "x")
    fname = os.path.join(tmpdir, name + ".py")
    with open(fname, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location(name, fname)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def scalar_kernels(impl, tmpdir):
    """Empty kernels of 16 and 256 scalar parameters."""
    lines = [IMPORTS[impl], ""]
    for n in (16, 256):
        lines += ["@cuda.jit", "def scalars%d(%s):" % (n, ", ".join("x%d" % i for i in range(n))), "    pass", ""]
    path = os.path.join(tmpdir, "scalars_%s.py" % impl)
    with open(path, "w") as fh:
        fh.write("\n".join(lines))
    return load_as(path, impl, tmpdir, "scalars_" + impl)


class HostInterface:
    """NumPy memory through a CUDA Array Interface property (the simulator's producers)."""

    def __init__(self, a):
        self._a = a
        self._desc = {"shape": a.shape, "strides": None, "typestr": a.dtype.str, "data": (a.ctypes.data, False),
                      "version": 3, "stream": None}

    @property
    def __cuda_array_interface__(self):
        return self._desc


def foreign_arrays(impl, backend, np):
    """name -> 4 foreign arrays of 16 float32, for the producers this machine has."""
    out = {}
    if backend == "sim":
        out["NumPy memory, interface"] = [HostInterface(np.zeros(16, np.float32)) for _ in range(4)]
        if impl == "cutwin":  # (numba's simulator takes no DLPack producers)
            out["NumPy memory, DLPack"] = [type("Dl", (), {"__dlpack__": lambda s, **k: s.a.__dlpack__(**k),
                                                           "__dlpack_device__": lambda s: (1, 0), "a": a})()
                                           for a in [np.zeros(16, np.float32) for _ in range(4)]]
        return out
    try:
        import cupy
        out["CuPy"] = [cupy.zeros(16, cupy.float32) for _ in range(4)]
    except Exception:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            out["PyTorch"] = [torch.zeros(16, dtype=torch.float32, device="cuda") for _ in range(4)]
    except Exception:
        pass
    return out


def per_launch(cuda, kernel, args, n):
    kernel[1, 32](*args)
    cuda.synchronize()
    # Host time per launch: bursts of BURST launches (fewer than the GPU's launch queue
    # holds, so the host never waits for the GPU), synchronised between bursts outside the timing.
    spent, launches = 0.0, 0
    while launches < n:
        t0 = time.perf_counter()
        for _ in range(BURST):
            kernel[1, 32](*args)
        spent += time.perf_counter() - t0
        launches += BURST
        cuda.synchronize()
    return spent * 1e6 / launches


def kernel_times(cuda, np, impl, tmp):
    """Milliseconds per kernel on the GPU (CUDA events, median of 10)."""
    out = {}
    vadd = load_as(FIRST_CALL[0][1], impl, tmp).vadd
    mm = load_as(FIRST_CALL[1][1], impl, tmp).matmul_tiled
    bs = load_as(FIRST_CALL[2][1], impl, tmp).block_sum
    n = 64 << 20
    a, b, c = (cuda.to_device(np.ones(n, np.float32)) for _ in range(3))
    m = 2048
    ma, mb, mc = (cuda.to_device(np.ones((m, m), np.float32)) for _ in range(3))
    partial = cuda.device_array(n // 256, np.float32)
    runs = {"vadd 64M": lambda: vadd[n // 256, 256](a, b, c),
            "tiled matmul 2048": lambda: mm[(m // 16, m // 16), (16, 16)](ma, mb, mc),
            "block sum 64M": lambda: bs[n // 256, 256](a, partial)}
    if hasattr(cuda, "reduce"):
        total = cuda.reduce(lambda x, y: x + y)
        res = cuda.device_array(1, np.float32)
        runs["reduce 64M (into a device array)"] = lambda: total(a, res=res)
    for name, fn in runs.items():
        fn()
        cuda.synchronize()
        times = []
        for _ in range(10):
            start, end = cuda.event(), cuda.event()
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(cuda.event_elapsed_time(start, end))
        out[name] = sorted(times)[len(times) // 2]
    return out


def worker(impl, n, backend):
    import numpy as np
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # numba-cuda 0.30 refers to it
    exec(IMPORTS[impl], globals())
    out = {"impl": impl, "launch": {}, "first": {}}
    with tempfile.TemporaryDirectory() as tmp:
        # First calls before anything else has compiled in this process (the launch rows
        # compile their kernels), then a warm compile: another kernel's first call.
        for name, path in FIRST_CALL + [("vadd_two", "conformance/cases/vadd_two/kernel.py")]:
            kernel = getattr(load_as(path, impl, tmp, "first_%s_%s" % (impl, name)), name)
            if name == "matmul_tiled":
                args = [cuda.to_device(np.ones((64, 64), np.float32)) for _ in range(3)]  # noqa: F821
                grid, block = (4, 4), (16, 16)
            elif name == "block_sum":
                args = [cuda.to_device(np.ones(4096, np.float32)), cuda.device_array(16, np.float32)]  # noqa: F821
                grid, block = 16, 256
            else:
                args = [cuda.to_device(np.ones(4096, np.float32)) for _ in range(3)]  # noqa: F821
                grid, block = 16, 256
            t0 = time.perf_counter()
            kernel[grid, block](*args)
            cuda.synchronize()  # noqa: F821
            key = "first call: " + name if len(out["first"]) < len(FIRST_CALL) else "warm compile (another kernel)"
            out["first"][key] = (time.perf_counter() - t0) * 1e3
        k = load_as(LAUNCH_KERNELS, impl, tmp)
        own = [cuda.to_device(np.zeros(16, np.float32)) for _ in range(4)]  # noqa: F821 (exec)
        rows = [("no arguments", k.empty0, []), ("1 own array", k.empty1, own[:1]), ("4 own arrays", k.empty4, own)]
        for producer, arrays in foreign_arrays(impl, backend, np).items():
            rows += [("1 %s array" % producer, k.empty1, arrays[:1]), ("4 %s arrays" % producer, k.empty4, arrays)]
        s = scalar_kernels(impl, tmp)
        rows += [("16 scalars", s.scalars16, [np.float32(i) for i in range(16)]),
                 ("256 scalars", s.scalars256, [np.float32(i) for i in range(256)])]
        for what, kernel, args in rows:
            try:
                out["launch"][what] = per_launch(cuda, kernel, args, n)  # noqa: F821
            except Exception as e:  # an implementation without that path: say so
                out["launch"][what] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:60])
        if backend == "gpu":
            out["kernel"] = kernel_times(cuda, np, impl, tmp)  # noqa: F821
    print(json.dumps(out))


def run(impl, env, n, backend):
    r = subprocess.run([sys.executable, "-W", "ignore", __file__, "--worker", impl, "--n", str(n), "--backend",
                        backend], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        print("(%s did not run: %s)" % (impl, (r.stderr.strip().splitlines() or ["?"])[-1][:160]), file=sys.stderr)
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backend", default="gpu", help="cutwin's backend: gpu or sim")
    p.add_argument("--numba", default="gpu", help="numba-cuda's target: gpu, sim (its simulator) or none")
    p.add_argument("--mlir", default="auto", help="numba-cuda-mlir: auto (where it imports) or none")
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--worker")
    a = p.parse_args()
    if a.worker:
        return worker(a.worker, a.n, a.backend)
    # the first call compiles: the kernel cache on disk stays out (CUTWIN_CACHE=0)
    results = [("cutwin (%s)" % a.backend, run("cutwin", dict(os.environ, CUTWIN_BACKEND=a.backend, CUTWIN_CACHE="0"),
                                                a.n, a.backend))]
    if a.numba != "none":
        env = dict(os.environ)
        if a.numba == "sim":
            env["NUMBA_ENABLE_CUDASIM"] = "1"
        results.append(("numba-cuda (%s)" % a.numba,
                        run("numba", env, max(1, a.n // (100 if a.numba == "sim" else 1)), a.numba)))
    if a.mlir != "none" and a.backend == "gpu":
        results.append(("numba-cuda-mlir", run("mlir", dict(os.environ), a.n, "gpu")))
    results = [(name, r) for name, r in results if r is not None]
    print("| measure | " + " | ".join(name for name, _ in results) + " |")
    print("|---|" + "---:|" * len(results))
    for section, unit, fmt in (("launch", "µs", "%.1f"), ("first", "ms", "%.0f"), ("kernel", "ms", "%.3f")):
        keys = [k for _, r in results for k in r.get(section, {})]
        for key in dict.fromkeys(keys):
            cells = []
            for _, r in results:
                v = r.get(section, {}).get(key)
                cells.append("-" if v is None else v if isinstance(v, str) else (fmt % v) + " " + unit)
            label = ("launch, " if section == "launch" else "kernel, " if section == "kernel" else "") + key
            print("| %s | %s |" % (label, " | ".join(cells)))


if __name__ == "__main__":
    main()
