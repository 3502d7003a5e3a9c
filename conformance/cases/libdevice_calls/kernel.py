from numba import cuda
from numba.cuda import libdevice


@cuda.jit
def libdevice_calls(x32, y32, x64, y64, n, m, k, out32, out64, outi):
    """numba.cuda.libdevice called directly: functions whose pointer parameters come back
    as results (sincos, frexp, modf, remquo), the arithmetic in each rounding mode, the
    fast and special functions, integer and conversion functions. The second operand of
    each is another input of the same set."""
    i = cuda.grid(1)
    if i >= x32.size:
        return
    a, b = x32[i], y32[i]
    c, d = x64[i], y64[i]
    p, q, r = n[i], m[i], k[i]
    wide = (p << 32) | q
    s, co = libdevice.sincosf(a)
    out32[0, i] = s
    out32[1, i] = co
    s, co = libdevice.fast_sincosf(a)
    out32[2, i] = s
    out32[3, i] = co
    s, co = libdevice.sincospif(a)
    out32[4, i] = s
    out32[5, i] = co
    mant, e = libdevice.frexpf(a)
    out32[6, i] = mant
    outi[0, i] = e
    frac, whole = libdevice.modff(a)
    out32[7, i] = frac
    out32[8, i] = whole
    rem, quo = libdevice.remquof(a, b)
    out32[9, i] = rem
    outi[1, i] = quo
    out32[10, i] = libdevice.sinpif(a)
    out32[11, i] = libdevice.exp10f(a)
    out32[12, i] = libdevice.fast_exp10f(a)
    out32[13, i] = libdevice.fast_log2f(a)
    out32[14, i] = libdevice.rsqrtf(a)
    out32[15, i] = libdevice.erfcinvf(a)
    out32[16, i] = libdevice.normcdfinvf(a)
    out32[17, i] = libdevice.fmaf_rd(a, b, a)
    out32[18, i] = libdevice.fmaf_ru(a, b, a)
    out32[19, i] = libdevice.fdiv_rz(a, b)
    out32[20, i] = libdevice.fsqrt_rd(a)
    out32[21, i] = libdevice.frcp_ru(a)
    out32[22, i] = libdevice.fadd_rd(a, b)
    out32[23, i] = libdevice.fmul_ru(a, b)
    out32[24, i] = libdevice.saturatef(a)
    out32[25, i] = libdevice.fdimf(a, b)
    out32[26, i] = libdevice.nextafterf(a, b)
    out32[27, i] = libdevice.fast_fdividef(a, b)
    out32[28, i] = libdevice.logbf(a)
    out32[29, i] = libdevice.j0f(a)
    out32[30, i] = libdevice.y1f(a)
    out32[31, i] = libdevice.erfcxf(a)
    out32[32, i] = libdevice.ynf(2, a)
    out32[33, i] = libdevice.double2float_rd(c)
    out32[34, i] = libdevice.half2float(libdevice.float2half_rn(a))

    s, co = libdevice.sincos(c)
    out64[0, i] = s
    out64[1, i] = co
    s, co = libdevice.sincospi(c)
    out64[2, i] = s
    out64[3, i] = co
    mant, e = libdevice.frexp(c)
    out64[4, i] = mant
    outi[2, i] = e
    frac, whole = libdevice.modf(c)
    out64[5, i] = frac
    out64[6, i] = whole
    rem, quo = libdevice.remquo(c, d)
    out64[7, i] = rem
    outi[3, i] = quo
    out64[8, i] = libdevice.dadd_rd(c, d)
    out64[9, i] = libdevice.dmul_ru(c, d)
    out64[10, i] = libdevice.ddiv_rz(c, d)
    out64[11, i] = libdevice.dsqrt_ru(c)
    out64[12, i] = libdevice.drcp_rd(c)
    out64[13, i] = libdevice.fma_rz(c, d, c)
    out64[14, i] = libdevice.rcbrt(c)
    out64[15, i] = libdevice.erfcx(c)
    out64[16, i] = libdevice.normcdf(c)
    out64[17, i] = libdevice.j1(c)
    out64[18, i] = libdevice.yn(3, c)
    out64[19, i] = libdevice.y0(c)
    out64[20, i] = libdevice.nextafter(c, d)
    out64[21, i] = libdevice.scalbn(c, r)
    out64[22, i] = libdevice.hypot(c, d)
    out64[23, i] = libdevice.atan2(c, d)
    out64[24, i] = libdevice.fmod(c, d)
    out64[25, i] = libdevice.powi(c, r)
    out64[26, i] = libdevice.fdim(c, d)

    outi[4, i] = libdevice.ilogbf(a)
    outi[5, i] = libdevice.ilogb(c)
    outi[6, i] = libdevice.popc(p)
    outi[7, i] = libdevice.brev(p)
    outi[8, i] = libdevice.clz(p)
    outi[9, i] = libdevice.ffs(p)
    outi[10, i] = libdevice.byte_perm(p, q, r)
    outi[11, i] = libdevice.mulhi(p, q)
    outi[12, i] = libdevice.umulhi(p, q)
    outi[13, i] = libdevice.hadd(p, q)
    outi[14, i] = libdevice.rhadd(p, q)
    outi[15, i] = libdevice.sad(p, q, r)
    outi[16, i] = libdevice.usad(p, q, r)
    outi[17, i] = libdevice.mul24(p, q)
    outi[18, i] = libdevice.popcll(wide)
    outi[19, i] = libdevice.brevll(wide)
    outi[20, i] = libdevice.mul64hi(wide, wide + p)
    outi[21, i] = libdevice.float2int_rd(a)
    outi[22, i] = libdevice.double2ll_rn(c)
    outi[23, i] = libdevice.float2half_rn(a)
    outi[24, i] = libdevice.float_as_int(a)
    outi[25, i] = libdevice.double2hiint(c)
    outi[26, i] = libdevice.isinff(a)
    outi[27, i] = libdevice.isnanf(a)
    outi[28, i] = libdevice.signbitd(c)
    outi[29, i] = libdevice.finitef(a)
    outi[30, i] = libdevice.llrint(c)
