"""`numba.cuda.cudadrv.driver`: devices, contexts and the memory classes EMM plugins build
on, over cutwin's devices (the driver calls themselves are made in C++, runtime/)."""
from ..memory import (AutoFreePointer, BaseCUDAMemoryManager, Context, GetIpcHandleMixin,  # noqa: F401
                      HostOnlyCUDAMemoryManager, IpcHandle, MappedMemory, MemoryInfo, MemoryPointer,
                      NumbaCUDAMemoryManager, PendingDeallocs, PinnedMemory)
from .. import runtime
from ..runtime import Event, Stream  # noqa: F401,E402
from .error import CudaDriverError, CudaSupportError  # noqa: F401,E402


class CudaAPIError(CudaDriverError):
    """A driver call returned an error code."""

    def __init__(self, code, msg):
        self.code, self.msg = code, msg
        super().__init__(code, msg)

    def __str__(self):
        return "[%s] %s" % (self.code, self.msg)


def _have_nvjitlink():
    """cutwin links device code with the CUDA driver's linker, not nvJitLink."""
    return False


def Device(devnum):
    """numba's `Device(devnum)`: device `devnum` of the current backend (the simulator is
    device 0 of its backend)."""
    devices = runtime.list_devices()
    if not 0 <= int(devnum) < len(devices):
        raise CudaSupportError("no CUDA device %d (the %s backend has %d)"
                               % (devnum, runtime.current_backend(), len(devices)))
    return devices[int(devnum)]


def _raise_driver_not_found():
    raise CudaSupportError("CUDA driver library cannot be found (cutwin runs kernels on its simulator where "
                           "there is no GPU)")


class _Driver:
    """numba's `driver` object: what code asks of it (is CUDA available, how many devices).
    cutwin's driver calls are made in C++, so code that replaces attributes of this object
    changes nothing cutwin does."""

    @property
    def is_available(self):
        return runtime.is_available()

    def get_device_count(self):
        return len(runtime.list_devices())

    def get_device(self, devnum=0):
        return Device(devnum)

    def list_devices(self):
        return runtime.list_devices()

    def __repr__(self):
        return "<cutwin driver (calls made in C++)>"


driver = _Driver()
