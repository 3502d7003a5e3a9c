"""numba.cuda._internal.cuda_bf16: CUDA's cuda_bf16.h as numba-cuda's generated bindings
name it. `nv_bfloat16` is the bfloat16 type (construct, convert, compute, `isinstance`);
the functions are cutwin.cuda.bf16's (docs/language.md)."""
from .. import bf16 as _bf16

nv_bfloat16 = _bf16.bfloat16

_NAMES = [n for n in _bf16.NAMES]
globals().update({n: getattr(_bf16, n) for n in _NAMES})
__all__ = ["nv_bfloat16"] + _NAMES
