// Python/numba semantics of the kernel dialect, checked against answers CPython and NumPy
// give for the same expressions.
#include "kernel_test_util.h"

#include <cmath>
#include <limits>

using namespace cutwin;
using namespace cutwin::test;

TEST(Semantics, IntegerFloorDivisionAndModuloFollowPython) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out, a, b):
    out[0] = a // b
    out[1] = a % b
    out[2] = -a // b
    out[3] = -a % b
    out[4] = a // -b
    out[5] = a % -b
    out[6] = a // 0
    out[7] = a % 0
)PY";
  auto v = runOut<int64_t>(src, "k", 8, {int64_t(7), int64_t(2)});
  // CPython: 7//2=3, 7%2=1, -7//2=-4, -7%2=1, 7//-2=-4, 7%-2=-1; x//0 and x%0 are 0 under
  // numba's numpy error model.
  EXPECT_EQ(v, (std::vector<int64_t>{3, 1, -4, 1, -4, -1, 0, 0}));
}

// The quotient overflows; numba-cuda defines it (and the remainder) as 0 (int_divmod_signed).
TEST(Semantics, MinInt64DividedByMinusOneIsZeroAsInNumbaCuda) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out, a, b):
    out[0] = a // b
    out[1] = a % b
)PY";
  auto v = runOut<int64_t>(src, "k", 2, {std::numeric_limits<int64_t>::min(), int64_t(-1)});
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 0);
  v = runOut<int64_t>(src, "k", 2, {std::numeric_limits<int64_t>::min() + 1, int64_t(-1)});
  EXPECT_EQ(v[0], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(v[1], 0);
}

TEST(Semantics, UnsignedDivision) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out, a, b):
    out[0] = a // b
    out[1] = a % b
)PY";
  auto v = runOut<uint64_t>(src, "k", 2, {uint64_t(0xFFFFFFFFFFFFFFFFull), uint64_t(10)});
  EXPECT_EQ(v[0], 1844674407370955161ull);
  EXPECT_EQ(v[1], 5ull);
}

TEST(Semantics, FloatFloorDivisionAndModuloFollowPython) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out, a, b):
    out[0] = a // b
    out[1] = a % b
    out[2] = -a // b
    out[3] = -a % b
    out[4] = a % -b
    out[5] = a / b
)PY";
  auto v = runOut<double>(src, "k", 6, {7.5, 2.0});
  // CPython: 7.5//2=3.0, 7.5%2=1.5, -7.5//2=-4.0, -7.5%2=0.5, 7.5%-2=-0.5, 7.5/2=3.75
  EXPECT_EQ(v, (std::vector<double>{3.0, 1.5, -4.0, 0.5, -0.5, 3.75}));
}

TEST(Semantics, FloatModuloKeepsSignOfZeroAndDivisorSign) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out, a, b):
    out[0] = a % b
    out[1] = a // b
)PY";
  auto v = runOut<double>(src, "k", 2, {-4.0, 2.0});
  EXPECT_EQ(v[0], 0.0);
  EXPECT_FALSE(std::signbit(v[0])); // CPython: -4.0 % 2.0 == 0.0 (positive zero)
  EXPECT_EQ(v[1], -2.0);
  auto w = runOut<double>(src, "k", 2, {4.0, -2.0});
  EXPECT_TRUE(std::signbit(w[0])); // 4.0 % -2.0 == -0.0
}

TEST(Semantics, TrueDivisionOfIntegersIsFloat64) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out, a, b):
    out[0] = a / b
    out[1] = 1 / 0
)PY";
  auto v = runOut<double>(src, "k", 2, {int32_t(1), int32_t(3)});
  EXPECT_EQ(v[0], 1.0 / 3.0);
  EXPECT_TRUE(std::isinf(v[1]));
}

TEST(Semantics, PowerOfIntegersAndFloats) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out, x, n):
    out[0] = x ** n
    out[1] = x ** -n
    out[2] = 2 ** 10
    out[3] = x ** 0.5
    out[4] = (-2) ** 3
)PY";
  auto v = runOut<double>(src, "k", 5, {2.0, int64_t(3)});
  EXPECT_EQ(v[0], 8.0);
  EXPECT_EQ(v[1], 0.125);
  EXPECT_EQ(v[2], 1024.0);
  EXPECT_NEAR(v[3], 1.4142135623730951, 2.3e-16); // libdevice pow: within 1 ulp
  EXPECT_EQ(v[4], -8.0);
}

TEST(Semantics, IntegerPowerWithNegativeExponent) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out, a, n):
    out[0] = a ** n
    out[1] = 1 ** n
    out[2] = (-1) ** n
    out[3] = 0 ** n
)PY";
  auto v = runOut<int64_t>(src, "k", 4, {int64_t(3), int64_t(-3)});
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 1);
  EXPECT_EQ(v[2], -1);
  EXPECT_EQ(v[3], std::numeric_limits<int64_t>::min()); // numba's numpy error model
}

TEST(Semantics, ShiftsAndBitOperations) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out, a, s):
    out[0] = a << s
    out[1] = a >> s
    out[2] = -a >> s
    out[3] = a << 70
    out[4] = -a >> 70
    out[5] = (a & 6) | (a ^ 12)
    out[6] = ~a
)PY";
  auto v = runOut<int64_t>(src, "k", 7, {int64_t(5), int64_t(2)});
  // Shifts of the word size or more: 0, or the sign (PTX clamps the amount).
  EXPECT_EQ(v, (std::vector<int64_t>{20, 1, -2, 0, -1, 4 | 9, -6}));
}

TEST(Semantics, ComparisonsChainAndShortCircuit) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit(device=True)
def bump(a, i):
    a[i] += 1
    return True

@cuda.jit
def k(out, counter, x):
    out[0] = 0 < x < 10
    out[1] = 0 < x > 10
    out[2] = x > 100 and bump(counter, 0)
    out[3] = x < 100 or bump(counter, 1)
    out[4] = not x
    out[5] = (x if x > 3 else -x) == 5
)PY";
  auto mod = moduleFrom(src);
  auto out = sim()->zeros(DType::Bool, {6});
  auto counter = sim()->zeros(DType::I32, {2});
  mod->kernel("k").launch(1, 1, {out, counter, int64_t(5)});
  auto v = out.toVector<bool>();
  EXPECT_EQ(v, (std::vector<bool>{true, false, false, true, false, true}));
  EXPECT_EQ(counter.toVector<int32_t>(), (std::vector<int32_t>{0, 0})); // neither call ran
}

TEST(Semantics, NanComparisons) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out, x):
    out[0] = x == x
    out[1] = x != x
    out[2] = x < 1.0
    out[3] = not (x >= 1.0)
)PY";
  auto mod = moduleFrom(src);
  auto out = sim()->zeros(DType::Bool, {4});
  mod->kernel("k").launch(1, 1, {out, std::nan("")});
  EXPECT_EQ(out.toVector<bool>(), (std::vector<bool>{false, true, false, true}));
}

TEST(Semantics, MinMaxAbsAndCasts) {
  const char *src = R"PY(
from numba import cuda, float32, int32
import numpy as np

@cuda.jit
def k(out, x):
    out[0] = min(3, x, 7)
    out[1] = max(3.5, x)
    out[2] = abs(-x)
    out[3] = int(-2.7)
    out[4] = float(7) / 2
    out[5] = float32(1.0) / float32(3.0)
    out[6] = int32(3.9)
    out[7] = np.float32(0.1)
    out[8] = round(2.5) + round(3.5)
    out[9] = min((4, 2, 9))
)PY";
  auto v = runOut<double>(src, "k", 10, {int64_t(5)});
  EXPECT_EQ(v[0], 3);
  EXPECT_EQ(v[1], 5);
  EXPECT_EQ(v[2], 5);
  EXPECT_EQ(v[3], -2);
  EXPECT_EQ(v[4], 3.5);
  EXPECT_EQ(v[5], double(1.0f / 3.0f));
  EXPECT_EQ(v[6], 3);
  EXPECT_EQ(v[7], double(0.1f));
  EXPECT_EQ(v[8], 6); // round half to even: 2 + 4
  EXPECT_EQ(v[9], 2);
}

TEST(Semantics, FloatToIntConversionSaturatesLikeTheGpu) {
  const char *src = R"PY(
from numba import cuda, int32

@cuda.jit
def k(out, x):
    out[0] = int32(x)
    out[1] = int32(-x)
    out[2] = int32(x - x)
)PY";
  auto v = runOut<int32_t>(src, "k", 3, {1e20});
  EXPECT_EQ(v[0], std::numeric_limits<int32_t>::max());
  EXPECT_EQ(v[1], std::numeric_limits<int32_t>::min());
  auto w = runOut<int32_t>(src, "k", 3, {std::numeric_limits<double>::infinity()});
  EXPECT_EQ(w[2], 0); // inf - inf is NaN, which converts to 0
}

TEST(Semantics, TypingFloat32StaysFloat32AndLiteralsWiden) {
  // t = 0. is float64, so the sum accumulates in float64 (numba's unification); s stays
  // float32 because float32 + float32 is float32.
  const char *src = R"PY(
from numba import cuda, float32

@cuda.jit
def k(out, a):
    t = 0.
    s = float32(0.)
    for i in range(a.size):
        t += a[i]
        s += a[i]
    out[0] = t
    out[1] = s
)PY";
  std::vector<float> a(1000, 0.1f);
  auto da = sim()->toDevice(a);
  auto v = runOut<double>(src, "k", 2, {da});
  double t = 0;
  float s = 0;
  for (float x : a) {
    t += x;
    s += x;
  }
  EXPECT_EQ(v[0], t);
  EXPECT_EQ(v[1], double(s));
  EXPECT_NE(v[0], v[1]);
}

TEST(Semantics, RangeWithNegativeStepWhileBreakContinue) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out):
    n = 0
    for i in range(10, 0, -3):
        out[n] = i
        n += 1
    j = 0
    while True:
        j += 1
        if j % 2 == 0:
            continue
        if j > 7:
            break
        out[n] = j
        n += 1
    else:
        out[n] = -1
    for q in range(3):
        pass
    else:
        out[n] = 100 + q
)PY";
  auto v = runOut<int64_t>(src, "k", 9);
  // range(10, 0, -3) = 10 7 4 1; odd j up to 7 = 1 3 5 7; while-else skipped by break;
  // for-else runs after a normal exit with q == 2.
  EXPECT_EQ(v, (std::vector<int64_t>{10, 7, 4, 1, 1, 3, 5, 7, 102}));
}

TEST(Semantics, LocalArraysAndTuples) {
  const char *src = R"PY(
from numba import cuda, int64

N = 4
SHAPE = (2, N)

@cuda.jit
def k(out):
    loc = cuda.local.array(SHAPE, int64)
    for i in range(2):
        for j in range(N):
            loc[i, j] = i * 10 + j
    t = (loc[1, 3], loc[0, 2])
    a, b = t
    a, b = b, a
    out[0] = a
    out[1] = b
    out[2] = t[-1]
    out[3] = len(SHAPE) + SHAPE[1]
    out[4] = loc.shape[1] * loc.size
)PY";
  auto v = runOut<int64_t>(src, "k", 5);
  EXPECT_EQ(v, (std::vector<int64_t>{2, 13, 2, 6, 32}));
}

TEST(Semantics, DeviceFunctionsReturnValuesAndSpecialise) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit(device=True)
def clamp(x, lo, hi):
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x

@cuda.jit(device=True)
def pair(x):
    return x, x * 2

@cuda.jit
def k(out):
    out[0] = clamp(5, 0, 3)
    out[1] = clamp(-2.5, 0.0, 3.0)
    a, b = pair(21)
    out[2] = a + b
)PY";
  auto v = runOut<double>(src, "k", 3);
  EXPECT_EQ(v, (std::vector<double>{3, 0, 63}));
}

TEST(Semantics, ThreeDimensionalGridIndexing) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out):
    x, y, z = cuda.grid(3)
    nx, ny, nz = cuda.gridsize(3)
    if x < out.shape[2] and y < out.shape[1] and z < out.shape[0]:
        out[z, y, x] = x + 100 * y + 10000 * z + 1000000 * (nx + ny + nz)
)PY";
  auto mod = moduleFrom(src);
  auto out = sim()->zeros(DType::I64, {5, 6, 7});
  mod->kernel("k").launch(Dim3(2, 3, 5), Dim3(4, 2, 1), {out});
  auto v = out.toVector<int64_t>();
  int64_t sum = 8 + 6 + 5;
  for (int z = 0; z < 5; ++z)
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 7; ++x)
        ASSERT_EQ(v[size_t((z * 6 + y) * 7 + x)], x + 100 * y + 10000 * z + 1000000 * sum);
}

TEST(Semantics, MathFunctionsFromLibdevice) {
  const char *src = R"PY(
from numba import cuda
import math

@cuda.jit
def k(out, x):
    out[0] = math.sin(x)
    out[1] = math.cos(x)
    out[2] = math.exp(x)
    out[3] = math.log(x)
    out[4] = math.tan(x)
    out[5] = math.pow(x, 2.5)
    out[6] = math.sqrt(x)
    out[7] = math.floor(-x)
    out[8] = math.ceil(x)
    out[9] = math.fabs(-x)
    out[10] = math.pi
)PY";
  double x = 0.7;
  auto v = runOut<double>(src, "k", 11, {x});
  // libdevice's double functions are within 1-2 ulp of the correctly rounded result.
  auto near = [](double a, double b) {
    return std::fabs(a - b) <= 4 * std::numeric_limits<double>::epsilon() * std::fabs(b);
  };
  EXPECT_TRUE(near(v[0], std::sin(x))) << v[0];
  EXPECT_TRUE(near(v[1], std::cos(x))) << v[1];
  EXPECT_TRUE(near(v[2], std::exp(x))) << v[2];
  EXPECT_TRUE(near(v[3], std::log(x))) << v[3];
  EXPECT_TRUE(near(v[4], std::tan(x))) << v[4];
  EXPECT_TRUE(near(v[5], std::pow(x, 2.5))) << v[5];
  EXPECT_EQ(v[6], std::sqrt(x));
  EXPECT_EQ(v[7], -1.0);
  EXPECT_EQ(v[8], 1.0);
  EXPECT_EQ(v[9], x);
  EXPECT_EQ(v[10], M_PI);
}

TEST(Semantics, Float32MathStaysFloat32) {
  const char *src = R"PY(
from numba import cuda, float32
import math

@cuda.jit
def k(out, x):
    out[0] = math.sin(x)
    out[1] = math.exp(x)
    out[2] = math.sqrt(x)
    out[3] = x % float32(0.3)
)PY";
  float x = 1.3f;
  auto v = runOut<float>(src, "k", 4, {x});
  EXPECT_NEAR(v[0], std::sin(x), 2e-7);
  EXPECT_NEAR(v[1], std::exp(x), 1e-6);
  EXPECT_EQ(v[2], std::sqrt(x));
  EXPECT_EQ(v[3], std::fmod(x, 0.3f));
}

TEST(Semantics, StridedArraysAndSubArrays) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit(device=True)
def rowsum(r):
    s = 0
    for j in range(r.shape[0]):
        s += r[j]
    return s

@cuda.jit
def k(out, a):
    for i in range(a.shape[0]):
        out[i] = rowsum(a[i])
)PY";
  auto mod = moduleFrom(src);
  std::vector<int32_t> host(12);
  for (int i = 0; i < 12; ++i)
    host[size_t(i)] = i;
  auto a = sim()->toDevice(host, {3, 4});
  auto out = sim()->zeros(DType::I64, {3});
  mod->kernel("k").launch(1, 1, {out, a});
  EXPECT_EQ(out.toVector<int64_t>(), (std::vector<int64_t>{6, 22, 38}));
}

TEST(Semantics, MultiplyAddIsContractedLikeNumbaCuda) {
  // x*y + z becomes one fused multiply-add (rounded once), as NVVM does for numba-cuda;
  // std::fma is the independent reference. A product that is used again is not fused.
  const char *fused = R"PY(
from numba import cuda

@cuda.jit
def k(out, x, y, z):
    out[0] = x * y + z
)PY";
  const char *reused = R"PY(
from numba import cuda

@cuda.jit
def k(out, x, y, z):
    p = x * y
    out[0] = p + z
    out[1] = p
)PY";
  double x = 0.1, y = 10.0, z = -1.0;
  // The unfused reference: two statements, which no C++ compiler contracts (clang fuses
  // `x * y + z` within one expression by default).
  double product = x * y;
  double unfused = product + z;
  auto v = runOut<double>(fused, "k", 1, {x, y, z});
  EXPECT_EQ(v[0], std::fma(x, y, z));
  EXPECT_NE(v[0], unfused); // the fused and unfused results differ for these inputs
  auto w = runOut<double>(reused, "k", 2, {x, y, z});
  EXPECT_EQ(w[0], unfused);
}
