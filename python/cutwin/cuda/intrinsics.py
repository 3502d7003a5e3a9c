"""The names kernels use (`cuda.grid`, `cuda.threadIdx`, `cuda.shared.array`,
`cuda.syncthreads`, `cuda.atomic.add`, ...). cutwin's compiler reads them from the kernel's
source; in host code they only exist, and using them raises, as in numba."""


class _KernelOnly:
    """A name that means something inside kernels only."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError("cuda.%s() can only be used inside a kernel or device function" % self._name)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _KernelOnly("%s.%s" % (self._name, attr))

    def __repr__(self):
        return "<kernel-only cuda.%s>" % self._name


_NAMES = """grid gridsize threadIdx blockIdx blockDim gridDim laneid warpsize syncthreads
syncthreads_count syncthreads_and syncthreads_or syncwarp threadfence threadfence_block
threadfence_system shared local const atomic shfl_sync shfl_up_sync shfl_down_sync
shfl_xor_sync all_sync any_sync eq_sync ballot_sync match_any_sync match_all_sync
activemask lanemask_lt popc brev clz ffs fma cbrt selp cg nanosleep ldca ldcg ldcs ldlu ldcv stcg stcs stwb stwt breakpoint""".split()

for _n in _NAMES:
    globals()[_n] = _KernelOnly(_n)

__all__ = list(_NAMES)
