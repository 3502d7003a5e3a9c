// Measures, on a GPU, table models of the PTX approximation instructions libdevice reaches,
// and verifies each model against the instruction on every input (2^32 bit patterns):
//   rcp.approx.ftz.f32   T[2^23] = rcp(1.m), the exponent subtracted
//   rcp.approx.ftz.f64   reads the high word only: T[2^20] = high word of rcp(1.m20)
//   ex2.approx.ftz.f32   k = trunc(|x| 2^24): T+[k mod 2^24] 2^(k >> 24) for x >= 0, T-[...]
//                        2^-(k >> 24) for x < 0 (one table cannot serve both signs)
//   rsqrt.approx.ftz.f32 x = 1.m 2^e: T0[m] = rsqrt(1.m) for even e, T1[m] = rsqrt(2 (1.m))
//                        for odd e, the exponent shifted by -floor(e / 2)
//   rsqrt.approx.ftz.f64 the same on the high word (2^20 entries each)
// Writes each table as int8 deltas between consecutive entries (the first entry as four
// bytes); compress_tables.py packs them into the chunks backend_sim/approx/ stores. Usage:
//   measure_tables OUTDIR && python3 compress_tables.py OUTDIR
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

__device__ float rcp32(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ double rcp64(double x) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  return r;
}
__device__ float ex2(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

__device__ float rsqrt32(float x) {
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ double rsqrt64(double x) {
  double r;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  return r;
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
  if (j < (1u << 24)) {
    float f = float(j) * 0x1p-24f; // exact
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
  uint32_t k = uint32_t(a * 0x1p24f); // |x| < 128: exact, below 2^31
  uint32_t t = (s ? N : P)[k & 0xffffff];
  int32_t r = int32_t((t >> 23) & 0xff) + (s ? -int32_t(k >> 24) : int32_t(k >> 24));
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
  } else {
    uint64_t x = (uint64_t(u) << 32) | (i >> 32 ? 0xffffffffu : 0u);
    ok = uint64_t(__double_as_longlong(rsqrt64(__longlong_as_double(x)))) == modelRsqrt64(x, A, B);
  }
  if (!ok && atomicAdd(bad, 1ull) == 0)
    *first = i;
}

static void writeDeltas(const std::string &path, const std::vector<uint32_t> &t) {
  std::vector<uint8_t> out(4 + t.size() - 1);
  for (int b = 0; b < 4; ++b)
    out[size_t(b)] = uint8_t(t[0] >> (8 * b));
  for (size_t i = 1; i < t.size(); ++i) {
    int64_t d = int64_t(t[i]) - int64_t(t[i - 1]);
    if (d < -128 || d > 127) {
      std::fprintf(stderr, "%s: delta %lld at %zu does not fit a byte\n", path.c_str(), (long long)d, i);
      std::exit(1);
    }
    out[3 + i] = uint8_t(int8_t(d));
  }
  FILE *f = std::fopen(path.c_str(), "wb");
  std::fwrite(out.data(), 1, out.size(), f);
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
  CK(cudaMalloc(&pos, 4u << 24));
  CK(cudaMalloc(&neg, 4u << 24));
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
  tableEx2<<<(1u << 24) / 256, 256>>>(pos, neg);
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
  auto fetch = [](const uint32_t *d, size_t n) {
    std::vector<uint32_t> h(n);
    CK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
    return h;
  };
  std::string arch = "sm_" + std::to_string(p.major) + std::to_string(p.minor);
  writeDeltas(dir + "/" + arch + ".rcp_approx_ftz_f32.delta", fetch(r32, 1u << 23));
  writeDeltas(dir + "/" + arch + ".rcp_approx_ftz_f64.delta", fetch(r64, 1u << 20));
  writeDeltas(dir + "/" + arch + ".ex2_approx_ftz_f32_pos.delta", fetch(pos, 1u << 24));
  writeDeltas(dir + "/" + arch + ".ex2_approx_ftz_f32_neg.delta", fetch(neg, 1u << 24));
  writeDeltas(dir + "/" + arch + ".rsqrt_approx_ftz_f32_even.delta", fetch(q0, 1u << 23));
  writeDeltas(dir + "/" + arch + ".rsqrt_approx_ftz_f32_odd.delta", fetch(q1, 1u << 23));
  writeDeltas(dir + "/" + arch + ".rsqrt_approx_ftz_f64_even.delta", fetch(e0, 1u << 20));
  writeDeltas(dir + "/" + arch + ".rsqrt_approx_ftz_f64_odd.delta", fetch(e1, 1u << 20));
  return (b0 || b1 || b2 || b3 || b4) ? 1 : 0;
}
