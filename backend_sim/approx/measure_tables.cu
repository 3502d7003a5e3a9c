// Measures, on a GPU, table models of the PTX approximation instructions libdevice reaches,
// and verifies each model against the instruction on every input (2^32 bit patterns):
//   rcp.approx.ftz.f32   T[2^23] = rcp(1.m), the exponent subtracted
//   rcp.approx.ftz.f64   reads the high word only: T[2^20] = high word of rcp(1.m20)
//   ex2.approx.ftz.f32   the unit reads |x| to 2^-23: k = trunc(|x| 2^23): T+[k mod 2^23]
//                        2^(k >> 23) for x >= 0, T-[...] 2^-(k >> 23) for x < 0 (one table
//                        cannot serve both signs)
//   rsqrt.approx.ftz.f32 x = 1.m 2^e: T0[m] = rsqrt(1.m) for even e, T1[m] = rsqrt(2 (1.m))
//                        for odd e, the exponent shifted by -floor(e / 2)
//   rsqrt.approx.ftz.f64 the same on the high word (2^20 entries each)
//   lg2.approx.ftz.f32   x = 1.m 2^e: the instruction forms e + lg2(1.m) exactly and truncates
//                        it (round to zero); T0[m] = lg2(1.m), T1[m] = lg2(1.m / 2), and the
//                        result is RZ(e + T0[m]) for e >= 0, RZ((e + 1) + T1[m]) for e < 0
//                        (both sums exact; truncation composes where the signs agree)
//   sqrt.approx.ftz.f32  as rsqrt: T0[m] = sqrt(1.m), T1[m] = sqrt(2 (1.m)), exponent shifted
//                        by +floor(e / 2)
//   sin/cos.approx.f32   t = RZ(x * float(1/(2 pi))); the units read q = floor(frac(|t|) 2^25):
//                        sin = +-Ts[q] (the sign of t), cos = Tc[q]. A table entry is the
//                        output any input with that q gives (collected over all 2^32 inputs,
//                        and checked to be one value per q); q no input reaches repeats its
//                        predecessor
//   tanh.approx.f32      x itself below 2^-8 (zeros and subnormals included), +-1 from 8 up;
//                        between, the unit reads the top K(e) mantissa bits of x = 1.m 2^e
//                        (K = 17 17 17 18 18 19 19 19 20 21 20 for e = -8 .. 2, the fewest
//                        with one output each): +-T[offset(e) + (m >> (23 - K(e)))]
// The non-ftz forms, div.approx/div.full and rsqrt.approx.f64 are short sequences around these
// (ptxas's SASS), checked in measure_tables by composing the instructions themselves.
// Writes each table as raw little-endian uint32s (<arch>.<name>.u32); compress_tables.py
// packs them into the chunks backend_sim/approx/ stores. Usage:
//   measure_tables OUTDIR && python3 compress_tables.py OUTDIR
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e = (x);                                                                           \
    if (e != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));                                 \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

/// A device function running one unary float32 PTX instruction.
#define APPROX(name, ins)                                                                          \
  __device__ float name(float x) {                                                                 \
    float r;                                                                                       \
    asm(ins " %0, %1;" : "=f"(r) : "f"(x));                                                        \
    return r;                                                                                      \
  }
APPROX(rcp32, "rcp.approx.ftz.f32")
__device__ double rcp64(double x) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  return r;
}
APPROX(ex2, "ex2.approx.ftz.f32")

APPROX(rsqrt32, "rsqrt.approx.ftz.f32")
__device__ double rsqrt64(double x) {
  double r;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  return r;
}

APPROX(lg2, "lg2.approx.ftz.f32")
APPROX(sqrt32, "sqrt.approx.ftz.f32")

__global__ void tableLg2Sqrt(uint32_t *l0, uint32_t *l1, uint32_t *s0, uint32_t *s1) {
  uint32_t m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m < (1u << 23)) {
    l0[m] = __float_as_uint(lg2(__uint_as_float(0x3f800000u | m)));
    l1[m] = __float_as_uint(lg2(__uint_as_float(0x3f000000u | m)));
    s0[m] = __float_as_uint(sqrt32(__uint_as_float(0x3f800000u | m)));
    s1[m] = __float_as_uint(sqrt32(__uint_as_float(0x40000000u | m)));
  }
}

__global__ void tableRsqrt(uint32_t *t0, uint32_t *t1, uint32_t *d0, uint32_t *d1) {
  uint32_t m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m < (1u << 23)) {
    t0[m] = __float_as_uint(rsqrt32(__uint_as_float(0x3f800000u | m)));
    t1[m] = __float_as_uint(rsqrt32(__uint_as_float(0x40000000u | m)));
  }
  if (m < (1u << 20)) {
    d0[m] = uint32_t(__double_as_longlong(rsqrt64(__longlong_as_double((0x3ff00000ll | m) << 32))) >> 32);
    d1[m] = uint32_t(__double_as_longlong(rsqrt64(__longlong_as_double((0x40000000ll | m) << 32))) >> 32);
  }
}

__global__ void tableRcp32(uint32_t *t) {
  uint32_t m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m < (1u << 23))
    t[m] = __float_as_uint(rcp32(__uint_as_float(0x3f800000u | m)));
}
__global__ void tableRcp64(uint32_t *t) {
  uint32_t m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m < (1u << 20))
    t[m] = uint32_t(__double_as_longlong(rcp64(__longlong_as_double((0x3ff00000ll | m) << 32))) >> 32);
}
__global__ void tableEx2(uint32_t *pos, uint32_t *neg) {
  uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < (1u << 23)) {
    float f = float(j) * 0x1p-23f; // exact
    pos[j] = __float_as_uint(ex2(f));
    neg[j] = __float_as_uint(ex2(-f));
  }
}

// ---- the models, as the simulator evaluates them -------------------------------------------

__device__ uint32_t modelRcp32(uint32_t u, const uint32_t *T) {
  uint32_t s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return m ? 0x7fffffffu : s; // NaN; 1/inf = 0
  if (e == 0)
    return s | 0x7f800000u; // zero and (flushed) subnormals: inf
  int32_t r = int32_t((T[m] >> 23) & 0xff) - (int32_t(e) - 127);
  if (r <= 0)
    return s; // flushed
  return s | (uint32_t(r) << 23) | (T[m] & 0x7fffff);
}

__device__ uint64_t kNaN64; // the NaN the instruction returns, read from the GPU first
__device__ uint64_t kNaN64Rsqrt;

__global__ void probeNaN() {
  kNaN64 = uint64_t(__double_as_longlong(rcp64(__longlong_as_double(0x7ff8000000000001ll))));
  kNaN64Rsqrt = uint64_t(__double_as_longlong(rsqrt64(__longlong_as_double(0x7ff8000000000001ll))));
}

__device__ uint64_t modelRcp64(uint64_t u, const uint32_t *T) {
  uint32_t hi = uint32_t(u >> 32);
  uint32_t s = hi & 0x80000000u, e = (hi >> 20) & 0x7ff, m = hi & 0xfffff;
  if (e == 0x7ff) // a NaN whose payload lies in the low word reads as infinity
    return m ? kNaN64 : uint64_t(s) << 32;
  if (e == 0)
    return uint64_t(s | 0x7ff00000u) << 32;
  int32_t r = int32_t((T[m] >> 20) & 0x7ff) - (int32_t(e) - 1023);
  if (r <= 0)
    return uint64_t(s) << 32;
  return uint64_t(s | (uint32_t(r) << 20) | (T[m] & 0xfffff)) << 32;
}

__device__ uint32_t modelEx2(uint32_t u, const uint32_t *P, const uint32_t *N) {
  uint32_t s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return m ? 0x7fffffffu : (s ? 0u : 0x7f800000u);
  if (e == 0)
    return 0x3f800000u; // flushed to 0: 2^0
  float a = __uint_as_float(u & 0x7fffffffu);
  if (a >= 128.0f)
    return s ? 0u : 0x7f800000u;
  uint32_t k = uint32_t(a * 0x1p23f); // |x| < 128: below 2^30, truncated
  uint32_t t = (s ? N : P)[k & 0x7fffff];
  int32_t r = int32_t((t >> 23) & 0xff) + (s ? -int32_t(k >> 23) : int32_t(k >> 23));
  if (r <= 0)
    return 0; // below 2^-126: flushed
  if (r >= 0xff)
    return 0x7f800000u;
  return (uint32_t(r) << 23) | (t & 0x7fffff);
}

__device__ uint32_t modelRsqrt32(uint32_t u, const uint32_t *T0, const uint32_t *T1) {
  uint32_t s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return (m || s) ? 0x7fffffffu : 0u; // NaN, rsqrt(-inf) = NaN, rsqrt(inf) = 0
  if (e == 0)
    return s | 0x7f800000u; // zero and flushed subnormals: +-inf
  if (s)
    return 0x7fffffffu;
  int32_t x = int32_t(e) - 127, odd = x & 1;
  uint32_t t = (odd ? T1 : T0)[m];
  int32_t r = int32_t((t >> 23) & 0xff) - ((x - odd) >> 1);
  return uint32_t(r) << 23 | (t & 0x7fffff);
}

__device__ uint64_t modelRsqrt64(uint64_t u, const uint32_t *T0, const uint32_t *T1) {
  uint32_t hi = uint32_t(u >> 32);
  uint32_t s = hi & 0x80000000u, e = (hi >> 20) & 0x7ff, m = hi & 0xfffff;
  if (e == 0x7ff)
    return (m || s) ? kNaN64Rsqrt : 0;
  if (e == 0)
    return uint64_t(s | 0x7ff00000u) << 32;
  if (s)
    return kNaN64Rsqrt;
  int32_t x = int32_t(e) - 1023, odd = x & 1;
  uint32_t t = (odd ? T1 : T0)[m];
  int32_t r = int32_t((t >> 20) & 0x7ff) - ((x - odd) >> 1);
  return uint64_t(uint32_t(r) << 20 | (t & 0xfffff)) << 32;
}

// ---- tanh --------------------------------------------------------------------------------------

APPROX(tanhApprox, "tanh.approx.f32")

constexpr int kTanhLowExp = -8, kTanhHighExp = 2;
__constant__ int kTanhBits[11] = {17, 17, 17, 18, 18, 19, 19, 19, 20, 21, 20};
__constant__ uint32_t kTanhOffset[12] = {0,       131072,  262144,  393216,  655360, 917504,
                                         1441792, 1966080, 2490368, 3538944, 5636096, 6684672};
constexpr uint32_t kTanhEntries = 6684672;

__global__ void tableTanh(uint32_t *T) {
  uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= kTanhEntries)
    return;
  int k = 0;
  while (kTanhOffset[k + 1] <= j)
    ++k;
  uint32_t q = j - kTanhOffset[k], e = uint32_t(kTanhLowExp + k + 127);
  T[j] = __float_as_uint(tanhApprox(__uint_as_float(e << 23 | q << (23 - kTanhBits[k]))));
}

__device__ uint32_t modelTanh(uint32_t u, const uint32_t *T) {
  uint32_t s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return m ? 0x7fffffffu : s | 0x3f800000u;
  int x = int(e) - 127;
  if (x < kTanhLowExp)
    return u;
  if (x > kTanhHighExp)
    return s | 0x3f800000u;
  int k = x - kTanhLowExp;
  return s | T[kTanhOffset[k] + (m >> (23 - kTanhBits[k]))];
}

// ---- sin and cos: collected from every input, then checked -----------------------------------

APPROX(sinApprox, "sin.approx.ftz.f32")
APPROX(cosApprox, "cos.approx.ftz.f32")

/// The phase the units read, and whether t is negative.
__device__ uint32_t phase(float x, bool *negative) {
  float t = __fmul_rz(x, 0.15915493667125701904f), a = fabsf(t);
  *negative = signbit(t);
  return uint32_t(__fmul_rn(__fsub_rn(a, floorf(a)), 0x1p25f)); // both exact; truncates
}

__global__ void collectSinCos(uint64_t base, uint32_t *S, uint32_t *C, unsigned long long *conflicts) {
  float x = __uint_as_float(uint32_t(base + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x));
  if (!isfinite(x))
    return;
  bool neg;
  uint32_t q = phase(x, &neg);
  uint32_t s = __float_as_uint(sinApprox(x)) ^ (neg ? 0x80000000u : 0u), c = __float_as_uint(cosApprox(x));
  uint32_t old = atomicCAS(&S[q], 0xffffffffu, s);
  if (old != 0xffffffffu && old != s)
    atomicAdd(conflicts, 1ull);
  old = atomicCAS(&C[q], 0xffffffffu, c);
  if (old != 0xffffffffu && old != c)
    atomicAdd(conflicts, 1ull);
}

__device__ uint32_t modelSin(uint32_t u, const uint32_t *S) {
  float x = __uint_as_float(u);
  if (!isfinite(x))
    return 0x7fffffffu;
  bool neg;
  uint32_t q = phase(x, &neg);
  return S[q] ^ (neg ? 0x80000000u : 0u);
}

__device__ uint32_t modelCos(uint32_t u, const uint32_t *C) {
  float x = __uint_as_float(u);
  if (!isfinite(x))
    return 0x7fffffffu;
  bool neg;
  return C[phase(x, &neg)];
}

__device__ uint32_t modelLg2(uint32_t u, const uint32_t *T0, const uint32_t *T1) {
  uint32_t s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return (m || s) ? 0x7fffffffu : 0x7f800000u; // NaN, lg2(-inf) = NaN, lg2(inf) = inf
  if (e == 0)
    return 0xff800000u; // zero and flushed subnormals: -inf
  if (s)
    return 0x7fffffffu;
  int32_t x = int32_t(e) - 127;
  double v = x >= 0 ? double(x) + double(__uint_as_float(T0[m])) : double(x + 1) + double(__uint_as_float(T1[m]));
  return __float_as_uint(__double2float_rz(v));
}

__device__ uint32_t modelSqrt32(uint32_t u, const uint32_t *T0, const uint32_t *T1) {
  uint32_t s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return (m || s) ? 0x7fffffffu : 0x7f800000u;
  if (e == 0)
    return s; // zero and flushed subnormals: +-0
  if (s)
    return 0x7fffffffu;
  int32_t x = int32_t(e) - 127, odd = x & 1;
  uint32_t t = (odd ? T1 : T0)[m];
  int32_t r = int32_t((t >> 23) & 0xff) + ((x - odd) >> 1);
  return uint32_t(r) << 23 | (t & 0x7fffff);
}

__global__ void verify(int which, uint64_t base, const uint32_t *A, const uint32_t *B,
                       unsigned long long *bad, uint64_t *first) {
  uint64_t i = base + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t u = uint32_t(i);
  bool ok;
  if (which == 0) {
    ok = __float_as_uint(rcp32(__uint_as_float(u))) == modelRcp32(u, A);
  } else if (which == 1) {
    // the high word varies over all 2^32 values; the low word is 0 or all ones
    uint64_t x = (uint64_t(u) << 32) | (i >> 32 ? 0xffffffffu : 0u);
    uint64_t got = uint64_t(__double_as_longlong(rcp64(__longlong_as_double(x))));
    ok = got == modelRcp64(x, A);
  } else if (which == 2) {
    ok = __float_as_uint(ex2(__uint_as_float(u))) == modelEx2(u, A, B);
  } else if (which == 3) {
    ok = __float_as_uint(rsqrt32(__uint_as_float(u))) == modelRsqrt32(u, A, B);
  } else if (which == 4) {
    uint64_t x = (uint64_t(u) << 32) | (i >> 32 ? 0xffffffffu : 0u);
    ok = uint64_t(__double_as_longlong(rsqrt64(__longlong_as_double(x)))) == modelRsqrt64(x, A, B);
  } else if (which == 5) {
    ok = __float_as_uint(lg2(__uint_as_float(u))) == modelLg2(u, A, B);
  } else if (which == 6) {
    ok = __float_as_uint(sqrt32(__uint_as_float(u))) == modelSqrt32(u, A, B);
  } else if (which == 7) {
    ok = __float_as_uint(sinApprox(__uint_as_float(u))) == modelSin(u, A) &&
         __float_as_uint(cosApprox(__uint_as_float(u))) == modelCos(u, B);
  } else {
    ok = __float_as_uint(tanhApprox(__uint_as_float(u))) == modelTanh(u, A);
  }
  if (!ok && atomicAdd(bad, 1ull) == 0)
    *first = i;
}

// ---- the sequences ptxas builds around the units (read from its SASS for sm_90), checked by
// composing the ftz instructions as the simulator composes its models of them ----------------

APPROX(ex2Full, "ex2.approx.f32")
APPROX(lg2Full, "lg2.approx.f32")
APPROX(rsqrtFull, "rsqrt.approx.f32")
APPROX(sqrtFull, "sqrt.approx.f32")
APPROX(rcpFull, "rcp.approx.f32")
__device__ float divFtz(float x, float y) {
  float r;
  asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
  return r;
}
__device__ float divApprox(float x, float y) {
  float r;
  asm("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
  return r;
}
__device__ float divFull(float x, float y) {
  float r;
  asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
  return r;
}
__device__ float mulFtz(float x, float y) {
  float r;
  asm("mul.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
  return r;
}
__device__ double rsqrt64Full(double x) {
  double r;
  asm("rsqrt.approx.f64 %0, %1;" : "=d"(r) : "d"(x));
  return r;
}

/// rsqrt.approx.f64: one Newton step from the unit's estimate; zeros, NaN, negative, inf and
/// subnormal (scaled by 2^54) off the fast path.
__device__ double seqRsqrt64(double x) {
  uint32_t hi = uint32_t(uint64_t(__double_as_longlong(x)) >> 32);
  double scale = 1.0;
  if (hi - 0x00100000u >= 0x7fe00000u) {
    if (x == 0)
      return __longlong_as_double((long long)(uint64_t((hi & 0x80000000u) | 0x7ff00000u) << 32));
    if (x != x)
      return x + x;
    if (hi & 0x80000000u)
      return __longlong_as_double((long long)0xfff8000000000000ull);
    if (isinf(x))
      return 0.0;
    x = __dmul_rn(x, 0x1p54);
    scale = 0x1p27;
  }
  double y = rsqrt64(x), e = __fma_rn(x, -__dmul_rn(y, y), 1.0);
  y = __fma_rn(__fma_rn(e, 0.375, 0.5), __dmul_rn(y, e), y);
  return scale == 1.0 ? y : __dmul_rn(y, scale);
}

__device__ uint32_t mix(uint64_t i) {
  uint64_t z = i * 0x9e3779b97f4a7c15ull;
  z ^= z >> 31;
  z *= 0xbf58476d1ce4e5b9ull;
  return uint32_t(z ^ (z >> 29));
}

/// Each of the 2^32 inputs x (and a pseudo-random dividend n, low word for f64) through the
/// non-ftz instructions and through their sequences; bad[k] counts mismatches of sequence k.
__global__ void verifySequences(uint64_t base, unsigned long long *bad) {
  uint64_t i = base + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t u = uint32_t(i);
  float x = __uint_as_float(u), n = __uint_as_float(mix(i));
  bool sub = fabsf(x) < 0x1p-126f; // false for NaN
  auto same = [](float a, float b) { return __float_as_uint(a) == __float_as_uint(b); };
  float h = ex2(__fmul_rn(x, 0.5f));
  if (!same(ex2Full(x), x >= -126.0f || x != x ? ex2(x) : __fmul_rn(h, h)))
    atomicAdd(&bad[0], 1ull);
  if (!same(lg2Full(x), sub ? __fadd_rn(lg2(__fmul_rn(x, 0x1p24f)), -24.0f) : lg2(x)))
    atomicAdd(&bad[1], 1ull);
  if (!same(rsqrtFull(x), sub ? __fmul_rn(rsqrt32(__fmul_rn(x, 0x1p24f)), 4096.0f) : rsqrt32(x)))
    atomicAdd(&bad[2], 1ull);
  if (!same(sqrtFull(x), sub ? __fmul_rn(sqrt32(__fmul_rn(x, 0x1p24f)), 0x1p-12f) : sqrt32(x)))
    atomicAdd(&bad[3], 1ull);
  float s = fabsf(x) > 0x1p126f ? 0.25f : sub ? 0x1p24f : 1.0f;
  if (!same(rcpFull(x), __fmul_rn(s, rcp32(__fmul_rn(x, s)))))
    atomicAdd(&bad[4], 1ull);
  if (!same(divFtz(n, x), mulFtz(n, rcp32(x))))
    atomicAdd(&bad[5], 1ull);
  float k = sub ? 0x1p24f : 1.0f;
  if (!same(divApprox(n, x), __fmul_rn(rcp32(__fmul_rn(x, k)), __fmul_rn(n, k))))
    atomicAdd(&bad[6], 1ull);
  float q = fabsf(x) > 0x1p126f ? 0.25f : 1.0f;
  if (!same(divFull(n, x), __fmul_rn(rcp32(__fmul_rn(__fmul_rn(x, q), k)), __fmul_rn(__fmul_rn(n, q), k))))
    atomicAdd(&bad[7], 1ull);
  double d = __longlong_as_double((long long)((uint64_t(u) << 32) | mix(i ^ 0x5555)));
  if (__double_as_longlong(rsqrt64Full(d)) != __double_as_longlong(seqRsqrt64(d)))
    atomicAdd(&bad[8], 1ull);
}

static void writeTable(const std::string &path, const std::vector<uint32_t> &t) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(t.data(), 4, t.size(), f) != t.size()) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fclose(f);
}

static unsigned long long check(int which, const uint32_t *A, const uint32_t *B, uint64_t n) {
  unsigned long long *bad;
  uint64_t *first;
  CK(cudaMallocManaged(&bad, sizeof *bad));
  CK(cudaMallocManaged(&first, sizeof *first));
  *bad = 0;
  for (uint64_t base = 0; base < n; base += 1ull << 30)
    verify<<<(1u << 30) / 256, 256>>>(which, base, A, B, bad, first);
  CK(cudaDeviceSynchronize());
  if (*bad)
    std::printf("  first mismatch at input 0x%llx\n", (unsigned long long)*first);
  return *bad;
}

int main(int argc, char **argv) {
  std::string dir = argc > 1 ? argv[1] : ".";
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("%s, sm_%d%d\n", p.name, p.major, p.minor);
  uint32_t *r32, *r64, *pos, *neg;
  CK(cudaMalloc(&r32, 4u << 23));
  CK(cudaMalloc(&r64, 4u << 20));
  CK(cudaMalloc(&pos, 4u << 23));
  CK(cudaMalloc(&neg, 4u << 23));
  probeNaN<<<1, 1>>>();
  uint64_t nan64;
  CK(cudaMemcpyFromSymbol(&nan64, kNaN64, sizeof nan64));
  std::printf("rcp.approx.ftz.f64 of a NaN: 0x%016llx\n", (unsigned long long)nan64);
  CK(cudaMemcpyFromSymbol(&nan64, kNaN64Rsqrt, sizeof nan64));
  std::printf("rsqrt.approx.ftz.f64 of a NaN: 0x%016llx\n", (unsigned long long)nan64);
  uint32_t *q0, *q1, *e0, *e1;
  CK(cudaMalloc(&q0, 4u << 23));
  CK(cudaMalloc(&q1, 4u << 23));
  CK(cudaMalloc(&e0, 4u << 20));
  CK(cudaMalloc(&e1, 4u << 20));
  tableRsqrt<<<(1u << 23) / 256, 256>>>(q0, q1, e0, e1);
  tableRcp32<<<(1u << 23) / 256, 256>>>(r32);
  tableRcp64<<<(1u << 20) / 256, 256>>>(r64);
  tableEx2<<<(1u << 23) / 256, 256>>>(pos, neg);
  uint32_t *l0, *l1, *s0, *s1;
  CK(cudaMalloc(&l0, 4u << 23));
  CK(cudaMalloc(&l1, 4u << 23));
  CK(cudaMalloc(&s0, 4u << 23));
  CK(cudaMalloc(&s1, 4u << 23));
  tableLg2Sqrt<<<(1u << 23) / 256, 256>>>(l0, l1, s0, s1);
  CK(cudaDeviceSynchronize());
  unsigned long long b0 = check(0, r32, nullptr, 1ull << 32);
  std::printf("rcp.approx.ftz.f32: %llu of 2^32 inputs differ from the model\n", b0);
  unsigned long long b1 = check(1, r64, nullptr, 1ull << 33);
  std::printf("rcp.approx.ftz.f64: %llu of 2^33 inputs (2^32 high words, two low words) differ\n", b1);
  unsigned long long b2 = check(2, pos, neg, 1ull << 32);
  std::printf("ex2.approx.ftz.f32: %llu of 2^32 inputs differ from the model\n", b2);
  unsigned long long b3 = check(3, q0, q1, 1ull << 32);
  std::printf("rsqrt.approx.ftz.f32: %llu of 2^32 inputs differ from the model\n", b3);
  unsigned long long b4 = check(4, e0, e1, 1ull << 33);
  std::printf("rsqrt.approx.ftz.f64: %llu of 2^33 inputs (2^32 high words, two low words) differ\n", b4);
  unsigned long long b5 = check(5, l0, l1, 1ull << 32);
  std::printf("lg2.approx.ftz.f32: %llu of 2^32 inputs differ from the model\n", b5);
  unsigned long long b6 = check(6, s0, s1, 1ull << 32);
  std::printf("sqrt.approx.ftz.f32: %llu of 2^32 inputs differ from the model\n", b6);
  uint32_t *ts, *tc;
  unsigned long long *conflicts;
  CK(cudaMalloc(&ts, 4u << 25));
  CK(cudaMalloc(&tc, 4u << 25));
  CK(cudaMemset(ts, 0xff, 4u << 25));
  CK(cudaMemset(tc, 0xff, 4u << 25));
  CK(cudaMallocManaged(&conflicts, sizeof *conflicts));
  *conflicts = 0;
  for (uint64_t base = 0; base < (1ull << 32); base += 1ull << 30)
    collectSinCos<<<(1u << 30) / 256, 256>>>(base, ts, tc, conflicts);
  CK(cudaDeviceSynchronize());
  std::printf("sin/cos.approx.f32: %llu inputs disagree with another of the same phase\n", *conflicts);
  std::vector<uint32_t> hs(1u << 25), hc(1u << 25);
  CK(cudaMemcpy(hs.data(), ts, 4u << 25, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hc.data(), tc, 4u << 25, cudaMemcpyDeviceToHost));
  size_t unreached = 0;
  for (size_t q = 0; q < hs.size(); ++q)
    if (hs[q] == 0xffffffffu) { // no input has this phase: any value serves; the previous packs best
      ++unreached;
      hs[q] = q ? hs[q - 1] : 0u;
      hc[q] = q ? hc[q - 1] : 0x3f800000u;
    }
  std::printf("sin/cos.approx.f32: %zu of 2^25 phases reached by no input\n", unreached);
  CK(cudaMemcpy(ts, hs.data(), 4u << 25, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(tc, hc.data(), 4u << 25, cudaMemcpyHostToDevice));
  unsigned long long b7 = check(7, ts, tc, 1ull << 32);
  std::printf("sin/cos.approx.f32: %llu of 2^32 inputs differ from the models\n", b7);
  uint32_t *th;
  CK(cudaMalloc(&th, 4ull * kTanhEntries));
  tableTanh<<<(kTanhEntries + 255) / 256, 256>>>(th);
  CK(cudaDeviceSynchronize());
  unsigned long long b8 = check(8, th, nullptr, 1ull << 32);
  std::printf("tanh.approx.f32: %llu of 2^32 inputs differ from the model\n", b8);
  unsigned long long *seqBad;
  CK(cudaMallocManaged(&seqBad, 9 * sizeof *seqBad));
  std::memset(seqBad, 0, 9 * sizeof *seqBad);
  for (uint64_t base = 0; base < (1ull << 32); base += 1ull << 30)
    verifySequences<<<(1u << 30) / 256, 256>>>(base, seqBad);
  CK(cudaDeviceSynchronize());
  const char *seqNames[9] = {"ex2.approx.f32", "lg2.approx.f32", "rsqrt.approx.f32", "sqrt.approx.f32",
                             "rcp.approx.f32", "div.approx.ftz.f32", "div.approx.f32", "div.full.f32",
                             "rsqrt.approx.f64"};
  unsigned long long seqTotal = 0;
  for (int k = 0; k < 9; ++k) {
    std::printf("%s as a sequence: %llu of 2^32 inputs differ\n", seqNames[k], seqBad[k]);
    seqTotal += seqBad[k];
  }
  auto fetch = [](const uint32_t *d, size_t n) {
    std::vector<uint32_t> h(n);
    CK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
    return h;
  };
  std::string arch = "sm_" + std::to_string(p.major) + std::to_string(p.minor);
  writeTable(dir + "/" + arch + ".rcp_approx_ftz_f32.u32", fetch(r32, 1u << 23));
  writeTable(dir + "/" + arch + ".rcp_approx_ftz_f64.u32", fetch(r64, 1u << 20));
  writeTable(dir + "/" + arch + ".ex2_approx_ftz_f32_pos.u32", fetch(pos, 1u << 23));
  writeTable(dir + "/" + arch + ".ex2_approx_ftz_f32_neg.u32", fetch(neg, 1u << 23));
  writeTable(dir + "/" + arch + ".rsqrt_approx_ftz_f32_even.u32", fetch(q0, 1u << 23));
  writeTable(dir + "/" + arch + ".rsqrt_approx_ftz_f32_odd.u32", fetch(q1, 1u << 23));
  writeTable(dir + "/" + arch + ".rsqrt_approx_ftz_f64_even.u32", fetch(e0, 1u << 20));
  writeTable(dir + "/" + arch + ".rsqrt_approx_ftz_f64_odd.u32", fetch(e1, 1u << 20));
  writeTable(dir + "/" + arch + ".lg2_approx_ftz_f32_e0.u32", fetch(l0, 1u << 23));
  writeTable(dir + "/" + arch + ".lg2_approx_ftz_f32_em1.u32", fetch(l1, 1u << 23));
  writeTable(dir + "/" + arch + ".sqrt_approx_ftz_f32_even.u32", fetch(s0, 1u << 23));
  writeTable(dir + "/" + arch + ".sqrt_approx_ftz_f32_odd.u32", fetch(s1, 1u << 23));
  writeTable(dir + "/" + arch + ".sin_approx_f32.u32", hs);
  writeTable(dir + "/" + arch + ".cos_approx_f32.u32", hc);
  writeTable(dir + "/" + arch + ".tanh_approx_f32.u32", fetch(th, kTanhEntries));
  return (b0 || b1 || b2 || b3 || b4 || b5 || b6 || b7 || b8 || *conflicts || seqTotal) ? 1 : 0;
}
