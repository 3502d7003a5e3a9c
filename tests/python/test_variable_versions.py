"""A variable assigned in places whose values never meet is several variables, each with
its own type, as numba's SSA form makes it; assignments that meet at a read (after an if,
around a loop, through break and continue) still unify. Oracle: each kernel body run by
Python itself on NumPy arrays (one thread), and numba's rule where typing decides."""
import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import CompileError


def run_both(kernel, *arrays):
    """The kernel on one thread, and its Python function on copies of the arrays."""
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays]
    kernel.py_func(*want)
    kernel[1, 1](*arrays)
    for got, w in zip(arrays, want):
        if isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, w)


@cuda.jit
def vectors_of_two_lengths(out):
    j = 0
    for v in (cuda.int32x2(1, 2), cuda.int32x2(3, 4)):
        out[j] = v.x * 10 + v.y
        j += 1
    for v in (cuda.int32x3(5, 6, 7),):
        out[j] = v.x * 100 + v.y * 10 + v.z
        j += 1


def test_a_name_reused_for_vectors_of_two_lengths(cutwin_backend):
    out = np.zeros(3, np.int64)
    vectors_of_two_lengths[1, 1](out)
    assert out.tolist() == [12, 34, 567]


@cuda.jit
def int_then_float(out, big, f):
    w = big[0]  # an int64 that float64 cannot hold
    out[0] = w
    out[1] = w // 3
    w = 0.5  # a new variable: the int64 above keeps its type
    f[0] = w * 3


def test_an_integer_keeps_its_type_when_the_name_is_reused_for_a_float(cutwin_backend):
    out, f = np.zeros(2, np.int64), np.zeros(1)
    run_both(int_then_float, out, np.array([2 ** 60 + 1], np.int64), f)
    assert out[0] == 2 ** 60 + 1


@cuda.jit
def number_then_tuple(out):
    t = 3
    out[0] = t * 2
    t = (4, 5.5)
    out[1] = t[0] + t[1]
    t = cuda.float32x2(1.5, 2.0)
    out[2] = t.x * t.y
    t = (t.x, t)  # reads the vector, then is a tuple holding it
    out[3] = t[0] + t[1].y


def test_a_number_then_tuples_of_other_types(cutwin_backend):
    out = np.zeros(4)
    number_then_tuple[1, 1](out)
    assert out.tolist() == [6.0, 9.5, 3.0, 3.5]


@cuda.jit
def meeting_assignments(out, flags):
    x = 1
    if flags[0]:
        x = 2.5  # meets the int at the read below: one float64 variable
    out[0] = x
    acc = 0
    for i in range(4):
        acc += 0.25 * i  # loop-carried: int and float meet at the loop's head
    out[1] = acc
    y = 0
    for i in range(10):
        if i == flags[1]:
            y = 1.5  # reaches the read through break
            break
        if i % 2:
            y = i * 1.0
            continue  # reaches the next iteration's read
        out[2 + i] = y
    out[12] = y
    n = 0
    while n < flags[2]:
        n += 1
    else:
        n = n * 0.5
    out[13] = n


@pytest.mark.parametrize("flags", [(0, 20, 3), (1, 4, 0), (1, 7, 5)])
def test_assignments_that_meet_unify(cutwin_backend, flags):
    run_both(meeting_assignments, np.zeros(14), np.array(flags, np.int64))


@cuda.jit
def reassigned_parameter(out, n):
    out[0] = n // 2  # the argument, an integer
    n = n / 4  # a float from here on
    out[1] = n


def test_a_parameter_reassigned_with_another_type(cutwin_backend):
    run_both(reassigned_parameter, np.zeros(2), 7)


@cuda.jit(device=True)
def mixed(k):
    v = k * 3
    r = v % 5
    v = (v, 0.5)
    return r + v[1]


@cuda.jit
def calls_mixed(out):
    for k in range(4):
        out[k] = mixed(k)


def test_device_functions_have_versions_too(cutwin_backend):
    out = np.zeros(4)
    calls_mixed[1, 1](out)
    assert out.tolist() == [(k * 3) % 5 + 0.5 for k in range(4)]


@cuda.jit
def same_type_versions(out):
    s = 0
    for i in range(3):
        s += i
    out[0] = s
    for i in range(5, 7):  # `i` again, same type: the debugger's one `i`
        out[i - 4] = i


def test_versions_of_one_type(cutwin_backend):
    run_both(same_type_versions, np.zeros(3, np.int64))


def test_assignments_that_meet_must_still_unify():
    @cuda.jit
    def k(out, flag):
        v = 1
        if flag:
            v = (1, 2)
        out[0] = v[0]

    with pytest.raises(CompileError, match=r"variable 'v' is assigned both int64 and"):
        k[1, 1](np.zeros(1), 1)


def test_printed_values_keep_each_versions_type(capfd):
    @cuda.jit
    def k():
        v = 7
        print(v)
        v = 2.5
        print(v)

    k[1, 1]()
    cuda.synchronize()
    assert capfd.readouterr().out.splitlines() == ["7", "2.500000"]  # numba-cuda's %f for floats


def test_tuple_builtin():
    @cuda.jit
    def k(out):
        t = tuple((1, 2.5))
        out[0] = t[0] + t[1]
        for v in tuple((cuda.int32x2(3, 4), cuda.int32x2(5, 6))):
            out[1] += v.x * v.y
        out[2] = len(tuple())

    out = np.zeros(3)
    k[1, 1](out)
    assert out.tolist() == [3.5, 42.0, 0.0]
