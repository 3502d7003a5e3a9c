"""`numba.cuda.cudadrv.driver`: the memory classes EMM plugins build on."""
from ..memory import (AutoFreePointer, BaseCUDAMemoryManager, GetIpcHandleMixin,  # noqa: F401
                      HostOnlyCUDAMemoryManager, IpcHandle, MappedMemory, MemoryInfo, MemoryPointer,
                      NumbaCUDAMemoryManager, PinnedMemory)
