"""numba.cuda.fp16: the float16 functions of CUDA's cuda_fp16.h, called from kernels
(`cuda.fp16.hadd(a, b)`, `from numba.cuda.fp16 import hsin`). Each computes what the
header's device code computes, on the simulator and on the GPU alike (docs/numerics.md);
`math.sin` and friends on float16 are these functions too. On the host they raise."""


class _Stub:
    """A cuda.fp16 function outside a kernel."""

    def __init__(self, name):
        self.__name__ = name
        self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError("cuda.fp16.%s() can only be called in a kernel or device function" % self.__name__)

    def __repr__(self):
        return "<cuda.fp16 function %s>" % self.__name__


# numba-cuda's short names are also spelt with two underscores (hadd, __hadd).
_SHORT = """hadd hsub hmul hdiv hfma hneg habs heq hne hge hgt hle hlt hmax hmin hsin hcos hexp hexp2
hexp10 hlog hlog2 hlog10 hrcp hrsqrt hsqrt htanh htanh_approx hceil hfloor htrunc hrint""".split()
_LONG = """__hadd_rn __hsub_rn __hmul_rn __hadd_sat __hsub_sat __hmul_sat __hfma_sat __hfma_relu __hequ
__hneu __hgeu __hgtu __hleu __hltu __hmax_nan __hmin_nan __hisinf __hisnan __half2float __float2half
__float2half_rn __float2half_rz __float2half_rd __float2half_ru __double2half __half2char_rz
__half2uchar_rz __short_as_half __ushort_as_half __half_as_short __half_as_ushort""".split()
_CONVERSIONS = ["__%s2half_%s" % (t, m) for t in ("short", "ushort", "int", "uint", "ll", "ull")
                for m in ("rn", "rz", "rd", "ru")] + \
               ["__half2%s_%s" % (t, m) for t in ("short", "ushort", "int", "uint", "ll", "ull")
                for m in ("rn", "rz", "rd", "ru")]

NAMES = _SHORT + ["__" + n for n in _SHORT] + _LONG + _CONVERSIONS

for _n in NAMES:
    globals()[_n] = _Stub(_n)

__all__ = list(NAMES)
