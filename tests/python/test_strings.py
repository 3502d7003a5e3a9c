"""Constant strings stored into NumPy's fixed-length strings in kernels (numba's
UnicodeCharSeq and CharSeq): arrays of 'U' and 'S' dtypes and string fields of records,
on the host and as device arrays. Oracle: NumPy's own assignment of the same text (cut at
the length, the rest zeros)."""
import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import CompileError


def test_unicode_and_bytes_arrays(cutwin_backend):
    @cuda.jit
    def fill(u, s):
        i = cuda.grid(1)
        if i < u.size - 1:
            u[i] = "XYZ"
            s[i] = b"XYZ"

    u = np.zeros(9, "<U12")
    s = np.zeros(9, "S12")
    fill[1, 16](u, s)
    eu, es = np.zeros_like(u), np.zeros_like(s)
    eu[:-1] = "XYZ"
    es[:-1] = b"XYZ"
    np.testing.assert_array_equal(u, eu)
    np.testing.assert_array_equal(s, es)
    assert u.view(np.uint32).reshape(9, 12)[0, 3:].sum() == 0  # zeros after the text


def test_text_longer_than_the_element_is_cut_and_non_ascii_kept(cutwin_backend):
    @cuda.jit
    def fill(u, s, w):
        u[0] = "ABCDEFGHIJ"
        u[1] = "héllo ✓"
        s[0] = b"ABCDEFGHIJ"
        w[0, 1] = "äb"

    u = np.full(2, "zzzzzzzz", "<U4")
    s = np.full(1, b"zzzzzz", "S4")
    w = np.full((2, 2), "qqq", "<U3")
    fill[1, 1](u, s, w)
    e = np.full(2, "zzzzzzzz", "<U4")
    e[0], e[1] = "ABCDEFGHIJ", "héllo ✓"
    np.testing.assert_array_equal(u, e)
    assert s[0] == b"ABCD"
    ew = np.full((2, 2), "qqq", "<U3")
    ew[0, 1] = "äb"
    np.testing.assert_array_equal(w, ew)


@pytest.mark.parametrize("text_dtype,text", [("<U12", "ABC"), ("S12", b"ABC")])
def test_string_fields_of_records(cutwin_backend, text_dtype, text):
    dt = np.dtype([("x", np.int32), ("y", np.dtype(text_dtype))])

    @cuda.jit
    def f(a):
        a[0]["x"] = 1
        a[0]["y"] = "ABC"
        a[1].x = 2
        a[1].y = "XYZ"

    a = np.zeros(2, dt)
    f[1, 1](a)
    ref = np.asarray([(1, "ABC"), (2, "XYZ")] if text_dtype[0] != "S" else [(1, b"ABC"), (2, b"XYZ")], dtype=dt)
    np.testing.assert_array_equal(a, ref)
    assert a[0]["y"] == text


def test_device_arrays_of_strings(cutwin_backend):
    @cuda.jit
    def name(out):
        i = cuda.grid(1)
        if i < out.size:
            if i % 2 == 0:
                out[i] = "even"
            else:
                out[i] = "odd"

    d = cuda.to_device(np.full(5, "-----", "<U5"))
    name[1, 8](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.array(["even", "odd", "even", "odd", "even"], "<U5"))


def test_strings_go_only_where_strings_live():
    @cuda.jit
    def into_numbers(a):
        a[0] = "ABC"

    with pytest.raises(CompileError):
        into_numbers[1, 1](np.zeros(2))

    dt = np.dtype([("x", np.int32), ("y", np.int32)])

    @cuda.jit
    def into_a_record(a):
        a[0] = "ABC"

    with pytest.raises(CompileError, match="cannot store a string into a record"):
        into_a_record[1, 1](np.zeros(2, dt))

    @cuda.jit
    def into_a_number_field(a):
        a[0].x = "ABC"

    with pytest.raises(CompileError):
        into_a_number_field[1, 1](np.zeros(2, dt))
