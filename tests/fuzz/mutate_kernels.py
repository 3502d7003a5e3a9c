#!/usr/bin/env python3
"""Mutation fuzzing of the compiler through the `cutwin` command: each mutant of a
conformance kernel (tokens inserted, spans deleted, lines spliced in from other kernels)
is listed (`cutwin kernels`) and compiled for its case's signature to the simulator's IR
and to PTX. Whatever the source, the command must end with 0 or 1 - never a signal, never a
hang, never an internal error - and an error must name file:line:col. Deterministic for a
seed; a failing mutant is written out (--keep DIR) to become a regression test.

    mutate_kernels.py CUTWIN CASES_DIR [--seed N] [--count N] [--keep DIR]
    mutate_kernels.py CUTWIN --regressions DIR

Each file of the regressions folder (inputs that once crashed, minimised) says on its first
lines `# kernel: NAME  signature: SIG` and `# expect: TEXT`: both compiles must end with a
diagnostic holding TEXT.
"""
import argparse
import ast
import glob
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile

TOKENS = ["(", ")", "[", "]", ":", ",", ".", "+", "-", "*", "**", "//", "%", "=", "==", "not ", " and ", " if ",
          " else ", "lambda", "for ", " in ", "range(", "cuda.", "x", "a", "0", "1.5", "-1", "1e308", '"s"', "None",
          "True", "\n    ", "\n", "  ", "yield", "return ", "break", "continue", "global x\n", "del ", "with ",
          "try:", "async ", "await ", "@cuda.jit\n", "def f(", "class C:", "...", "[:, 0]", "cuda.shared.array(",
          "cuda.local.array(", "np.float32", "int(", "float(", "tuple(", "*", "**k", "import os\n",
          "from numba import cuda\n", "\t", "\\\n", "#", "'''", 'b"x"', "0x", "_", "nonlocal x", "assert ",
          "raise ", "cuda.syncthreads()", "cuda.atomic.add(", "cuda.grid(1)", "(1, 2)", "a.shape", "a.size"]
LOCATED = re.compile(r"^\S+:\d+:\d+: error: ")


def npy_type(path):
    """The dtype name and dimensions of a .npy file, from its header."""
    with open(path, "rb") as f:
        f.read(6)
        major = f.read(2)[0]
        size = int.from_bytes(f.read(2 if major == 1 else 4), "little")
        header = ast.literal_eval(f.read(size).decode("latin1"))
    names = {"<f4": "float32", "<f8": "float64", "<i4": "int32", "<i8": "int64", "<u4": "uint32", "<u8": "uint64",
             "<i2": "int16", "<u2": "uint16", "|i1": "int8", "|u1": "uint8", "|b1": "bool", "<f2": "float16",
             "<c8": "complex64", "<c16": "complex128"}
    return names.get(header["descr"] if isinstance(header["descr"], str) else ""), len(header["shape"])


def case_signature(case_dir):
    """numba's signature of the case's kernel, or None for arguments it cannot spell here."""
    parts = []
    spec = json.load(open(os.path.join(case_dir, "case.json")))
    if "steps" in spec:
        return None  # (a case of several devices: several kernels, arrays by name)
    for a in spec["args"]:
        if "npy" in a:
            dtype, ndim = npy_type(os.path.join(case_dir, a["npy"]))
        elif "zeros" in a:
            dtype, ndim = a["zeros"], len(a["shape"])
        elif "scalar" in a:
            parts.append(a["dtype"])
            continue
        else:
            return None  # (RNG states: a record type)
        if dtype is None:
            return None
        parts.append("%s[%s]" % (dtype, ",".join([":"] * ndim)))
    return "void(%s)" % ", ".join(parts)


def seeds(cases_dir):
    out = []
    for d in sorted(glob.glob(os.path.join(cases_dir, "*"))):
        src = os.path.join(d, "kernel.py")
        if os.path.exists(src) and os.path.exists(os.path.join(d, "case.json")):
            sig = case_signature(d)
            if sig:
                out.append((src, sig, json.load(open(os.path.join(d, "case.json")))["kernel"]))
    return out


def mutate(rng, text, pool):
    for _ in range(rng.randint(1, 4)):
        pos = rng.randint(0, len(text))
        op = rng.random()
        if op < 0.4:
            text = text[:pos] + rng.choice(TOKENS) + text[pos:]
        elif op < 0.7:
            text = text[:pos] + text[min(len(text), pos + rng.randint(1, 20)):]
        else:
            other = rng.choice(pool)
            start = rng.randint(0, len(other))
            text = text[:pos] + other[start:start + rng.randint(1, 200)] + text[pos:]
    return text


def run(cmd):
    """(exit status, stderr); a negative status is the signal that ended it, None a hang."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        return None, ""


def regressions(cutwin, folder):
    failures = 0
    files = sorted(glob.glob(os.path.join(folder, "*.py")))
    for path in files:
        head = open(path).read().splitlines()
        kernel, sig = re.match(r"# kernel: (\S+)\s+signature: (.+)$", head[0]).groups()
        expect = re.match(r"# expect: (.+)$", head[1]).group(1)
        for emit in ("sim-ir", "ptx"):
            status, err = run([cutwin, "compile", path, "--kernel", kernel, "--sig", sig, "--emit=" + emit])
            if status != 1 or expect not in err:
                failures += 1
                print("%s (%s): exit %s, wanted 1 and %r in: %s" % (os.path.basename(path), emit, status, expect,
                                                                     err.strip()[:300]))
    print("%d regression inputs: %d failures" % (len(files), failures))
    return 1 if failures else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cutwin")
    p.add_argument("cases", nargs="?")
    p.add_argument("--regressions", default=None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--keep", default=None)
    args = p.parse_args()
    if args.regressions:
        return regressions(args.cutwin, args.regressions)
    rng = random.Random(args.seed)
    corpus = seeds(args.cases)
    pool = [open(s[0]).read() for s in corpus]
    failures, compiled = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mutant.py")
        for i in range(args.count):
            src, sig, kernel = rng.choice(corpus)
            text = mutate(rng, open(src).read(), pool)
            with open(path, "w") as f:
                f.write(text)
            steps = [[args.cutwin, "kernels", path]]
            steps += [[args.cutwin, "compile", path, "--kernel", kernel, "--sig", sig, "--emit=" + emit]
                      for emit in ("sim-ir", "ptx")]
            for cmd in steps:
                status, err = run(cmd)
                first = err.strip().splitlines()[0] if err.strip() else ""
                problem = None
                if status is None:
                    problem = "hang"
                elif status < 0 or status > 1:
                    problem = "exit %d" % status
                elif "internal error" in err:
                    problem = "internal error: " + first
                elif status == 1 and cmd[1] == "compile" and not LOCATED.match(first) and \
                        "no kernel named" not in first and "link file" not in first:
                    problem = "error without file:line:col: " + first
                if problem:
                    failures.append((i, cmd[1], problem))
                    if args.keep:
                        os.makedirs(args.keep, exist_ok=True)
                        name = hashlib.sha1(text.encode()).hexdigest()[:10]
                        with open(os.path.join(args.keep, name + ".py"), "w") as f:
                            f.write("# %s %s: %s\n# %s\n%s" % (kernel, sig, problem, " ".join(cmd[1:2]), text))
                    break
                compiled += cmd[1] == "compile" and status == 0
    print("%d mutants of %d kernels (seed %d): %d compiles succeeded, %d failures" %
          (args.count, len(corpus), args.seed, compiled, len(failures)))
    for i, step, problem in failures[:20]:
        print("  mutant %d, %s: %s" % (i, step, problem))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
