"""Device arrays: creation, copies, slicing and views, against NumPy."""
import numpy as np
import pytest

from cutwin import cuda


@cuda.jit
def add_one_2d(a):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] += 1


def test_round_trip_and_properties(cutwin_backend):
    h = np.arange(24, dtype=np.int16).reshape(4, 6)
    d = cuda.to_device(h)
    assert d.shape == (4, 6) and d.dtype == np.int16 and d.size == 24 and d.ndim == 2
    assert d.strides == h.strides and d.nbytes == h.nbytes and len(d) == 4
    np.testing.assert_array_equal(d.copy_to_host(), h)
    out = np.empty_like(h)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, h)


def test_device_array_like_and_copy_to_device(cutwin_backend):
    h = np.linspace(0, 1, 50)
    d = cuda.device_array_like(h)
    assert d.shape == h.shape and d.dtype == h.dtype
    d.copy_to_device(h)
    np.testing.assert_array_equal(d.copy_to_host(), h)
    e = cuda.device_array_like(d)
    e.copy_to_device(d)  # device to device
    np.testing.assert_array_equal(e.copy_to_host(), h)


def test_slices_are_views_kernels_can_write(cutwin_backend):
    h = np.arange(8 * 10, dtype=np.float32).reshape(8, 10)
    d = cuda.to_device(h)
    sub = d[2:6, 1::3]  # strided view
    assert sub.shape == (4, 3) and not sub.is_c_contiguous()
    np.testing.assert_array_equal(sub.copy_to_host(), h[2:6, 1::3])
    add_one_2d[(1, 1), (8, 8)](sub)
    expect = h.copy()
    expect[2:6, 1::3] += 1
    np.testing.assert_array_equal(d.copy_to_host(), expect)
    np.testing.assert_array_equal(d.T.copy_to_host(), expect.T)
    np.testing.assert_array_equal(d[::-1, 3].copy_to_host(), expect[::-1, 3])


def test_element_access_and_assignment(cutwin_backend):
    d = cuda.to_device(np.arange(12, dtype=np.int64).reshape(3, 4))
    assert d[1, 2] == 6 and d[-1, -1] == 11
    d[0, 0] = 100
    d[2, :] = 7
    d[1] = np.arange(4) * 10
    np.testing.assert_array_equal(d.copy_to_host(), [[100, 1, 2, 3], [0, 10, 20, 30], [7, 7, 7, 7]])
    with pytest.raises(IndexError):
        d[3, 0]
    with pytest.raises(IndexError):
        d[[0, 1]]


def test_reshape_ravel_and_orders(cutwin_backend):
    h = np.arange(12, dtype=np.float64)
    d = cuda.to_device(h)
    np.testing.assert_array_equal(d.reshape(3, 4).copy_to_host(), h.reshape(3, 4))
    np.testing.assert_array_equal(d.reshape((2, -1)).ravel().copy_to_host(), h)
    f = np.asfortranarray(h.reshape(3, 4))
    df = cuda.to_device(f)
    assert df.is_f_contiguous() and not df.is_c_contiguous()
    np.testing.assert_array_equal(df.copy_to_host(), f)
    df2 = cuda.device_array((3, 4), order="F")
    assert df2.strides == (8, 24)


def test_pinned_and_mapped_arrays_are_host_arrays(cutwin_backend):
    p = cuda.pinned_array((4, 4), np.float32)
    assert isinstance(p, np.ndarray) and p.shape == (4, 4)
    with cuda.pinned(p):  # pinned already: nothing to do
        p[:] = 1
    m = cuda.mapped_array(8, np.int32)
    m[:] = 3
    with cuda.mapped(m) as d:  # mapped already: its own device view
        assert d.copy_to_host().tolist() == [3] * 8


def test_cuda_array_interface(cutwin_backend):
    d = cuda.to_device(np.arange(10, dtype=np.float32))
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (10,) and cai["typestr"] == "<f4" and cai["strides"] is None
    assert cai["data"][0] == d.device_ctypes_pointer
    v = d[::2]  # a strided view describes its strides
    assert v.__cuda_array_interface__["strides"] == (8,)
    if cutwin_backend == "sim":
        return  # simulator pointers are host addresses: no GPU library can use them
    import cupy  # present on the GPU machine: the interface lets it share the memory

    c = cupy.asarray(d)
    assert int(c.data.ptr) == d.device_ctypes_pointer
    np.testing.assert_array_equal(cupy.asnumpy(c), np.arange(10, dtype=np.float32))


def test_transpose_is_a_new_array_computed_on_the_device(cutwin_backend):
    from cutwin.cuda.transpose import transpose

    h = np.arange(37 * 70, dtype=np.float64).reshape(37, 70)  # tiles with remainders both ways
    d = cuda.to_device(h)
    t = d.T
    assert t.shape == (70, 37) and t.strides == (37 * 8, 8)  # C-contiguous, as numba's
    np.testing.assert_array_equal(t.copy_to_host(), h.T)
    add_one_2d[(10, 10), (8, 8)](t)  # a copy: d is unchanged
    np.testing.assert_array_equal(d.copy_to_host(), h)
    view = d[::2, ::3].T  # of a strided view
    np.testing.assert_array_equal(view.copy_to_host(), h[::2, ::3].T)
    assert d.transpose((0, 1)) is d
    with pytest.raises(NotImplementedError):
        cuda.to_device(np.zeros(3)).T
    rec = np.zeros((3, 5), np.dtype([("i", np.int32), ("m", np.float32, (3, 2))]))
    rec["i"] = np.arange(15).reshape(3, 5)
    rec["m"] = np.arange(15 * 6, dtype=np.float32).reshape(3, 5, 3, 2)
    out = cuda.device_array((5, 3), rec.dtype)
    assert transpose(rec, out) is out  # a host array is copied to the device first
    got = out.copy_to_host()
    np.testing.assert_array_equal(got["i"], rec["i"].T)
    np.testing.assert_array_equal(got["m"], rec["m"].transpose(1, 0, 2, 3))
