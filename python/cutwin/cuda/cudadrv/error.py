"""numba.cuda.cudadrv.error: the driver's exception classes (cutwin's DeviceError)."""
from ...errors import DeviceError


class CudaDriverError(DeviceError):
    """A CUDA driver call failed."""


class CudaRuntimeError(DeviceError):
    pass


class CudaSupportError(DeviceError):
    """CUDA is not usable here (no driver or no GPU)."""


class NvvmError(DeviceError):
    pass


class NvrtcError(DeviceError):
    pass
