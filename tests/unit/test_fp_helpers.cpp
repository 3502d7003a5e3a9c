// The simulator's float32 operations in directed rounding modes (the helpers libdevice's
// fma.rm and friends call) against the same operations computed with the FPU switched to
// that mode. This file is compiled with -frounding-math.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

extern "C" float cutwin_sim_f32op(int op, int mode, float a, float b, float c);

namespace {

float reference(int op, int mode, float a, float b, float c) {
  static const int modes[] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
  int saved = fegetround();
  fesetround(modes[mode]);
  volatile float r;
  switch (op) {
  case 0: r = a + b; break;
  case 1: r = a * b; break;
  case 3: r = std::fma(a, b, c); break;
  default: r = a - b; break;
  }
  fesetround(saved);
  return r;
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(FpHelpers, DirectedRoundingMatchesTheFpuInThatMode) {
  std::mt19937 gen(11);
  auto any = [&] { // random bit patterns, NaNs aside, often near each other in magnitude
    uint32_t u = gen();
    if ((u & 0x7f800000u) == 0x7f800000u)
      u &= 0xbfffffffu;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  const float edge[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-45f, -1e-45f, 3.4e38f, -3.4e38f, 1.1754944e-38f, INFINITY};
  long checked = 0;
  for (int i = 0; i < 400000; ++i) {
    float a = any(), b = i % 3 ? any() : a * 0.75f, c = i % 5 ? any() : -(a * b);
    if (i < 1000) {
      a = edge[i % 10];
      b = edge[(i / 10) % 10];
      c = edge[(i / 100) % 10];
    }
    for (int op : {0, 1, 3, 6})
      for (int mode : {1, 2, 3}) {
        float got = cutwin_sim_f32op(op, mode, a, b, c), want = reference(op, mode, a, b, c);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got));
          continue;
        }
        ASSERT_EQ(bits(got), bits(want)) << "op " << op << " mode " << mode << " a " << a << " b " << b
                                         << " c " << c;
        ++checked;
      }
  }
  EXPECT_GT(checked, 4000000);
}

} // namespace
