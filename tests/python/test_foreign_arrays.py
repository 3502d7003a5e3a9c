"""Other libraries' arrays as kernel arguments, used in place (python/src/foreign_arrays.h):
through the CUDA Array Interface and through DLPack, read in C++ at launch; and DLPack both
ways (`cuda.from_dlpack`, `DeviceNDArray.__dlpack__`). On the simulator the producers are
host memory (NumPy's), which is what its device memory is; on a GPU, cutwin's own device
arrays seen only through the interfaces. Results against NumPy."""
import numpy as np
import pytest

from cutwin import cuda


class InterfaceOnly:
    """An array seen only through its CUDA Array Interface (a class property, as CuPy's)."""

    def __init__(self, desc, keep):
        self._desc, self._keep = desc, keep

    @property
    def __cuda_array_interface__(self):
        return self._desc


class DlpackOnly:
    """An array seen only through DLPack."""

    def __init__(self, producer):
        self._producer = producer

    def __dlpack__(self, **kwargs):
        return self._producer.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._producer.__dlpack_device__()


def host_interface(a, stream=None):
    """NumPy memory through the interface: device memory on the simulator."""
    return InterfaceOnly({"shape": a.shape, "strides": a.strides, "typestr": a.dtype.str,
                          "data": (a.ctypes.data, False), "version": 3, "stream": stream}, a)


def foreign(backend, host, how, stream=None):
    """`host`'s values in another library's array, and a function reading them back."""
    if backend == "sim":
        if how == "interface":
            return host_interface(host, stream), lambda: host
        return DlpackOnly(host), lambda: host
    d = cuda.to_device(host)  # a GPU: cutwin's memory, seen only through the interface
    if how == "interface":
        desc = dict(d.__cuda_array_interface__, stream=stream)
        return InterfaceOnly(desc, d), d.copy_to_host
    return DlpackOnly(d), d.copy_to_host


@cuda.jit
def scale_add(out, a, k):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] * k + out[i, j]


@cuda.jit
def flip(flags):
    i = cuda.grid(1)
    if i < flags.size:
        flags[i] = not flags[i]


@pytest.mark.parametrize("how", ["interface", "dlpack"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int16, np.complex128, np.float16])
def test_foreign_arrays_are_used_in_place(cutwin_backend, how, dtype):
    rng = np.random.default_rng(5)
    base = (rng.integers(-50, 50, (12, 20)) + (1j * rng.integers(-5, 5, (12, 20)) if dtype == np.complex128 else 0))
    a_host = base.astype(dtype)
    out_host = np.ones((12, 20), dtype)
    a, _ = foreign(cutwin_backend, a_host, how)
    out, read_out = foreign(cutwin_backend, out_host, how)
    scale_add[(2, 3), (8, 8)](out, a, dtype(3))
    np.testing.assert_array_equal(read_out(), a_host * dtype(3) + np.ones((12, 20), dtype))


@pytest.mark.parametrize("how", ["interface", "dlpack"])
def test_strided_views_and_booleans(cutwin_backend, how):
    big = np.arange(24 * 40, dtype=np.float64).reshape(24, 40)
    view = big[::2, 1::3]  # strides of whole elements, not contiguous
    out_host = np.zeros(view.shape)
    a, _ = foreign(cutwin_backend, np.ascontiguousarray(view) if cutwin_backend != "sim" else view, how)
    out, read_out = foreign(cutwin_backend, out_host, how)
    scale_add[(2, 2), (8, 8)](out, a, 2.0)
    np.testing.assert_array_equal(read_out(), view * 2)
    flags_host = np.array([True, False, True, True, False])
    want = ~flags_host
    flags, read_flags = foreign(cutwin_backend, flags_host, how)
    flip[1, 32](flags)
    np.testing.assert_array_equal(read_flags(), want)


def test_interface_streams_and_the_sync_setting(cutwin_backend, monkeypatch):
    """The producer's stream (legacy default, per-thread default, another) and numba's
    CUDA_ARRAY_INTERFACE_SYNC=0: the results are the same."""
    s = cuda.stream()
    for stream in (None, 1, 2, int(s.handle) or None):
        host = np.arange(40, dtype=np.float64).reshape(2, 20)
        a, _ = foreign(cutwin_backend, host, "interface", stream)
        out, read_out = foreign(cutwin_backend, np.zeros((2, 20)), "interface", stream)
        scale_add[(1, 3), (8, 8)](out, a, 0.5)
        np.testing.assert_array_equal(read_out(), host * 0.5)
    monkeypatch.setenv("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")
    out, read_out = foreign(cutwin_backend, np.zeros((2, 20)), "interface", int(s.handle) or 1)
    scale_add[(1, 3), (8, 8), s](out, out, 0.5)
    s.synchronize()
    np.testing.assert_array_equal(read_out(), np.zeros((2, 20)))


def test_what_the_interface_path_does_not_read_goes_through_the_python_one(cutwin_backend):
    """Masks are refused as numba refuses them; records and bfloat16 take the package's path."""
    host = np.zeros(4)
    desc = dict(host_interface(host).__cuda_array_interface__, mask=(0, False))
    if cutwin_backend != "sim":
        d = cuda.to_device(host)
        desc = dict(d.__cuda_array_interface__, mask=(0, False))
    with pytest.raises(NotImplementedError, match="Masked arrays are not supported"):
        flip[1, 32](InterfaceOnly(desc, host))


def test_from_dlpack_and_back(cutwin_backend):
    d = cuda.to_device(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert d.__dlpack_device__() == ((1, 0) if cutwin_backend == "sim" else (2, d._arr.device.ordinal))
    again = cuda.from_dlpack(d)  # the same memory, no copy
    assert again.device_ctypes_pointer.value == d.device_ctypes_pointer.value
    assert again.shape == (3, 4) and again.dtype == np.float32
    np.testing.assert_array_equal(again.copy_to_host(), np.arange(12, dtype=np.float32).reshape(3, 4))
    if cutwin_backend == "sim":
        host = np.from_dlpack(d)  # NumPy uses the simulator's device memory in place
        scale_add[(1, 1), (8, 8)](d, d, np.float32(1))  # d = 2 d
        np.testing.assert_array_equal(host, 2 * np.arange(12, dtype=np.float32).reshape(3, 4))
        mine = np.array([True, False, False])
        shared = cuda.from_dlpack(mine)  # host memory is device memory here: in place
        flip[1, 32](shared)
        np.testing.assert_array_equal(mine, [False, True, True])
    else:
        with pytest.raises(TypeError, match="cannot use host memory in place"):
            cuda.from_dlpack(np.arange(6))


def test_dlpack_exports_keep_the_array_alive(cutwin_backend):
    d = cuda.to_device(np.arange(1000, dtype=np.float64))
    view = cuda.from_dlpack(DlpackOnly(d))
    del d
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(1000, dtype=np.float64))


def test_dlpack_capsules_and_producers_whose_capsule_owns_the_memory(cutwin_backend):
    """The imported array lives as long as cutwin's views of it, whoever else drops it."""
    if cutwin_backend != "sim":
        source = cuda.to_device(np.arange(4096, dtype=np.float64))
        capsule = source.__dlpack__()
    else:
        capsule = np.arange(4096, dtype=np.float64).__dlpack__()  # only the capsule holds it
    view = cuda.from_dlpack(capsule)
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(4096, dtype=np.float64))

    class Temporary:
        """Each export is of a new array, which only the capsule keeps alive."""

        def __init__(self, make):
            self._make = make

        def __dlpack__(self, **kwargs):
            return self._make().__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self._make().__dlpack_device__()

    make = (lambda: np.full(2048, 7.0)) if cutwin_backend == "sim" else \
        (lambda: cuda.to_device(np.full(2048, 7.0)))
    kept = cuda.from_dlpack(Temporary(make))
    noise = [np.full(2048, -1.0) for _ in range(64)]  # (memory a freed array's would be given to)
    np.testing.assert_array_equal(kept.copy_to_host(), np.full(2048, 7.0))
    out = np.zeros((1, 2048))
    d_out, read_out = foreign(cutwin_backend, out, "dlpack")
    scale_add[(1, 64), (8, 32)](d_out, kept.reshape(1, 2048), 2.0)
    np.testing.assert_array_equal(read_out(), np.full((1, 2048), 14.0))
    del noise
    with pytest.raises(TypeError, match="no DLPack producer"):
        cuda.from_dlpack(bytearray(8))


def test_non_native_byte_order_is_refused(cutwin_backend):
    big = np.arange(4, dtype=">f4")
    desc = {"shape": (4,), "strides": None, "typestr": big.dtype.str, "data": (big.ctypes.data, False),
            "version": 3}
    with pytest.raises(NotImplementedError, match="non-native byteorder"):
        flip[1, 32](InterfaceOnly(desc, big))


def test_interface_pointers_may_be_numpy_integers(cutwin_backend):
    host = np.zeros((2, 3))
    a, read = foreign(cutwin_backend, host, "interface")
    desc = dict(a.__cuda_array_interface__)
    desc["data"] = (np.uint64(desc["data"][0]), False)
    scale_add[(1, 1), (8, 8)](InterfaceOnly(desc, a), InterfaceOnly(desc, a), 1.0)
    np.testing.assert_array_equal(read(), np.zeros((2, 3)))
