#!/usr/bin/env python3
"""The libFuzzer target's seed corpus and dictionary (tests/fuzz/fuzz_compile.cpp), made
from the kernels in the repository: every conformance case and textual IR test with its
signature, the regression inputs, one small kernel per builtin the compiler knows
(`cutwin builtins`), and the programs and Python tests as they are (their kernels with
signatures in their decorators compile; the rest is parsed and resolved). Each seed names its kernel and signature on its first line, as the
regression inputs do. With --replay, the fuzzer then runs each seed and regression input
once: any crash, sanitizer report, internal error or unlocated error fails.

    seed_corpus.py CUTWIN OUT_DIR [--replay FUZZER]
"""
import argparse
import glob
import keyword
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import mutate_kernels  # noqa: E402  (its conformance seeds and mutation tokens)

IMPORTS = "import math, cmath, operator\nimport numpy as np\nfrom numba import cuda\n"
# How a builtin's registry name is spelled in a kernel (as the typing matrix spells it).
SPELL = {"numpy.": "np.", "builtins.": "", "scalar.": None}


def header(kernel, sig):
    return "# kernel: %s  signature: %s\n" % (kernel, sig)


def conformance_seeds():
    for src, sig, kernel in mutate_kernels.seeds(os.path.join(ROOT, "conformance", "cases")):
        yield "case_" + os.path.basename(os.path.dirname(src)), header(kernel, sig) + open(src).read()


def ir_test_seeds():
    run = re.compile(r'^# RUN: .*--kernel (\S+) --sig "([^"]+)"', re.M)
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "ir", "*.py"))):
        text = open(path).read()
        m = run.search(text)
        if m:
            yield "ir_" + os.path.basename(path)[:-3], header(m.group(1), m.group(2)) + text


def program_seeds():
    for folder in ("examples/python", "tests/python", "tests/gdb", "bench"):
        for path in sorted(glob.glob(os.path.join(ROOT, folder, "*.py"))):
            yield folder.replace("/", "_") + "_" + os.path.basename(path)[:-3], open(path).read()


def builtin_seeds(cutwin):
    table = subprocess.run([cutwin, "builtins"], capture_output=True, text=True, check=True).stdout
    names = [n for row in table.splitlines()[2:] for n in re.findall(r"`([\w.]+)`", row.split("|")[3])]
    for name in names:
        call = name
        for prefix, to in SPELL.items():
            if name.startswith(prefix):
                call = None if to is None else to + name[len(prefix):]
        if call is None or name.startswith(("builtins.print", "builtins.breakpoint", "pdb.", "cuda.breakpoint")):
            continue
        for arity in (1, 2):
            args = ", ".join((["a", "0"] if name.startswith("cuda.atomic.") else []) + ["x"] * arity)
            body = "def k(a, x):\n    r = %s(%s)\n    a[0] = r\n" % (call, args)
            yield "builtin_%s_%d" % (name.replace(".", "_"), arity), \
                header("k", "void(float32[::1], float32)") + IMPORTS + "\n@cuda.jit\n" + body


def dictionary(cutwin):
    words = set(mutate_kernels.TOKENS) | set(keyword.kwlist)
    table = subprocess.run([cutwin, "builtins"], capture_output=True, text=True, check=True).stdout
    words |= {n.split(".")[-1] for n in re.findall(r"`([\w.]+)`", table)}
    words |= {"float16", "float32", "float64", "int8", "int32", "int64", "uint32", "boolean", "complex64", "void",
              "[::1]", "[:, :]", "# kernel: k  signature: void(float32[:])\n"}
    return sorted(w for w in words if w)


def escape(word):
    return "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "\\x%02x" % ord(c) for c in word)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cutwin")
    p.add_argument("out")
    p.add_argument("--replay", default=None, help="the fuzzer: run every seed and regression input once")
    args = p.parse_args()
    seeds_dir = os.path.join(args.out, "seeds")
    shutil.rmtree(seeds_dir, ignore_errors=True)
    os.makedirs(seeds_dir)
    count = 0
    for gen in (conformance_seeds(), ir_test_seeds(), builtin_seeds(args.cutwin), program_seeds()):
        for name, text in gen:
            with open(os.path.join(seeds_dir, name + ".py"), "w") as f:
                f.write(text)
            count += 1
    with open(os.path.join(args.out, "kernel.dict"), "w") as f:
        for w in dictionary(args.cutwin):
            f.write('"%s"\n' % escape(w))
    print("%d seeds in %s, dictionary %s" % (count, seeds_dir, os.path.join(args.out, "kernel.dict")))
    if not args.replay:
        return 0
    inputs = sorted(glob.glob(os.path.join(seeds_dir, "*.py"))) + \
        sorted(glob.glob(os.path.join(HERE, "regressions", "*.py")))
    failed = 0
    for start in range(0, len(inputs), 200):  # (libFuzzer runs the files named, once each)
        r = subprocess.run([args.replay] + inputs[start:start + 200], capture_output=True, text=True)
        if r.returncode != 0:
            failed += 1
            print(r.stderr[-4000:])
    print("%d inputs replayed: %s" % (len(inputs), "failed" if failed else "no findings"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
