#!/usr/bin/env python3
"""Python launch overhead, cutwin against numba-cuda in the same run: the host time per
launch of an empty kernel with 0, 1 and 4 device-array arguments (bursts of 256 launches,
synchronised between bursts outside the timing), and the first call (compile + load +
launch + synchronise) of a few kernels. Each implementation runs
in its own process (the same kernel files; only the import differs). Prints Markdown.

    python bench/python_launch.py [--backend gpu|sim] [--numba gpu|sim|none]
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


def load_as(path, impl, tmpdir):
    """Imports a kernel file with its `from numba import cuda` pointing at `impl`."""
    import importlib.util
    src = open(os.path.join(ROOT, path) if not os.path.isabs(path) else path).read()
    if impl == "cutwin":
        src = src.replace("from numba import cuda", "from cutwin import cuda")
    name = "k_%s_%s" % (impl, os.path.basename(os.path.dirname(path)) or "x")
    fname = os.path.join(tmpdir, name + ".py")
    with open(fname, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location(name, fname)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def worker(impl, n):
    import numpy as np
    if impl == "numba":
        np.row_stack = np.vstack  # numba-cuda 0.30 refers to it
        from numba import cuda
    else:
        from cutwin import cuda
    out = {"impl": impl}
    with tempfile.TemporaryDirectory() as tmp:
        k = load_as(LAUNCH_KERNELS, impl, tmp)
        arrays = [cuda.to_device(np.zeros(16, np.float32)) for _ in range(4)]
        for name, args in (("empty0", []), ("empty1", arrays[:1]), ("empty4", arrays)):
            kernel = getattr(k, name)
            kernel[1, 32](*args)
            cuda.synchronize()
            # Host time per launch: bursts of BURST launches (fewer than the GPU's launch
            # queue holds, so the host never waits for the GPU), synchronised between
            # bursts outside the timing.
            spent, launches = 0.0, 0
            while launches < n:
                t0 = time.perf_counter()
                for _ in range(BURST):
                    kernel[1, 32](*args)
                spent += time.perf_counter() - t0
                launches += BURST
                cuda.synchronize()
            out[name] = spent * 1e6 / launches
        for name, path in FIRST_CALL:
            mod = load_as(path, impl, tmp)
            kernel = getattr(mod, name)
            if name == "matmul_tiled":
                args = [cuda.to_device(np.ones((64, 64), np.float32)) for _ in range(3)]
                grid, block = (4, 4), (16, 16)
            elif name == "block_sum":
                args = [cuda.to_device(np.ones(4096, np.float32)), cuda.device_array(16, np.float32)]
                grid, block = 16, 256
            else:
                args = [cuda.to_device(np.ones(4096, np.float32)) for _ in range(3)]
                grid, block = 16, 256
            t0 = time.perf_counter()
            kernel[grid, block](*args)
            cuda.synchronize()
            out["first_" + name] = (time.perf_counter() - t0) * 1e3
    print(json.dumps(out))


def run(impl, env, n):
    r = subprocess.run([sys.executable, "-W", "ignore", __file__, "--worker", impl, "--n", str(n)], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("%s worker failed:\n%s%s" % (impl, r.stdout, r.stderr))
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backend", default="gpu", help="cutwin's backend: gpu or sim")
    p.add_argument("--numba", default="gpu", help="numba-cuda's target: gpu, sim (its simulator) or none")
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--worker")
    a = p.parse_args()
    if a.worker:
        return worker(a.worker, a.n)
    # the first call compiles: the kernel cache on disk stays out (CUTWIN_CACHE=0)
    results = [run("cutwin", dict(os.environ, CUTWIN_BACKEND=a.backend, CUTWIN_CACHE="0"), a.n)]
    if a.numba != "none":
        env = dict(os.environ)
        if a.numba == "sim":
            env["NUMBA_ENABLE_CUDASIM"] = "1"
        results.append(run("numba", env, max(1, a.n // (100 if a.numba == "sim" else 1))))
    numba = results[1] if len(results) > 1 else None
    print("| benchmark | cutwin (%s) | numba-cuda (%s) | ratio cutwin / numba |" % (a.backend, a.numba))
    print("|---|---|---|---|")
    for key, what in (("empty0", "launch, no arguments"), ("empty1", "launch, 1 array argument"),
                      ("empty4", "launch, 4 array arguments")):
        c = results[0][key]
        n = numba[key] if numba else float("nan")
        print("| %s | %.1f µs | %.1f µs | %.2f |" % (what, c, n, c / n))
    for name, _ in FIRST_CALL:
        c = results[0]["first_" + name]
        n = numba["first_" + name] if numba else float("nan")
        print("| first call (compile + launch): %s | %.1f ms | %.1f ms | %.2f |" % (name, c, n, c / n))


if __name__ == "__main__":
    main()
