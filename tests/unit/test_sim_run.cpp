// End-to-end runs on the simulator against C++ references.
#include "kernel_test_util.h"

#include <cmath>
#include <numeric>
#include <random>

using namespace cutwin;
using namespace cutwin::test;

namespace {

const char *kVadd = R"(
from numba import cuda

@cuda.jit
def vadd(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]
)";

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
