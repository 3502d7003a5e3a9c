"""Vector types (numba-cuda's cuda.float32x4 & co., CUDA's cuda.double4 & co.): every type
built from numbers and from vectors of its element type, fields x, y, z, w, conversion of
the numbers to the element type, vectors through device functions, aliases that are the
same constructors, and the errors for a wrong element count or element type. Oracle:
the same values computed on the host with NumPy's element types."""
import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import CompileError
from cutwin.cuda.vector_types import vector_types


def _builder(make, make1, element, n):
    """A kernel building an n-element vector from a one-element vector and numbers."""
    if n == 1:
        def k(out):
            v = make(make1(element(1.7)))
            out[0] = v.x
    elif n == 2:
        def k(out):
            v = make(make1(element(1.7)), 2)
            out[0], out[1] = v.x, v.y
    elif n == 3:
        def k(out):
            v = make(make1(element(1.7)), 2, 3)
            out[0], out[1], out[2] = v.x, v.y, v.z
    else:
        def k(out):
            v = make(make1(element(1.7)), 2, 3, 4)
            out[0], out[1], out[2], out[3] = v.x, v.y, v.z, v.w
    return cuda.jit(k)


@pytest.mark.parametrize("name", sorted(vector_types))
def test_every_vector_type_from_numbers_and_vectors(cutwin_backend, name):
    vt = vector_types[name]
    k = _builder(vt.user_facing_object, getattr(cuda, name[:-1] + "1"), vt.base_type, vt.num_elements)
    out = np.zeros(vt.num_elements)
    k[1, 1](out)
    dtype = np.dtype(name[:-2])
    expect = [np.float64(np.array(1.7).astype(dtype))] + list(range(2, vt.num_elements + 1))
    np.testing.assert_array_equal(out, expect)


def test_composition_device_functions_and_aliases(cutwin_backend):
    @cuda.jit(device=True)
    def swap(v):
        return cuda.float32x2(v.y, v.x)

    @cuda.jit
    def k(out):
        a = cuda.float32x2(1.5, 2.5)
        b = cuda.float32x4(swap(a), a)  # 2.5 1.5 1.5 2.5
        c = cuda.float4(b.w, cuda.float32x3(a, 7))
        out[0], out[1], out[2], out[3] = b.x, b.y, b.z, b.w
        out[4], out[5], out[6], out[7] = c.x, c.y, c.z, c.w

    out = np.zeros(8, np.float32)
    k[1, 1](out)
    np.testing.assert_array_equal(out, [2.5, 1.5, 1.5, 2.5, 2.5, 1.5, 2.5, 7])
    assert cuda.double4 is cuda.float64x4 and "short2" in cuda.int16x2.aliases


def test_element_count_and_type_are_checked():
    @cuda.jit
    def too_few(out):
        v = cuda.float32x3(1.0, 2.0)
        out[0] = v.x

    @cuda.jit
    def other_element(out):
        v = cuda.float32x2(cuda.int32x1(1), 2.0)
        out[0] = v.x

    with pytest.raises(CompileError, match=r"takes 3 elements in all .* got 2"):
        too_few[1, 1](np.zeros(1))
    with pytest.raises(CompileError, match="takes numbers and float32 vectors, not int32x1"):
        other_element[1, 1](np.zeros(1))
