"""numba-cuda's NRT runtime system (`numba.cuda.memory_management.nrt.rtsys`) as cutwin has
it. numba's NRT is the allocator behind arrays that kernels create (`np.empty` in a
kernel); cutwin's kernels create none, so its allocation statistics are all zero, which is
what numba-cuda's leak checks (MemoryLeakMixin) compare before and after a test."""
import collections

_AllocationStats = collections.namedtuple("_nrt_mstats", ["alloc", "free", "mi_alloc", "mi_free"])


class _Runtime:
    def __init__(self):
        self._stats_enabled = False

    def memsys_enable_stats(self):
        self._stats_enabled = True

    def memsys_disable_stats(self):
        self._stats_enabled = False

    def memsys_stats_enabled(self):
        return self._stats_enabled

    def get_allocation_stats(self):
        """Allocations and frees made by kernels: none."""
        return _AllocationStats(0, 0, 0, 0)

    def initialize(self, ctx=None):
        pass

    def close(self):
        pass


rtsys = _Runtime()
