#include "backend_sim/approx_tables.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Support/Compression.h>
#include <llvm/Support/Error.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace cutwin::sim {

namespace {

enum Table { Rcp32, Rcp64, Ex2Pos, Ex2Neg, Rsqrt32Even, Rsqrt32Odd, Rsqrt64Even, Rsqrt64Odd, TableCount };
const char *const kNames[TableCount] = {"rcp_approx_ftz_f32",        "rcp_approx_ftz_f64",
                                        "ex2_approx_ftz_f32_pos",    "ex2_approx_ftz_f32_neg",
                                        "rsqrt_approx_ftz_f32_even", "rsqrt_approx_ftz_f32_odd",
                                        "rsqrt_approx_ftz_f64_even", "rsqrt_approx_ftz_f64_odd"};
const size_t kEntries[TableCount] = {size_t(1) << 23, size_t(1) << 20, size_t(1) << 24, size_t(1) << 24,
                                     size_t(1) << 23, size_t(1) << 23, size_t(1) << 20, size_t(1) << 20};

/// Decodes one embedded table (zlib, then int8 deltas after a 4-byte first entry); empty
/// when the simulated architecture has none or it does not decode.
std::vector<uint32_t> decode(Table t) {
  std::string name = std::string(kSimulatedArch) + "." + kNames[t];
  for (const EmbeddedTable *e = kApproxTableData; e->name; ++e) {
    if (name != e->name)
      continue;
    llvm::SmallVector<uint8_t, 0> raw;
    size_t n = kEntries[t];
    if (llvm::Error err = llvm::compression::zlib::decompress(llvm::ArrayRef<uint8_t>(e->bytes, e->size), raw, n + 3)) {
      llvm::consumeError(std::move(err));
      return {};
    }
    if (raw.size() != n + 3)
      return {};
    std::vector<uint32_t> out(n);
    uint32_t v = uint32_t(raw[0]) | uint32_t(raw[1]) << 8 | uint32_t(raw[2]) << 16 | uint32_t(raw[3]) << 24;
    out[0] = v;
    for (size_t i = 1; i < n; ++i)
      out[i] = v += uint32_t(int32_t(int8_t(raw[3 + i])));
    return out;
  }
  return {};
}

const std::vector<uint32_t> *table(Table t) {
  static std::once_flag once[TableCount];
  static std::vector<uint32_t> tables[TableCount];
  std::call_once(once[t], [t] {
    tables[t] = decode(t);
    if (tables[t].empty() && llvm::compression::zlib::isAvailable()) {
      static std::once_flag said;
      std::call_once(said, [] {
        std::fprintf(stderr, "cutwin: no measured approximation tables for %s: the simulator uses correctly "
                             "rounded values for rcp.approx/ex2.approx (results may differ from the GPU's "
                             "by an ulp)\n",
                     kSimulatedArch);
      });
    }
  });
  return tables[t].empty() ? nullptr : &tables[t];
}

} // namespace

float approxRcpF32(float x) {
  const std::vector<uint32_t> *T = table(Rcp32);
  if (!T)
    return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(INFINITY, x) : 1.0f / x;
  uint32_t u = std::bit_cast<uint32_t>(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return std::bit_cast<float>(m ? 0x7fffffffu : s); // NaN; 1/inf = 0
  if (e == 0)
    return std::bit_cast<float>(s | 0x7f800000u); // zero and flushed subnormals
  uint32_t t = (*T)[m];
  int32_t r = int32_t((t >> 23) & 0xff) - (int32_t(e) - 127);
  return std::bit_cast<float>(r <= 0 ? s : s | uint32_t(r) << 23 | (t & 0x7fffff));
}

double approxRcpF64(double x) {
  const std::vector<uint32_t> *T = table(Rcp64);
  if (!T)
    return 1.0 / x;
  uint64_t u = std::bit_cast<uint64_t>(x);
  uint32_t hi = uint32_t(u >> 32), s = hi & 0x80000000u, e = (hi >> 20) & 0x7ff, m = hi & 0xfffff;
  if (e == 0x7ff) // the instruction reads the high word only: a NaN with a low-word payload is inf
    return std::bit_cast<double>(m ? 0x7fffffff00000000ull : uint64_t(s) << 32);
  if (e == 0)
    return std::bit_cast<double>(uint64_t(s | 0x7ff00000u) << 32);
  uint32_t t = (*T)[m];
  int32_t r = int32_t((t >> 20) & 0x7ff) - (int32_t(e) - 1023);
  return std::bit_cast<double>(uint64_t(r <= 0 ? s : s | uint32_t(r) << 20 | (t & 0xfffff)) << 32);
}

float approxEx2F32(float x) {
  const std::vector<uint32_t> *P = table(Ex2Pos), *N = table(Ex2Neg);
  if (!P || !N)
    return std::fpclassify(x) == FP_SUBNORMAL ? 1.0f : float(std::exp2(double(x)));
  uint32_t u = std::bit_cast<uint32_t>(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return std::bit_cast<float>(m ? 0x7fffffffu : (s ? 0u : 0x7f800000u));
  if (e == 0)
    return 1.0f; // a flushed subnormal: 2^0
  float a = std::bit_cast<float>(u & 0x7fffffffu);
  if (a >= 128.0f)
    return s ? 0.0f : INFINITY;
  uint32_t k = uint32_t(a * 0x1p24f); // exact: |x| < 128
  uint32_t t = (s ? *N : *P)[k & 0xffffff];
  int32_t r = int32_t((t >> 23) & 0xff) + (s ? -int32_t(k >> 24) : int32_t(k >> 24));
  if (r <= 0)
    return 0.0f;
  if (r >= 0xff)
    return INFINITY;
  return std::bit_cast<float>(uint32_t(r) << 23 | (t & 0x7fffff));
}

float approxRsqrtF32(float x) {
  const std::vector<uint32_t> *T0 = table(Rsqrt32Even), *T1 = table(Rsqrt32Odd);
  if (!T0 || !T1)
    return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(INFINITY, x) : float(1.0 / std::sqrt(double(x)));
  uint32_t u = std::bit_cast<uint32_t>(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return std::bit_cast<float>((m || s) ? 0x7fffffffu : 0u);
  if (e == 0)
    return std::bit_cast<float>(s | 0x7f800000u);
  if (s)
    return std::bit_cast<float>(0x7fffffffu);
  int32_t p = int32_t(e) - 127, odd = p & 1;
  uint32_t t = (odd ? *T1 : *T0)[m];
  int32_t r = int32_t((t >> 23) & 0xff) - ((p - odd) >> 1);
  return std::bit_cast<float>(uint32_t(r) << 23 | (t & 0x7fffff));
}

double approxRsqrtF64(double x) {
  const std::vector<uint32_t> *T0 = table(Rsqrt64Even), *T1 = table(Rsqrt64Odd);
  if (!T0 || !T1)
    return 1.0 / std::sqrt(x);
  uint64_t u = std::bit_cast<uint64_t>(x);
  uint32_t hi = uint32_t(u >> 32), s = hi & 0x80000000u, e = (hi >> 20) & 0x7ff, m = hi & 0xfffff;
  const uint64_t nan = 0x7fffffff00000000ull;
  if (e == 0x7ff)
    return std::bit_cast<double>((m || s) ? nan : 0);
  if (e == 0)
    return std::bit_cast<double>(uint64_t(s | 0x7ff00000u) << 32);
  if (s)
    return std::bit_cast<double>(nan);
  int32_t p = int32_t(e) - 1023, odd = p & 1;
  uint32_t t = (odd ? *T1 : *T0)[m];
  int32_t r = int32_t((t >> 20) & 0x7ff) - ((p - odd) >> 1);
  return std::bit_cast<double>(uint64_t(uint32_t(r) << 20 | (t & 0xfffff)) << 32);
}

} // namespace cutwin::sim
