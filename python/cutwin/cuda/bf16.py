"""numba.cuda.bf16: the bfloat16 type and the functions of CUDA's cuda_bf16.h, called from
kernels by numba-cuda's names (`bf16.hadd(a, b)`, `from numba.cuda.bf16 import hfma,
float32_to_bfloat16_rz, bfloat16_as_int16`). Each is computed on the values' float32 and
rounded once, as the header's device code rounds, on the simulator and on the GPU alike
(docs/language.md). On the host they raise."""
from .. import _cutwin, types
from .kernel_only import define

bfloat16 = types.bfloat16  # the type, also numba-cuda's constructor

# The registry's cuda.bf16 rows.
NAMES = [n[len("cuda.bf16."):] for n in _cutwin.builtin_function_names() if n.startswith("cuda.bf16.")]
__all__ = ["bfloat16"] + define(globals(), "cuda.bf16.", NAMES)
