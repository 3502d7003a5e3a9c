#!/usr/bin/env python3
"""The typing matrix: every builtin kernels can call (the registry's names: cuda.*, math.*,
NumPy's ufuncs, the operator module, cuda.fp16/bf16/fp8, atomics, ...) called with one, two
and three arguments of each of 13 scalar types (atomics on an array of the type). Each call
compiles or is a CompileError naming file:line:col - never a crash of the process, never an
internal error. Batches run in processes of their own (one per type and arity), so a crash
names its batch and the call it was compiling.

    typing_matrix.py [--types T,...] [--arities 1,2,3] [--jobs N]
(with the cutwin package on PYTHONPATH)
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile

TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
         "float64", "complex128"]
FAMILIES = ("cuda.", "math.", "numpy.", "operator.", "cmath.", "builtins.")
SKIP = {"builtins.print", "builtins.breakpoint", "pdb.set_trace", "cuda.breakpoint"}  # (stop or print: no typing)

BATCH = r'''
import re, sys, traceback
import numpy as np
from cutwin import cuda, _cutwin
from cutwin.errors import CompileError, CutwinError
import cutwin.cuda.fp16, cutwin.cuda.bf16, cutwin.cuda.fp8
import math, cmath, operator
import builtins as py_builtins
dtype, arity = sys.argv[1], int(sys.argv[2])
names = sys.argv[3].split(",")
located = re.compile(r"^\S+:\d+:\d+: error: ")
spell = {"numpy.": "np.", "builtins.": "", "cuda.": "cuda."}
bad = 0
for name in names:
    call = name
    for prefix, to in spell.items():
        if name.startswith(prefix) and not name.startswith("cuda.atomic."):
            call = to + name[len(prefix):]
            break
    args = ", ".join(["x"] * arity)
    if name.startswith("cuda.atomic."):
        args = ", ".join(["a", "0"] + ["x"] * max(arity - 2, 1))
    src = "def k(a, x):\n    %s(%s)\n" % (call, args)
    print("CALL", name, dtype, arity, flush=True)
    path = "%s_%d.py" % (sys.argv[4], names.index(name))  # (a file per call: sources are read by name)
    with open(path, "w") as f:
        f.write("import math, cmath, operator\nimport numpy as np\nfrom cutwin import cuda\n"
                "import cutwin.cuda.fp16, cutwin.cuda.bf16, cutwin.cuda.fp8\n" + src)
    code = compile(open(path).read(), path, "exec")
    g = {"__name__": "matrix_%s_%d" % (dtype, arity), "__file__": path}
    exec(code, g)
    kernel = cuda.jit(g["k"])
    try:
        t = "boolean" if dtype == "bool" else dtype  # (numba's signature name)
        kernel.compile("void(%s[::1], %s)" % (t, t))
    except CompileError as e:
        if not located.match(str(e)) or "internal error" in str(e):
            bad += 1
            print("UNLOCATED", name, dtype, arity, str(e).splitlines()[0][:200], flush=True)
    except Exception as e:
        bad += 1
        print("NOT A COMPILE ERROR", name, dtype, arity, type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "",
              flush=True)
print("DONE", bad, flush=True)
'''


def run_batch(dtype, arity, names, tmp):
    path = os.path.join(tmp, "matrix_%s_%d" % (dtype, arity))
    r = subprocess.run([sys.executable, "-c", BATCH, dtype, str(arity), ",".join(names), path], capture_output=True,
                       text=True, timeout=1800)
    lines = r.stdout.splitlines()
    problems = [l for l in lines if l.startswith(("UNLOCATED", "NOT A COMPILE ERROR"))]
    if r.returncode != 0 or not lines or not lines[-1].startswith("DONE"):
        last = [l for l in lines if l.startswith("CALL")]
        problems.append("CRASH (exit %d) of the batch %s/%d at %s: %s" % (
            r.returncode, dtype, arity, last[-1] if last else "start", r.stderr.strip()[-300:]))
    return sum(1 for l in lines if l.startswith("CALL")), problems


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--types", default=",".join(TYPES))
    p.add_argument("--arities", default="1,2,3")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = p.parse_args()
    from cutwin import _cutwin
    names = [n for n in _cutwin.builtin_function_names() if n.startswith(FAMILIES) and n not in SKIP]
    calls, problems = 0, []
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        jobs = [pool.submit(run_batch, t, int(n), names, tmp) for t in a.types.split(",")
                for n in a.arities.split(",")]
        for j in jobs:
            c, ps = j.result()
            calls += c
            problems += ps
    print("%d builtins x %s types x arities %s: %d calls compiled or refused, %d problems" % (
        len(names), len(a.types.split(",")), a.arities, calls, len(problems)))
    for pr in problems[:40]:
        print("  " + pr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
