"""`numba.cuda.cudadrv.driver`: the memory classes EMM plugins build on."""
from ..memory import (AutoFreePointer, BaseCUDAMemoryManager, GetIpcHandleMixin,  # noqa: F401
                      HostOnlyCUDAMemoryManager, IpcHandle, MappedMemory, MemoryInfo, MemoryPointer,
                      NumbaCUDAMemoryManager, PinnedMemory)
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


class _Driver:
    """numba's `driver` object. cutwin's driver calls are made in C++ (runtime/), so none
    are reachable here; code that replaces attributes of it changes nothing cutwin does."""

    def __repr__(self):
        return "<cutwin driver (calls made in C++)>"


driver = _Driver()
