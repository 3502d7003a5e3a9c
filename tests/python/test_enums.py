"""Enum members in kernels, as arguments and as globals: a member's class is part of its
type (numba's EnumMember / IntEnumMember), so `is`, `is not`, `==` and `!=` answer as Python
does for every pair of members - of one class or of two, plain Enums and IntEnums, int and
tuple values, classes whose members share values. Python itself is the oracle."""
import enum
import itertools

import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import CompileError


class Color(enum.Enum):
    red = 1
    green = 2
    blue = 3


class Fruit(enum.Enum):  # the same values as Color: never equal to Color's members
    apple = 1
    banana = 2


class Shape(enum.IntEnum):
    circle = 1
    square = 2


class Signed(enum.IntEnum):  # the same values as Shape, and negatives
    one = 1
    two = 2
    minus = -3


class Planet(enum.Enum):  # tuple values
    MERCURY = (3.303e23, 2.4397e6)
    VENUS = (4.869e24, 6.0518e6)
    EARTH = (5.976e24, 6.37814e6)


MEMBERS = list(Color) + list(Fruit) + list(Shape) + list(Signed) + list(Planet)


def _compare(a, b, out):
    out[0] = a == b
    out[1] = a != b
    out[2] = a is b
    out[3] = a is not b


compare = cuda.jit(_compare)


def _pairs():
    """Every pair of members whose comparison Python and numba both type: the same class,
    or two classes whose values are numbers or tuples alike."""
    for a, b in itertools.product(MEMBERS, repeat=2):
        if isinstance(a.value, tuple) != isinstance(b.value, tuple):
            continue
        yield a, b


@pytest.mark.parametrize("a,b", list(_pairs()), ids=lambda m: "%s.%s" % (type(m).__name__, m.name))
def test_members_as_arguments(cutwin_backend, a, b):
    got = np.zeros(4, np.bool_)
    compare[1, 1](a, b, got)
    want = np.zeros(4, np.bool_)
    _compare(a, b, want)
    np.testing.assert_array_equal(got, want)


def test_members_as_globals(cutwin_backend):
    @cuda.jit
    def k(out):
        out[0] = Color.red == Fruit.apple  # equal values, different classes
        out[1] = Color.red is Fruit.apple
        out[2] = Shape.circle == Signed.one  # IntEnums compare as ints
        out[3] = Shape.circle is Signed.one
        out[4] = Shape.circle == 1
        one = 1
        out[5] = Shape.circle is one  # an int is no Shape
        out[6] = Color.red == 1  # a plain Enum's member is no int
        out[7] = Color.red != Fruit.apple
        out[8] = Color["green"] is Color.green
        out[9] = Planet.EARTH == Planet.EARTH
        out[10] = Planet.EARTH != Planet.VENUS

    got = np.zeros(11, np.bool_)
    k[1, 1](got)
    want = [Color.red == Fruit.apple, False, Shape.circle == Signed.one, False, Shape.circle == 1, False,
            Color.red == 1, Color.red != Fruit.apple, True, True, True]
    np.testing.assert_array_equal(got, want)


def test_member_arguments_against_globals(cutwin_backend):
    @cuda.jit
    def k(c, s, out):
        out[0] = c is Color.green
        out[1] = c == Fruit.banana
        out[2] = s == Signed.two
        out[3] = s is Signed.two
        out[4] = s is Shape.square

    for c, s in itertools.product(Color, Shape):
        got = np.zeros(5, np.bool_)
        k[1, 1](c, s, got)
        want = [c is Color.green, c == Fruit.banana, s == Signed.two, s is Signed.two, s is Shape.square]
        np.testing.assert_array_equal(got, want, err_msg="%s %s" % (c, s))


def test_values_and_int_enum_arithmetic(cutwin_backend):
    @cuda.jit
    def k(c, s, p, out):
        out[0] = c.value
        out[1] = s * 10 + Signed.minus
        out[2] = -s
        out[3] = p.value[1]
        out[4] = Planet.VENUS.value[0] / 1e24

    for c, s, p in [(Color.blue, Shape.square, Planet.EARTH), (Color.red, Shape.circle, Planet.MERCURY)]:
        got = np.zeros(5)
        k[1, 1](c, s, p, got)
        np.testing.assert_array_equal(got, [c.value, s * 10 + Signed.minus, -s, p.value[1],
                                            Planet.VENUS.value[0] / 1e24])


@cuda.jit(device=True)
def pick(flag):
    return Color.red if flag else Color.blue


def test_members_returned_by_device_functions(cutwin_backend):
    @cuda.jit
    def k(flag, out):
        m = pick(flag)
        out[0] = m is Color.red
        out[1] = m == Color.blue
        out[2] = pick(not flag) is Color.red
        out[3] = m == Fruit.apple

    for flag in (True, False):
        got = np.zeros(4, np.bool_)
        k[1, 1](flag, got)
        m = Color.red if flag else Color.blue
        np.testing.assert_array_equal(got, [m is Color.red, m == Color.blue,
                                            (Color.red if not flag else Color.blue) is Color.red, m == Fruit.apple])


def test_members_inside_tuple_arguments(cutwin_backend):
    @cuda.jit
    def k(t, out):
        out[0] = t[0] is Color.green
        out[1] = t[1] is Shape.square
        out[2] = t[1] + 1

    for t in [(Color.green, Shape.square), (Color.red, Shape.circle)]:
        got = np.zeros(3, np.int64)
        k[1, 1](t, got)
        np.testing.assert_array_equal(got, [t[0] is Color.green, t[1] is Shape.square, t[1] + 1])


def test_one_specialisation_per_class(cutwin_backend):
    # Members of two classes with equal values are different argument types: the kernel
    # compiled for one must not answer for the other.
    got = np.zeros(4, np.bool_)
    compare[1, 1](Color.red, Color.red, got)
    assert got[2]
    compare[1, 1](Color.red, Fruit.apple, got)
    assert not got[2] and not got[0]


def test_plain_enum_members_do_not_compute(cutwin_backend):
    @cuda.jit
    def add(c, out):
        out[0] = c + 1

    with pytest.raises(CompileError, match="unsupported operand types for \\+: 'EnumMember"):
        add[1, 1](Color.red, np.zeros(1))

    @cuda.jit
    def order(c, out):
        out[0] = c < Color.blue

    with pytest.raises(CompileError, match="cannot compare EnumMember"):
        order[1, 1](Color.red, np.zeros(1))

