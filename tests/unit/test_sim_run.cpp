// End-to-end runs on the simulator against C++ references.
#include "kernel_test_util.h"
#include "tests/support/random_data.h"

#include <cmath>
#include <numeric>
#include <random>

using namespace cutwin;
using namespace cutwin::test;

namespace {

const char *kVadd = R"PY(
from numba import cuda

@cuda.jit
def vadd(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]
)PY";

} // namespace

TEST(SimRun, VectorAddMatchesReference) {
  const int n = 1000;
  std::vector<float> a(n), b(n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  for (int i = 0; i < n; ++i) {
    a[i] = d(rng);
    b[i] = d(rng);
  }
  auto dev = sim();
  auto da = dev->toDevice(a), db = dev->toDevice(b);
  auto out = dev->zeros(DType::F32, {n});
  moduleFrom(kVadd)->kernel("vadd").launch((n + 255) / 256, 256, {da, db, out});
  auto got = out.toVector<float>();
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(got[i], a[i] + b[i]) << "at " << i;
}

namespace {

/// C = A (m x k) @ B (k x n), accumulating in float in the kernel's order; the kernel's
/// `tmp += a * b` is a fused multiply-add (docs/numerics.md).
std::vector<float> matmulReference(const std::vector<float> &a, const std::vector<float> &b, int m, int k,
                                   int n) {
  std::vector<float> c(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int p = 0; p < k; ++p)
        acc = std::fma(a[size_t(i) * k + p], b[size_t(p) * n + j], acc);
      c[size_t(i) * n + j] = acc;
    }
  return c;
}

/// The conformance suite's tiled matmul kernel (any shapes).
std::string tiledKernelFile() {
  return std::string(CUTWIN_SOURCE_DIR) + "/conformance/cases/matmul_tiled/kernel.py";
}

} // namespace

TEST(SimRun, TiledMatmulWithBarriersMatchesReference) {
  // The tile loop adds products of zeros beyond the 48 columns, which leave the sums as
  // they are.
  const int n = 48;
  auto a = randomFloats(n * n, 2), b = randomFloats(n * n, 3);
  auto dev = sim();
  auto da = dev->toDevice(a, {n, n}), db = dev->toDevice(b, {n, n});
  auto dc = dev->zeros(DType::F32, {n, n});
  Module::fromFile(dev, tiledKernelFile())
      ->kernel("matmul_tiled")
      .launch(Dim3(3, 3), Dim3(16, 16), {da, db, dc});
  auto got = dc.toVector<float>();
  auto want = matmulReference(a, b, n, n, n);
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << "at " << i;
}

TEST(SimRun, StridedAndTransposedViews) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def copy2d(src, dst):
    i, j = cuda.grid(2)
    if i < dst.shape[0] and j < dst.shape[1]:
        dst[i, j] = src[i, j]
)PY";
  auto dev = sim();
  std::vector<int32_t> host(6 * 8);
  for (int i = 0; i < 48; ++i)
    host[size_t(i)] = i;
  auto base = dev->toDevice(host, {6, 8});
  auto t = base.transpose(); // 8 x 6, strides (4, 32)
  EXPECT_FALSE(t.isCContiguous());
  auto out = dev->zeros(DType::I32, {8, 6});
  auto mod = moduleFrom(src);
  mod->kernel("copy2d").launch(Dim3(1, 1), Dim3(8, 8), {t, out});
  auto got = out.toVector<int32_t>();
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 6; ++j)
      ASSERT_EQ(got[size_t(i * 6 + j)], host[size_t(j * 8 + i)]);
  // Every other column, starting at column 1: shape (6, 4), strides (32, 8).
  auto cols = base.view({6, 4}, {32, 8}, 4);
  auto out2 = dev->zeros(DType::I32, {6, 4});
  mod->kernel("copy2d").launch(Dim3(1, 1), Dim3(8, 8), {cols, out2});
  auto got2 = out2.toVector<int32_t>();
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j)
      ASSERT_EQ(got2[size_t(i * 4 + j)], host[size_t(i * 8 + 2 * j + 1)]);
  // Each layout is its own specialisation: the transpose is Fortran-ordered (layout F, as
  // numba types it), the column view strided (layout A).
  EXPECT_NE(mod->kernel("copy2d").ir({t, out}).find("copy2d__a2Fi32_a2Ci32"), std::string::npos);
  EXPECT_NE(mod->kernel("copy2d").ir({cols, out2}).find("copy2d__a2Ai32_a2Ci32"), std::string::npos);
  EXPECT_THROW(base.view({6, 9}, {32, 4}), Error);
}

TEST(SimRun, SpanCopiesOfStridedViews) {
  auto dev = sim();
  std::vector<int32_t> host(6 * 8);
  for (int i = 0; i < 48; ++i)
    host[size_t(i)] = i;
  auto base = dev->toDevice(host, {6, 8});
  // Rows 1..4 reversed, every other column from column 1: strides (-32, 8).
  auto v = base.view({4, 4}, {-32, 8}, 4 * 32 + 4);
  DeviceArray::Span s = v.span();
  EXPECT_EQ(s.begin, -3 * 32);
  EXPECT_EQ(s.bytes, size_t(3 * 32 + 3 * 8 + 4));
  std::vector<int32_t> bytes(s.bytes / 4);
  v.copySpanToHost(bytes.data());
  const int32_t *e0 = bytes.data() - s.begin / 4; // element (0, 0) inside the span
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      ASSERT_EQ(e0[-i * 8 + 2 * j], host[size_t((4 - i) * 8 + 2 * j + 1)]);
  // Writing the span back changes exactly what was written into it.
  bytes[0] = -1;
  v.copySpanFromHost(bytes.data());
  auto after = base.toVector<int32_t>();
  EXPECT_EQ(after[1 * 8 + 1], -1);
  after[1 * 8 + 1] = 1 * 8 + 1;
  EXPECT_EQ(after, host);
  EXPECT_EQ(base.view({0, 4}, {32, 4}).span().bytes, 0u);
}

TEST(SimRun, ArraysOfAnotherDeviceAreRefused) {
  auto other = Device::open("sim"); // a second device: its memory is not this module's
  auto a = other->zeros(DType::F32, {4});
  auto mod = moduleFrom(R"PY(
from numba import cuda
@cuda.jit
def k(a):
    a[0] = 1
)PY");
  try {
    mod->kernel("k").launch(1, 1, {a});
    FAIL() << "expected a LaunchError";
  } catch (const LaunchError &e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("argument 1 of kernel 'k' is an array on"));
  }
}

TEST(SimRun, StreamsAndEvents) {
  // On the simulator a launch completes before it returns: work on a stream is done at
  // once, and events measure host time between records.
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def inc(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1
)PY";
  auto dev = sim();
  auto k = moduleFrom(src)->kernel("inc");
  auto a = dev->zeros(DType::I32, {1000});
  Stream s = dev->createStream();
  Event start = dev->createEvent(), end = dev->createEvent();
  start.record(&s);
  for (int i = 0; i < 5; ++i)
    k.launch(4, 256, {a}, 0, &s);
  end.record(&s);
  s.synchronize();
  end.synchronize();
  EXPECT_GT(end.elapsedMilliseconds(start), 0.0f);
  for (int32_t v : a.toVector<int32_t>())
    ASSERT_EQ(v, 5);
}
