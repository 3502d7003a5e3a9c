"""The names kernels use (`cuda.grid`, `cuda.threadIdx`, `cuda.shared.array`,
`cuda.syncthreads`, `cuda.atomic.add`, ...). cutwin's compiler reads them from the kernel's
source; in host code they only exist, and using them raises, as in numba. The list is the
compiler's (its registry of builtins and the `cuda` namespaces: docs/language.md)."""
from .. import _cutwin
from .kernel_only import define

__all__ = define(globals(), "cuda.", _cutwin.cuda_kernel_only_names())
