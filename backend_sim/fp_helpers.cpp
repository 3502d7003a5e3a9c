// Host helpers for libdevice on the CPU: operations in a directed rounding mode, and the
// GPU's approximation instructions (measured tables where there are, else correctly rounded
// stand-ins). Compiled with -frounding-math so that the compiler keeps each operation inside
// its rounding mode.
#include "backend_sim/approx_tables.h"

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

/// float32 a + b (op 0), a - b (6), a * b (1) and fma (3) in a directed rounding mode
/// without switching the FPU's mode (which costs more than the operation): in double the
/// exact value is s + e (the product is exact, e the TwoSum error of the sum); the float
/// nearest s is moved one step down or up when it lies on the wrong side of s + e. False
/// where that does not apply (other ops, zero, infinite or NaN results): the caller then
/// switches modes.
bool directedF32(int op, int mode, float a, float b, float c, float &out) {
  double x, y;
  switch (op) {
  case 0: x = a, y = b; break;
  case 6: x = a, y = -double(b); break;
  case 1: x = double(a) * double(b), y = 0; break;
  case 3: x = double(a) * double(b), y = c; break;
  default: return false;
  }
  double s = x + y, t = s - x, e = (x - (s - t)) + (y - t);
  if (s == 0 || !std::isfinite(s))
    return false;
  float f = float(s);
  if (!std::isfinite(f))
    return false;
  // f below (-1), at (0) or above (1) the exact value s + e; |e| is below s's half-ulp
  int side = double(f) > s ? 1 : double(f) < s ? -1 : e > 0 ? -1 : e < 0 ? 1 : 0;
  bool down = mode == 1 || (mode == 3 && s > 0), up = mode == 2 || (mode == 3 && s < 0);
  if (down && side > 0)
    f = std::nextafter(f, -INFINITY);
  else if (up && side < 0)
    f = std::nextafter(f, INFINITY);
  out = f;
  return true;
}

} // namespace

extern "C" float cutwin_sim_f32op(int op, int mode, float a, float b, float c) {
  float r;
  if (directedF32(op, mode, a, b, c, r))
    return r;
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

/// The approximation units: op 0 ex2, 1 lg2, 2 sin, 3 cos, 4 rsqrt, 5 sqrt, 6 tanh,
/// 7 rcp (ftz), 8 ex2 (ftz), 9 rsqrt (ftz). rcp and the ftz ex2 and rsqrt are the GPU's,
/// from measured tables; the others stand in with the value evaluated in double and rounded
/// once.
extern "C" float cutwin_sim_approx_f32(int op, float x) {
  double d = x;
  switch (op) {
  case 9: return cutwin::sim::approxRsqrtF32(x);
  case 7: return cutwin::sim::approxRcpF32(x);
  case 8: return cutwin::sim::approxEx2F32(x);
  case 0: return float(std::exp2(d));
  case 1: return float(std::log2(d));
  case 2: return float(std::sin(d));
  case 3: return float(std::cos(d));
  case 4: return float(1.0 / std::sqrt(d));
  case 5: return float(std::sqrt(d));
  case 6: return float(std::tanh(d));
  default: return float(1.0 / d);
  }
}

extern "C" double cutwin_sim_approx_f64(int op, double x) {
  switch (op) {
  case 4: return 1.0 / std::sqrt(x);
  case 5: return cutwin::sim::approxRsqrtF64(x); // rsqrt.approx.ftz.f64
  default: return cutwin::sim::approxRcpF64(x); // rcp.approx.ftz.f64
  }
}
