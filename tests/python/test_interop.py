"""The CUDA Array Interface both ways: cutwin arrays wrapped without copies
(from_cuda_array_interface, as_cuda_array), foreign producers passed to kernels in place,
and CuPy on a GPU."""
import numpy as np
import pytest

from cutwin import cuda
from interface_only import InterfaceOnly


@cuda.jit
def scale(a, k):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= k


class Producer:
    """A minimal foreign producer: it only exports the interface of memory it keeps."""

    def __init__(self, array):
        self._keep = array
        self.__cuda_array_interface__ = dict(array.__cuda_array_interface__)


def test_wrapping_shares_memory(cutwin_backend):
    d = cuda.to_device(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(np.zeros(2))
    w = cuda.from_cuda_array_interface(d.__cuda_array_interface__, owner=d)
    assert w.shape == (3, 4) and w.dtype == np.int32 and w.device_ctypes_pointer == d.device_ctypes_pointer
    w[1, 2] = 100  # writes through to the producer's memory
    assert d.copy_to_host()[1, 2] == 100
    col = cuda.as_cuda_array(Producer(d[:, 1]))  # a strided view
    np.testing.assert_array_equal(col.copy_to_host(), [1, 5, 9])


def test_foreign_arrays_are_kernel_arguments_in_place(cutwin_backend):
    d = cuda.to_device(np.arange(8, dtype=np.float64))
    p = Producer(d)
    scale[1, 8](p, 3.0)
    np.testing.assert_array_equal(d.copy_to_host(), 3.0 * np.arange(8))


def test_foreign_arrays_in_and_out_of_ufuncs(cutwin_backend):
    @cuda.vectorize(["float64(float64, float64)"])
    def add(a, b):
        return a + b

    h = np.linspace(0, 1, 10)
    np.testing.assert_array_equal(add(Producer(cuda.to_device(h)), 6).copy_to_host(), h + 6)
    target = cuda.device_array(10)
    got = add(h, 6, out=Producer(target))  # a device array of the foreign output's memory
    assert got.device_ctypes_pointer.value == target.device_ctypes_pointer.value
    np.testing.assert_array_equal(target.copy_to_host(), h + 6)

    @cuda.guvectorize(["(float64, float64, float64[:])"], "(),()->()")
    def gadd(a, b, out):
        out[0] = a + b

    np.testing.assert_array_equal(gadd(Producer(cuda.to_device(h)), 7.0).copy_to_host(), h + 7)
    target = cuda.device_array(10)
    got = gadd(h, 7.0, out=Producer(target))
    assert got.device_ctypes_pointer.value == target.device_ctypes_pointer.value
    np.testing.assert_array_equal(target.copy_to_host(), h + 7)


def test_not_an_interface():
    with pytest.raises(TypeError, match="CUDA Array Interface"):
        cuda.as_cuda_array([1, 2, 3])


def test_cupy_arrays_in_kernels(cutwin_backend):
    if cutwin_backend == "sim":
        return  # CuPy memory is GPU memory; the simulator's is the host's
    import cupy  # present on the GPU machine
    c = cupy.arange(16, dtype=cupy.float64)
    scale[1, 16](c, 2.0)
    np.testing.assert_array_equal(cupy.asnumpy(c), 2.0 * np.arange(16))
    w = cuda.as_cuda_array(c)
    assert w.device_ctypes_pointer == int(c.data.ptr)


def test_the_interface_names_the_arrays_stream_and_consumers_wait_for_it(cutwin_backend, monkeypatch):
    from unittest import mock

    s = cuda.stream()
    on_stream = cuda.device_array(10, stream=s)
    assert on_stream.__cuda_array_interface__["stream"] == int(s.handle) != 0
    assert cuda.device_array(10).__cuda_array_interface__["stream"] is None  # the default stream
    assert cuda.mapped_array(4, stream=s).__cuda_array_interface__["stream"] == int(s.handle)
    with mock.patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as sync:
        imported = cuda.as_cuda_array(InterfaceOnly(on_stream))
    sync.assert_called_once_with()  # the producer's work on its stream is done first
    assert imported.stream.external and int(imported.stream.handle) == int(s.handle)
    assert imported.device_ctypes_pointer.value == on_stream.device_ctypes_pointer.value
    with mock.patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as sync:
        cuda.as_cuda_array(InterfaceOnly(cuda.device_array(10)))  # no stream: nothing to wait for
        monkeypatch.setenv("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")
        cuda.as_cuda_array(InterfaceOnly(on_stream))  # waiting switched off, as numba's setting does
    sync.assert_not_called()


def test_interface_edge_cases(cutwin_backend):
    assert cuda.device_array(0).__cuda_array_interface__["data"][0] == 0  # no memory: a null pointer
    masked = dict(cuda.device_array(4).__cuda_array_interface__, mask=cuda.device_array(4, np.bool_))
    with pytest.raises(NotImplementedError, match="Masked arrays are not supported"):
        cuda.from_cuda_array_interface(masked)
    assert int(cuda.external_stream(0x12345678).handle) == 0x12345678
    assert cuda.default_stream().handle.value is None


def test_cffi_from_buffer_gives_a_pointer_to_the_data(cutwin_backend):
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()

    @cuda.jit
    def k(x):
        i = cuda.grid(1)
        if i < x.size:
            p = ffi.from_buffer(x[i:])  # a CPointer: C's p[j], from the view's first element
            p[0] = p[0] * 10 + i

    x = np.arange(6, dtype=np.int32)
    k[1, 6](x)
    np.testing.assert_array_equal(x, np.arange(6) * 10 + np.arange(6))

    @cuda.jit
    def bad(x):
        s = cuda.shared.array(4, np.int32)
        p = ffi.from_buffer(s)
        x[0] = p[0]

    with pytest.raises(Exception, match="ffi.from_buffer\\(\\) takes an array in global memory"):
        bad[1, 1](np.zeros(1, np.int32))
