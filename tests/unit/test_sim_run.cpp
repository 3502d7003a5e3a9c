// End-to-end runs on the simulator against C++ references.
#include "kernel_test_util.h"

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

std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(rng);
  return v;
}

/// C = A (m x k) @ B (k x n), accumulating in float in the kernel's order.
std::vector<float> matmulReference(const std::vector<float> &a, const std::vector<float> &b, int m, int k, int n) {
  std::vector<float> c(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int p = 0; p < k; ++p)
        acc += a[size_t(i) * k + p] * b[size_t(p) * n + j];
      c[size_t(i) * n + j] = acc;
    }
  return c;
}

const char *kTiled = R"PY(
from numba import cuda, float32

TPB = 16

@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp
)PY";

} // namespace

TEST(SimRun, TiledMatmulWithBarriersMatchesReference) {
  // Square so that gridDim.x tiles cover k; the tile loop adds zeros beyond k, which
  // leaves float sums unchanged.
  const int n = 48;
  auto a = randomFloats(n * n, 2), b = randomFloats(n * n, 3);
  auto dev = sim();
  auto da = dev->toDevice(a, {n, n}), db = dev->toDevice(b, {n, n});
  auto dc = dev->zeros(DType::F32, {n, n});
  moduleFrom(kTiled)->kernel("matmul_tiled").launch(Dim3(3, 3), Dim3(16, 16), {da, db, dc});
  auto got = dc.toVector<float>();
  auto want = matmulReference(a, b, n, n, n);
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << "at " << i;
}
