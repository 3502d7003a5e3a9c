"""CUDA's 8-bit floats (cuda_fp8.h) in kernels, by numba-cuda's names
(numba.cuda._internal.cuda_fp8): the types fp8_e5m2, fp8_e4m3 and fp8_e8m0 - constructed
from numbers (`fp8_e4m3(x)`, saturating to the largest finite value; E8M0 rounds up to a
power of two) and converted to them (`float32(v)`, `int32(v)`, `bfloat16(v)`) - their
two- and four-element forms fp8x2_e4m3 ... fp8x4_e8m0 (from float32x2 / float64x2 vectors,
the bits in field __x), and the storage conversions on their bits: cvt_float_to_fp8,
cvt_double_to_fp8, cvt_bfloat16raw_to_fp8, cvt_float_to_e8m0, cvt_double_to_e8m0,
cvt_bfloat16raw_to_e8m0, cvt_e8m0_to_bf16raw, the pairs cvt_float2_to_fp8x2 & co., with the saturation_t and fp8_interpretation_t constants (and
cuda.bindings' cudaRoundMode). Bit for bit what cuda_fp8.hpp computes on an sm_90 GPU, on
every backend (docs/language.md). On the host the functions raise."""
import enum

from .. import _cutwin
from ..types import Scalar
from .kernel_only import define

fp8_e5m2 = Scalar("fp8_e5m2")
fp8_e4m3 = Scalar("fp8_e4m3")
fp8_e8m0 = Scalar("fp8_e8m0")
for _t in (fp8_e5m2, fp8_e4m3, fp8_e8m0):
    _t.__name__ = _t.name  # numba-cuda's are classes of these names


class saturation_t(enum.IntEnum):
    NOSAT = 0
    SATFINITE = 1


class fp8_interpretation_t(enum.IntEnum):
    E4M3 = 0
    E5M2 = 1


# The registry's cuda.fp8 rows.
NAMES = [n[len("cuda.fp8."):] for n in _cutwin.builtin_function_names() if n.startswith("cuda.fp8.")]
__all__ = ["fp8_e5m2", "fp8_e4m3", "fp8_e8m0", "saturation_t", "fp8_interpretation_t"] + define(
    globals(), "cuda.fp8.", NAMES)
