"""float() of a string constant in kernels (`float("nan")`, `float("-inf")`, ...), which numba
folds into a constant: Python's own float() is the oracle, for every spelling it accepts
(spaces, signs, any case, underscores between digits, exponents) and those it refuses
(a compile error naming the string)."""
import math

import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import CompileError

ACCEPTED = ["nan", "-NaN", " inf ", "-Infinity", "+inf", "1.5", "-0.0", "1_000.25", "1e-3", ".5", "5.",
            "1E+400", "-2.5e-320", "\t42\n", "0.1"]


@cuda.jit
def accepted(out):
    out[0] = float("nan")
    out[1] = float("-NaN")
    out[2] = float(" inf ")
    out[3] = float("-Infinity")
    out[4] = float("+inf")
    out[5] = float("1.5")
    out[6] = float("-0.0")
    out[7] = float("1_000.25")
    out[8] = float("1e-3")
    out[9] = float(".5")
    out[10] = float("5.")
    out[11] = float("1E+400")
    out[12] = float("-2.5e-320")
    out[13] = float("\t42\n")
    out[14] = float("0.1")


def test_float_of_a_string_is_pythons_float(cutwin_backend):
    out = np.zeros(len(ACCEPTED))
    accepted[1, 1](out)
    want = np.array([float(s) for s in ACCEPTED])
    for got, w, text in zip(out, want, ACCEPTED):
        if math.isnan(w):
            assert math.isnan(got), text
        else:
            assert got == w and math.copysign(1, got) == math.copysign(1, w), text


@pytest.mark.parametrize("text", ["1__0", "_1", "1_", "0x10", "nan(1)", "1e", "", "infinit", "1.5.2"])
def test_strings_python_refuses_are_compile_errors(text):
    with pytest.raises(ValueError):
        float(text)  # the oracle refuses it too
    src = "def kernel(out):\n    out[0] = float(%r)\n" % text
    scope = {}
    exec(compile(src, "<float_text>", "exec"), scope)
    kernel = cuda.jit(scope["kernel"])
    with pytest.raises(CompileError, match="could not convert string to float"):
        kernel[1, 1](np.zeros(1))
