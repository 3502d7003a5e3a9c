"""numba.cuda._internal.cuda_fp8: CUDA's cuda_fp8.h as numba-cuda's generated bindings name
it, backed by cutwin.cuda.fp8 (the same objects)."""
from .. import fp8 as _fp8
from ..fp8 import *  # noqa: F401,F403

__all__ = list(_fp8.__all__)
