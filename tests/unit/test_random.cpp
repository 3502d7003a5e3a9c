// numba.cuda.random: host-made states against numba-cuda's known answers and a sequential
// reference; kernels drawing numbers against the host reference.
#include "cutwin/random.h"
#include "kernel_test_util.h"

#include <cmath>
#include <cstring>

using namespace cutwin;
using namespace cutwin::test;
using random::Xoroshiro128pState;

namespace {

/// numba-cuda 0.30.4's values (recorded with numba on a GPU).
constexpr Xoroshiro128pState kSeed1[3] = {{0x910A2DEC89025CC1ull, 0x910A2DEC89025CC1ull},
                                          {0x73C19A5348FC9098ull, 0x6C96C932F21D71EEull},
                                          {0x0B3D0CD6DDFA7A4Cull, 0xD3C2C33E9B8E707Aull}};

std::vector<Xoroshiro128pState> hostStates(int64_t n, uint64_t seed, uint64_t sub = 0) {
  std::vector<Xoroshiro128pState> v(static_cast<size_t>(n));
  random::xoroshiro128pStates(v.data(), n, seed, sub);
  return v;
}

std::vector<Xoroshiro128pState> deviceStates(const DeviceArray &a) {
  std::vector<Xoroshiro128pState> v(size_t(a.size()));
  a.copyToHost(v.data(), v.size() * sizeof v[0]);
  return v;
}

} // namespace

TEST(Random, StatesMatchNumbaKnownAnswers) {
  auto s = hostStates(3, 1);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(s[size_t(i)], kSeed1[i]) << i;
  EXPECT_EQ(hostStates(1, 1, 3)[0], (Xoroshiro128pState{0x3B80C389FCD31EE7ull, 0xB43C70624D182BBBull}));
  Xoroshiro128pState st = kSeed1[0];
  for (uint64_t want :
       {0x22145BD91204B982ull, 0x60C88516F644812Eull, 0x3B056FAB69FC74DDull, 0x75DDE50D5F276A45ull})
    EXPECT_EQ(random::xoroshiro128pNext(st), want);
}

TEST(Random, ParallelJumpsEqualSequentialJumps) {
  // Crosses several blocks of the parallel generator; subsequence_start composes by squaring.
  const int64_t n = 40000;
  for (uint64_t sub : {uint64_t(0), uint64_t(5), uint64_t(70000)}) {
    auto fast = hostStates(n, 12345, sub);
    Xoroshiro128pState s = random::xoroshiro128pSeed(12345);
    for (uint64_t k = 0; k < sub; ++k)
      s = random::xoroshiro128pJump(s);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(fast[size_t(i)], s) << "state " << i << " subsequence_start " << sub;
      s = random::xoroshiro128pJump(s);
    }
  }
}

TEST(Random, KernelExpansionEqualsHostStates) {
  // The GPU path: the host makes every 64th state, a cutwin kernel the rest.
  for (int64_t n : {int64_t(1), int64_t(63), int64_t(64), int64_t(5000)}) {
    DeviceArray a = sim()->empty(DType::Xoroshiro128p, {n});
    random::expandXoroshiro128pStatesWithKernel(a, 77, 9);
    ASSERT_EQ(deviceStates(a), hostStates(n, 77, 9)) << n;
  }
}

TEST(Random, DeviceArraysHoldRecords) {
  DeviceArray a = random::createXoroshiro128pStates(*sim(), 3, 1);
  EXPECT_EQ(a.dtype(), DType::Xoroshiro128p);
  EXPECT_EQ(a.strides(), std::vector<int64_t>{16});
  auto v = deviceStates(a);
  EXPECT_EQ(v[2], kSeed1[2]);
  random::initXoroshiro128pStates(a, 1, 3);
  EXPECT_EQ(deviceStates(a)[0], (Xoroshiro128pState{0x3B80C389FCD31EE7ull, 0xB43C70624D182BBBull}));
}

namespace {

const char *kDraw = R"PY(
from numba import cuda
from numba.cuda.random import (xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64,
                               xoroshiro128p_next, xoroshiro128p_jump, init_xoroshiro128p_state)

@cuda.jit
def draw(states, u32, u64, raw):
    i = cuda.grid(1)
    if i < states.size:
        u32[i] = xoroshiro128p_uniform_float32(states, i)
        u64[i] = xoroshiro128p_uniform_float64(states, i)
        raw[i] = xoroshiro128p_next(states, i)

@cuda.jit
def reseed(states, seed):
    i = cuda.grid(1)
    if i < states.size:
        init_xoroshiro128p_state(states, i, seed + i)
        cuda.random.xoroshiro128p_jump(states, i)

@cuda.jit
def peek(states, out):
    out[0] = states[1].s0
    out[1] = states[1]["s1"]
)PY";

} // namespace

TEST(Random, KernelsDrawTheHostReferenceSequence) {
  const int64_t n = 300;
  auto mod = moduleFrom(kDraw, "rng.py");
  DeviceArray st = random::createXoroshiro128pStates(*sim(), n, 7);
  auto u32 = sim()->zeros(DType::F32, {n}), u64 = sim()->zeros(DType::F64, {n}),
       raw = sim()->zeros(DType::U64, {n});
  mod->kernel("draw").launch(3, 128, {st, u32, u64, raw});
  auto ref = hostStates(n, 7);
  auto g32 = u32.toVector<float>();
  auto g64 = u64.toVector<double>();
  auto graw = raw.toVector<uint64_t>();
  for (int64_t i = 0; i < n; ++i) {
    auto &s = ref[size_t(i)];
    double a = double(random::xoroshiro128pNext(s) >> 11) * 0x1p-53;
    double b = double(random::xoroshiro128pNext(s) >> 11) * 0x1p-53;
    uint64_t c = random::xoroshiro128pNext(s);
    ASSERT_EQ(g32[size_t(i)], float(a)) << i;
    ASSERT_EQ(g64[size_t(i)], b) << i;
    ASSERT_EQ(graw[size_t(i)], c) << i;
  }
  EXPECT_EQ(deviceStates(st), ref); // states advanced in place
  // numba-cuda's first uniform_float32 from seed 1 is 0.13312314450740814.
  DeviceArray one = random::createXoroshiro128pStates(*sim(), 1, 1);
  auto f = sim()->zeros(DType::F32, {1});
  mod->kernel("draw").launch(1, 1, {one, f, sim()->zeros(DType::F64, {1}), sim()->zeros(DType::U64, {1})});
  EXPECT_EQ(f.toVector<float>()[0], 0.13312314450740814f);
}

TEST(Random, KernelSeedAndJumpMatchHost) {
  const int64_t n = 64;
  auto mod = moduleFrom(kDraw, "rng.py");
  DeviceArray st = random::createXoroshiro128pStates(*sim(), n, 0);
  mod->kernel("reseed").launch(1, 64, {st, int64_t(1000)});
  auto got = deviceStates(st);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(got[size_t(i)], random::xoroshiro128pJump(random::xoroshiro128pSeed(uint64_t(1000 + i)))) << i;
}

TEST(Random, StatesReadAsRecords) {
  // numba's state dtype is a record (s0, s1): kernels may read the words by field.
  auto mod = moduleFrom(kDraw, "rng.py");
  DeviceArray st = random::createXoroshiro128pStates(*sim(), 2, 5);
  DeviceArray out = sim()->zeros(DType::U64, {2});
  mod->kernel("peek").launch(1, 1, {st, out});
  Xoroshiro128pState want = deviceStates(st)[1];
  EXPECT_EQ(out.toVector<uint64_t>(), (std::vector<uint64_t>{want.s0, want.s1}));
}
