"""`numba.cuda.cudadrv.devicearray`: cutwin's device arrays under numba's module name."""
from ..devicearray import (DeviceNDArray, IpcArrayHandle, MappedNDArray, auto_device,  # noqa: F401
                           from_cuda_array_interface, is_cuda_array)

DeviceNDArrayBase = DeviceNDArray


def is_cuda_ndarray(obj):
    """True for a device array (numba's test: it has `__cuda_ndarray__`)."""
    return getattr(obj, "__cuda_ndarray__", False)
