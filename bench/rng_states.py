#!/usr/bin/env python3
"""Creating xoroshiro128p RNG states: cutwin's create_xoroshiro128p_states (parallel jumps
with byte tables, then one copy to the device) against numba-cuda's (sequential jumps on
the host) in the same run, each in its own process. Also checks that both made the same
states. Prints a Markdown table.

    python bench/rng_states.py [--n 16777216] [--backend gpu|sim] [--numba gpu|sim|none]
"""
import argparse
import sys

from child_run import run_child

CHILD = r"""
import json, sys, time
import numpy as np
np.row_stack = np.vstack
impl, n, backend = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if impl == "cutwin":
    from cutwin import cuda
    cuda.use_backend(backend)
    from cutwin.cuda.random import create_xoroshiro128p_states
else:
    from numba import cuda
    from numba.cuda.random import create_xoroshiro128p_states
create_xoroshiro128p_states(1 << 16, seed=1)  # warm up: context, tables, cutwin's expansion kernel
cuda.synchronize()
times = []
for _ in range(3 if impl == "cutwin" else 1):
    t = time.perf_counter()
    st = create_xoroshiro128p_states(n, seed=1)
    cuda.synchronize()
    times.append(time.perf_counter() - t)
host = st.copy_to_host()
pick = np.unique(np.linspace(0, n - 1, 1000).astype(np.int64))
print(json.dumps({"s": min(times), "s0": [int(v) for v in host["s0"][pick]], "s1": [int(v) for v in host["s1"][pick]]}))
"""


def run(impl, n, backend):
    return run_child(CHILD, impl, n, backend)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1 << 24)
    p.add_argument("--backend", default="gpu")
    p.add_argument("--numba", default="gpu")
    a = p.parse_args()
    c = run("cutwin", a.n, a.backend)
    print("| states | cutwin (%s) s | numba-cuda s | ratio | same states |" % a.backend)
    print("|---|---|---|---|---|")
    if a.numba == "none":
        print("| %d | %.4f | - | - | - |" % (a.n, c["s"]))
        return
    nb = run("numba", a.n, a.numba)
    same = c["s0"] == nb["s0"] and c["s1"] == nb["s1"]
    print("| %d | %.4f | %.3f | %.0fx faster | %s |" % (a.n, c["s"], nb["s"], nb["s"] / c["s"], "yes" if same else "NO"))
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
