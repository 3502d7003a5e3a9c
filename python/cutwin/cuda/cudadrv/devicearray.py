"""`numba.cuda.cudadrv.devicearray`: cutwin's device arrays under numba's module name."""
from ..devicearray import (DeviceNDArray, IpcArrayHandle, MappedNDArray, auto_device,  # noqa: F401
                           device_array_like, from_cuda_array_interface, is_cuda_array)

DeviceNDArrayBase = DeviceNDArray


def is_cuda_ndarray(obj):
    """True for a device array (numba's test: it has `__cuda_ndarray__`)."""
    return getattr(obj, "__cuda_ndarray__", False)


def from_array_like(ary, stream=0, gpu_data=None):
    """numba's: an uninitialised device array of `ary`'s shape, strides and dtype."""
    if gpu_data is not None:
        raise TypeError("cutwin's from_array_like allocates its own memory (gpu_data is not supported)")
    return device_array_like(ary, stream)
