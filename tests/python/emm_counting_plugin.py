"""An EMM plugin for the tests: it counts allocations and frees, and takes device memory
from another library (NumPy buffers on the simulator, where device memory is host memory;
CuPy on a GPU), as a plugin such as RMM's would. Host memory comes from
HostOnlyCUDAMemoryManager. Selected with set_memory_manager(CountingMemoryManager) or
NUMBA_CUDA_MEMORY_MANAGER=emm_counting_plugin."""
import numpy as np

from cutwin.cuda import GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MemoryInfo, MemoryPointer


class CountingMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    counts = {"memalloc": 0, "freed": 0, "bytes": 0, "memhostalloc": 0, "mempin": 0, "initialize": 0}

    def initialize(self):
        type(self).counts["initialize"] += 1

    def memalloc(self, size):
        counts = type(self).counts
        counts["memalloc"] += 1
        counts["bytes"] += size
        if self.context.device.is_simulator:
            buffer = np.empty(max(size, 1), np.uint8)
            address = buffer.ctypes.data
        else:
            import cupy
            buffer = cupy.cuda.alloc(max(size, 1))
            address = buffer.ptr

        def free(buffer=buffer):
            counts["freed"] += 1
        return MemoryPointer(self.context, address, size, finalizer=free)

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        type(self).counts["memhostalloc"] += 1
        return super().memhostalloc(size, mapped, portable, wc)

    def mempin(self, owner, pointer, size, mapped=False):
        type(self).counts["mempin"] += 1
        return super().mempin(owner, pointer, size, mapped)

    def get_memory_info(self):
        return MemoryInfo(free=2 ** 30, total=2 ** 31)

    @property
    def interface_version(self):
        return 1


_numba_memory_manager = CountingMemoryManager
