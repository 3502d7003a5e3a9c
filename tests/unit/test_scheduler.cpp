// The simulator's scheduler: fibers at barriers, per-block shared memory, many blocks in
// parallel, shuffled fiber order, large blocks and large per-thread stacks.
#include "kernel_test_util.h"

#include <cstdlib>

using namespace cutwin;
using namespace cutwin::test;

namespace {

const char *kReverse = R"PY(
from numba import cuda, int32

N = 1024

@cuda.jit
def reverse(a):
    s = cuda.shared.array(N, int32)
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    base = cuda.blockIdx.x * n
    s[t] = a[base + t]
    cuda.syncthreads()
    a[base + t] = s[n - 1 - t] + 1000000 * cuda.blockIdx.x
)PY";

std::vector<int32_t> iota(size_t n) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = int32_t(i);
  return v;
}

void checkReversed(const std::vector<int32_t> &got, uint32_t blocks, uint32_t n) {
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t t = 0; t < n; ++t)
      ASSERT_EQ(got[size_t(b) * n + t], int32_t(b * n + (n - 1 - t) + 1000000 * b)) << b << " " << t;
}

} // namespace

TEST(Scheduler, SharedMemoryIsPerBlockAcrossManyParallelBlocks) {
  const uint32_t blocks = 300, n = 128;
  auto a = sim()->toDevice(iota(size_t(blocks) * n));
  moduleFrom(kReverse)->kernel("reverse").launch(blocks, n, {a});
  checkReversed(a.toVector<int32_t>(), blocks, n);
}

TEST(Scheduler, FullSizeBlocksOf1024Threads) {
  const uint32_t blocks = 8, n = 1024;
  auto a = sim()->toDevice(iota(size_t(blocks) * n));
  moduleFrom(kReverse)->kernel("reverse").launch(blocks, n, {a});
  checkReversed(a.toVector<int32_t>(), blocks, n);
}

TEST(Scheduler, ShuffledFiberOrderGivesTheSameResultForRaceFreeKernels) {
  setenv("CUTWIN_SIM_SEED", "12345", 1);
  auto shuffled = Device::open("sim");
  unsetenv("CUTWIN_SIM_SEED");
  const uint32_t blocks = 20, n = 256;
  auto a = shuffled->toDevice(iota(size_t(blocks) * n));
  Module::fromString(shuffled, kReverse, "k.py")->kernel("reverse").launch(blocks, n, {a});
  checkReversed(a.toVector<int32_t>(), blocks, n);
}

TEST(Scheduler, ShuffledOrderExposesARace) {
  // Thread t reads its neighbour's slot without a barrier in between: the value seen
  // depends on the order threads run in, which the seed changes.
  const char *src = R"PY(
from numba import cuda, int32

@cuda.jit
def racy(out):
    s = cuda.shared.array(64, int32)
    t = cuda.threadIdx.x
    s[t] = t + 1
    out[t] = s[(t + 1) % 64]
    cuda.syncthreads()
)PY";
  auto run = [&](const char *seed) {
    if (seed)
      setenv("CUTWIN_SIM_SEED", seed, 1);
    auto dev = Device::open("sim");
    unsetenv("CUTWIN_SIM_SEED");
    auto out = dev->zeros(DType::I32, {64});
    Module::fromString(dev, src, "racy.py")->kernel("racy").launch(1, 64, {out});
    return out.toVector<int32_t>();
  };
  auto fixed = run(nullptr);
  // Fixed order: thread t runs before t+1, so it reads the zeroed slot (except the last).
  EXPECT_EQ(fixed[0], 0);
  EXPECT_EQ(fixed[63], 1);
  EXPECT_EQ(run(nullptr), fixed); // deterministic by default
  bool differs = false;
  for (const char *seed : {"1", "2", "3"})
    differs = differs || run(seed) != fixed;
  EXPECT_TRUE(differs);
}

TEST(Scheduler, ManyBarrierRoundsAndLoopsAroundBarriers) {
  const char *src = R"PY(
from numba import cuda, float64

@cuda.jit
def scan(a):
    # Hillis-Steele inclusive scan of one block, ping-ponging through shared memory.
    s = cuda.shared.array((2, 256), float64)
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    s[0, t] = a[t]
    cuda.syncthreads()
    src = 0
    d = 1
    while d < n:
        v = s[src, t]
        if t >= d:
            v += s[src, t - d]
        s[1 - src, t] = v
        cuda.syncthreads()
        src = 1 - src
        d *= 2
    a[t] = s[src, t]
)PY";
  std::vector<double> host(256);
  for (int i = 0; i < 256; ++i)
    host[size_t(i)] = i % 7;
  auto a = sim()->toDevice(host);
  moduleFrom(src)->kernel("scan").launch(1, 256, {a});
  auto got = a.toVector<double>();
  double acc = 0;
  for (int i = 0; i < 256; ++i) {
    acc += host[size_t(i)];
    ASSERT_EQ(got[size_t(i)], acc) << i;
  }
}

TEST(Scheduler, LargeLocalArraysGetLargerFiberStacks) {
  const char *src = R"PY(
from numba import cuda, float64

@cuda.jit
def big(out):
    buf = cuda.local.array(4096, float64)
    t = cuda.threadIdx.x
    for i in range(4096):
        buf[i] = i * t
    cuda.syncthreads()
    acc = 0.
    for i in range(4096):
        acc += buf[i]
    out[t] = acc
)PY";
  auto out = sim()->zeros(DType::F64, {128});
  moduleFrom(src)->kernel("big").launch(1, 128, {out});
  auto v = out.toVector<double>();
  for (int t = 0; t < 128; ++t)
    ASSERT_EQ(v[size_t(t)], double(t) * 4095.0 * 4096.0 / 2.0);
}

TEST(Scheduler, ThreeDimensionalBlocksWithBarriers) {
  const char *src = R"PY(
from numba import cuda, int32

@cuda.jit
def k(out):
    s = cuda.shared.array((4, 4, 8), int32)
    x = cuda.threadIdx.x
    y = cuda.threadIdx.y
    z = cuda.threadIdx.z
    s[z, y, x] = x + 10 * y + 100 * z
    cuda.syncthreads()
    out[cuda.blockIdx.x * 4 + z, y, x] = s[3 - z, 3 - y, 7 - x]
)PY";
  auto out = sim()->zeros(DType::I32, {12, 4, 8});
  moduleFrom(src)->kernel("k").launch(3, Dim3(8, 4, 4), {out});
  auto v = out.toVector<int32_t>();
  for (int b = 0; b < 3; ++b)
    for (int z = 0; z < 4; ++z)
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 8; ++x)
          ASSERT_EQ(v[size_t(((b * 4 + z) * 4 + y) * 8 + x)], (7 - x) + 10 * (3 - y) + 100 * (3 - z));
}

TEST(Scheduler, CompiledKernelsAreCachedPerArgumentTypes) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def fill(a, v):
    a[cuda.grid(1)] = v
)PY";
  auto mod = moduleFrom(src);
  auto f = sim()->zeros(DType::F32, {32});
  auto i = sim()->zeros(DType::I64, {32});
  mod->kernel("fill").launch(1, 32, {f, 2.5});
  mod->kernel("fill").launch(1, 32, {i, int64_t(7)});
  mod->kernel("fill").launch(1, 32, {f, 1.5f});
  EXPECT_EQ(f.toVector<float>()[31], 1.5f);
  EXPECT_EQ(i.toVector<int64_t>()[0], 7);
  // Different types give different specialisations.
  EXPECT_NE(mod->kernel("fill").ir({f, 2.5}), mod->kernel("fill").ir({i, int64_t(7)}));
}
