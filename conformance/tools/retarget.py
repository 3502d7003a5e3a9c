"""Kernel sources written for `from numba import cuda`, pointed at another implementation of
numba.cuda (cutwin's, numba-cuda-mlir's): the `cuda` of every `from numba import ...` line
comes from `module`; the rest of the line stays numba's (types such as float32, complex64).
Used by conformance/tools/numba_case.py and bench/python_launch.py."""
import re

_FROM_NUMBA = re.compile(r"^(\s*)from numba import (.+)$")


class NotRetargetable(Exception):
    """The source names numba.cuda's own modules (numba.cuda.random, ...), which the other
    implementation does not replace."""


def retarget(source, module):
    out = []
    for line in source.splitlines():
        m = _FROM_NUMBA.match(line)
        if m and "cuda" in [n.strip() for n in m.group(2).split(",")]:
            indent, names = m.group(1), [n.strip() for n in m.group(2).split(",")]
            rest = [n for n in names if n != "cuda"]
            if rest:
                out.append("%sfrom numba import %s" % (indent, ", ".join(rest)))
            out.append("%sfrom %s import cuda" % (indent, module))
        else:
            if "numba.cuda" in line:
                raise NotRetargetable("imports numba.cuda's own modules: " + line.strip())
            out.append(line)
    return "\n".join(out) + "\n"
