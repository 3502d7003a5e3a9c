"""numba.cuda.fp16: the float16 functions of CUDA's cuda_fp16.h, called from kernels
(`cuda.fp16.hadd(a, b)`, `from numba.cuda.fp16 import hsin`). Each computes what the
header's device code computes, on the simulator and on the GPU alike (docs/numerics.md);
`math.sin` and friends on float16 are these functions too. On the host they raise."""
from .. import _cutwin
from .kernel_only import define

# The registry's cuda.fp16 rows: numba-cuda's short names, also spelt with two underscores
# (hadd, __hadd), and cuda_fp16.h's own (__hadd_rn, __float2half_rz, ...).
NAMES = [n[len("cuda.fp16."):] for n in _cutwin.builtin_function_names() if n.startswith("cuda.fp16.")]
__all__ = define(globals(), "cuda.fp16.", NAMES)
