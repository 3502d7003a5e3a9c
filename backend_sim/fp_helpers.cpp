// Host helpers for libdevice on the CPU: operations in a directed rounding mode, and the
// GPU's approximation instructions (measured tables where there are, else correctly rounded
// stand-ins). Compiled with -frounding-math so that the compiler keeps each operation inside
// its rounding mode.
#include "backend_sim/approx_ops.h"
#include "backend_sim/approx_tables.h"
#include "backend_sim/host_callbacks.h"

#include <bit>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

int feMode(int mode) {
  switch (mode) {
  case 1: return FE_DOWNWARD;   // rm
  case 2: return FE_UPWARD;     // rp
  case 3: return FE_TOWARDZERO; // rz
  default: return FE_TONEAREST; // rn
  }
}

struct RoundingScope {
  int saved;
  explicit RoundingScope(int mode) : saved(fegetround()) { fesetround(feMode(mode)); }
  ~RoundingScope() { fesetround(saved); }
};

template <class T> T apply(int op, T a, T b, T c) {
  volatile T r;
  switch (op) {
  case 0: r = a + b; break;
  case 1: r = a * b; break;
  case 2: r = a / b; break;
  case 3: r = std::fma(a, b, c); break;
  case 4: r = std::sqrt(a); break;
  case 5: r = T(1) / a; break;
  default: r = a - b; break;
  }
  return r;
}

} // namespace

/// float32 division, square root and reciprocal in a directed rounding mode (kernels do
/// add, sub, mul and fma inline: directed_rounding.h).
extern "C" float cutwin_sim_f32op(int op, int mode, float a, float b, float c) {
  RoundingScope s(mode);
  return apply<float>(op, a, b, c);
}

extern "C" double cutwin_sim_f64op(int op, int mode, double a, double b, double c) {
  RoundingScope s(mode);
  return apply<double>(op, a, b, c);
}

/// kind: 0 double (bits), 1 int32, 2 uint32, 3 int64, 4 uint64.
extern "C" float cutwin_sim_tof32(int kind, int mode, int64_t bits) {
  RoundingScope s(mode);
  volatile float r;
  switch (kind) {
  case 0: {
    double d;
    std::memcpy(&d, &bits, 8);
    r = float(d);
    break;
  }
  case 1: r = float(int32_t(bits)); break;
  case 2: r = float(uint32_t(bits)); break;
  case 3: r = float(bits); break;
  default: r = float(uint64_t(bits)); break;
  }
  return r;
}

extern "C" double cutwin_sim_tof64(int kind, int mode, int64_t bits) {
  RoundingScope s(mode);
  volatile double r;
  switch (kind) {
  case 1: r = double(int32_t(bits)); break;
  case 2: r = double(uint32_t(bits)); break;
  case 3: r = double(bits); break;
  default: r = double(uint64_t(bits)); break;
  }
  return r;
}

namespace {

using cutwin::sim::ApproxF32;
using cutwin::sim::ApproxF64;

bool subnormalOrZero(float x) { return std::fabs(x) < 0x1p-126f; } // false for NaN

float flushed(float x) { return subnormalOrZero(x) ? std::copysign(0.0f, x) : x; }

/// mul.rn.ftz.f32
float mulFtz(float x, float y) { return flushed(flushed(x) * flushed(y)); }

} // namespace

/// The approximation instructions (approx_ops.h): the units from the measured tables, and
/// around them the sequences ptxas emits for sm_90 (measure_tables.cu checks each on every
/// input). Runs in the default rounding mode, with subnormals, as the sequences need.
extern "C" float cutwin_sim_approx_f32(int op, float x, float y) {
  using namespace cutwin::sim;
  switch (ApproxF32(op)) {
  case ApproxF32::Ex2Ftz: return approxEx2F32(x);
  case ApproxF32::Ex2: {
    if (x >= -126.0f || x != x)
      return approxEx2F32(x);
    float h = approxEx2F32(x * 0.5f);
    return h * h;
  }
  case ApproxF32::Lg2Ftz: return approxLg2F32(x);
  case ApproxF32::Lg2: return subnormalOrZero(x) ? approxLg2F32(x * 0x1p24f) - 24.0f : approxLg2F32(x);
  case ApproxF32::Sin: return approxSinF32(x);
  case ApproxF32::Cos: return approxCosF32(x);
  case ApproxF32::RsqrtFtz: return approxRsqrtF32(x);
  case ApproxF32::Rsqrt:
    return subnormalOrZero(x) ? approxRsqrtF32(x * 0x1p24f) * 4096.0f : approxRsqrtF32(x);
  case ApproxF32::SqrtFtz: return approxSqrtF32(x);
  case ApproxF32::Sqrt: return subnormalOrZero(x) ? approxSqrtF32(x * 0x1p24f) * 0x1p-12f : approxSqrtF32(x);
  case ApproxF32::RcpFtz: return approxRcpF32(x);
  case ApproxF32::Rcp: {
    float s = std::fabs(x) > 0x1p126f ? 0.25f : subnormalOrZero(x) ? 0x1p24f : 1.0f;
    return s * approxRcpF32(x * s);
  }
  case ApproxF32::Tanh: return approxTanhF32(x);
  case ApproxF32::DivFtz: return mulFtz(x, approxRcpF32(y));
  case ApproxF32::Div: {
    float k = subnormalOrZero(y) ? 0x1p24f : 1.0f;
    return approxRcpF32(y * k) * (x * k);
  }
  }
  return NAN;
}

extern "C" double cutwin_sim_approx_f64(int op, double x) {
  using namespace cutwin::sim;
  switch (ApproxF64(op)) {
  case ApproxF64::RcpFtz: return approxRcpF64(x);
  case ApproxF64::RsqrtFtz: return approxRsqrtF64(x);
  case ApproxF64::Rsqrt: {
    // the unit's estimate and one Newton step; zeros, NaN, negative, inf and subnormal
    // (scaled by 2^54) leave the fast path
    uint32_t hi = uint32_t(std::bit_cast<uint64_t>(x) >> 32);
    double scale = 1.0;
    if (hi - 0x00100000u >= 0x7fe00000u) {
      if (x == 0)
        return std::bit_cast<double>(uint64_t((hi & 0x80000000u) | 0x7ff00000u) << 32);
      if (x != x)
        return x + x;
      if (hi & 0x80000000u)
        return std::bit_cast<double>(0xfff8000000000000ull);
      if (std::isinf(x))
        return 0.0;
      x *= 0x1p54;
      scale = 0x1p27;
    }
    double r = approxRsqrtF64(x), e = std::fma(x, -(r * r), 1.0);
    r = std::fma(std::fma(e, 0.375, 0.5), r * e, r);
    return r * scale;
  }
  }
  return NAN;
}
