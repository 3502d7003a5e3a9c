#!/usr/bin/env python3
"""Peer-copy bandwidth between two devices, cutwin against numba-cuda and CuPy in the same
run: a device-to-device copy of N bytes from device 0 to device 1 (`b.copy_to_device(a)`
for cutwin and numba, `cupy.cuda.runtime.memcpyPeer` for CuPy), the median of repeats after
a warm-up, each implementation in its own process. Also the same copy within device 0 as a
baseline of the run. Prints Markdown.

    python bench/peer_copy.py [--backend gpu|sim] [--sizes 1M,16M,256M] [--repeats 20]

On the simulator (`--backend sim`, two simulated devices) the copy is a host memory copy:
the figure says what a CI job pays, not what a GPU would.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def worker(impl, sizes, repeats):
    import numpy as np
    out = {"impl": impl, "rows": []}
    if impl == "cupy":
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 2:
            return {"impl": impl, "skip": "fewer than 2 GPUs"}
        for n in sizes:
            with cupy.cuda.Device(0):
                a = cupy.ones(n, cupy.uint8)
                c = cupy.empty(n, cupy.uint8)
            with cupy.cuda.Device(1):
                b = cupy.empty(n, cupy.uint8)

            def peer():
                cupy.cuda.runtime.memcpyPeer(b.data.ptr, 1, a.data.ptr, 0, n)
                cupy.cuda.Device(1).synchronize()

            def local():
                c[...] = a
                cupy.cuda.Device(0).synchronize()
            out["rows"].append(measure(n, peer, local, repeats))
        return out
    if impl == "numba":
        np.row_stack = np.vstack  # numba-cuda 0.30 refers to it
        from numba import cuda
    else:
        from cutwin import cuda
    if len(cuda.gpus) < 2:
        return {"impl": impl, "skip": "fewer than 2 devices"}
    for n in sizes:
        with cuda.gpus[0]:
            a = cuda.to_device(np.ones(n, np.uint8))
            c = cuda.device_array(n, np.uint8)
        with cuda.gpus[1]:
            b = cuda.device_array(n, np.uint8)

        def peer():
            b.copy_to_device(a)
            with cuda.gpus[1]:
                cuda.synchronize()

        def local():
            c.copy_to_device(a)
            cuda.synchronize()
        out["rows"].append(measure(n, peer, local, repeats))
        with cuda.gpus[1]:
            got = b.copy_to_host()
        assert got.all(), "the peer copy lost bytes"
    return out


def measure(n, peer, local, repeats):
    times = {}
    for name, fn in (("peer", peer), ("local", local)):
        fn()  # warm-up
        ts = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        times[name] = median(ts)
    return {"bytes": n, "peer_s": times["peer"], "local_s": times["local"]}


def run(impl, args, env):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", impl, "--sizes", args.sizes,
           "--repeats", str(args.repeats)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return {"impl": impl, "skip": (p.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="gpu", choices=("gpu", "sim"))
    ap.add_argument("--sizes", default="1M,16M,256M")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--worker", default=None)
    args = ap.parse_args()
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    if args.worker:
        print(json.dumps(worker(args.worker, sizes, args.repeats)))
        return 0
    env = dict(os.environ, CUTWIN_BACKEND=args.backend)
    impls = ["cutwin"] + (["numba", "cupy"] if args.backend == "gpu" else [])
    if args.backend == "sim":
        env["CUTWIN_SIM_DEVICES"] = env.get("CUTWIN_SIM_DEVICES", "2")
    results = [run(i, args, env) for i in impls]
    print("| implementation | bytes | peer copy 0 → 1 | GB/s | copy within device 0 | GB/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in results:
        if "skip" in r:
            print("| %s | - | - | - | - | skipped: %s |" % (r["impl"], r["skip"]))
            continue
        for row in r["rows"]:
            n = row["bytes"]
            print("| %s | %d | %.3f ms | %.1f | %.3f ms | %.1f |" % (
                r["impl"], n, row["peer_s"] * 1e3, n / row["peer_s"] / 1e9, row["local_s"] * 1e3,
                n / row["local_s"] / 1e9))
    return 0


if __name__ == "__main__":
    sys.exit(main())
