// Kernels split at their barriers and warp operations (step sim-regions) against the same
// kernels compiled uncut and run as fibers (CUTWIN_SIM_THREADS=fibers): randomly generated
// kernels with barriers and warp operations in loops and branches, partial warps and
// returned threads, bit for bit; divergence reported alike; barriers in a device function,
// one barrier reached from two resume points.
#include "kernel_test_util.h"

#include <cstdlib>
#include <random>
#include <sstream>

using namespace cutwin;
using namespace cutwin::test;
using ::testing::HasSubstr;

namespace {

/// A simulator that runs every kernel as fibers.
std::shared_ptr<Device> fibers() {
  static std::shared_ptr<Device> d = [] {
    setenv("CUTWIN_SIM_THREADS", "fibers", 1);
    auto dev = Device::open("sim");
    unsetenv("CUTWIN_SIM_THREADS");
    return dev;
  }();
  return d;
}

/// Runs kernel `name` of `src` as `k(inp, out, n)` over blocks of `block` threads on `dev`;
/// returns out.
std::vector<double> run(const std::shared_ptr<Device> &dev, const std::string &src, const char *name,
                        uint32_t blocks, uint32_t block, int64_t n, CompileOptions opts = {}) {
  std::vector<double> in(size_t(blocks) * block);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = double(i % 97) * 0.25 - 7.0;
  auto inp = dev->toDevice(in);
  auto out = dev->zeros(DType::F64, {int64_t(in.size())});
  Module::fromString(dev, src, "regions.py", opts)->kernel(name).launch(blocks, block, {inp, out, n});
  return out.toVector<double>();
}

/// Random kernels: block-uniform loops and branches with barriers and warp operations
/// inside, thread-dependent branches without, shared memory read across threads between
/// barriers, a local array.
class KernelGenerator {
public:
  explicit KernelGenerator(unsigned seed) : rng_(seed) {}

  std::string kernel(uint32_t block) {
    block_ = block;
    std::ostringstream s;
    s << "from numba import cuda, float64\n\n@cuda.jit\ndef k(inp, out, n):\n"
      << "    sh = cuda.shared.array(" << block << ", float64)\n"
      << "    loc = cuda.local.array(4, float64)\n"
      << "    t = cuda.threadIdx.x\n    i = cuda.grid(1)\n    acc = inp[i]\n"
      << "    for q in range(4):\n        loc[q] = acc + q\n";
    if (pick(2)) // some threads return first: they take no part in what follows
      s << "    if t % 32 == " << pick(32) << " or t == " << pick(int(block)) << ":\n        return\n";
    body(s, 1, 0);
    s << "    out[i] = acc + loc[0] + loc[3]\n";
    return s.str();
  }

private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  void body(std::ostringstream &s, int indent, int depth) {
    int statements = 2 + pick(3);
    for (int k = 0; k < statements; ++k)
      statement(s, indent, depth);
  }

  void statement(std::ostringstream &s, int indent, int depth) {
    std::string pad(size_t(indent) * 4, ' ');
    switch (depth < 3 ? pick(13) : pick(3)) {
    case 0: s << pad << "acc = acc * " << 0.5 + pick(3) * 0.25 << " + " << pick(9) << "\n"; break;
    case 1: // threads exchange values through shared memory, between two barriers
      s << pad << "sh[t] = acc\n"
        << pad << "cuda.syncthreads()\n"
        << pad << "acc += sh[(t + " << 1 + pick(int(block_) - 1) << ") % " << block_ << "] * 0.5\n"
        << pad << "cuda.syncthreads()\n";
      break;
    case 2:
      s << pad << "loc[" << pick(4) << "] += acc * 0.125\n" << pad << "acc -= loc[" << pick(4) << "]\n";
      break;
    case 3: // a block-uniform loop
    {
      std::string var = "r" + std::to_string(depth);
      s << pad << "for " << var << " in range(" << 1 + pick(3) << "):\n";
      body(s, indent + 1, depth + 1);
      s << pad << "    acc += " << var << "\n";
      break;
    }
    case 4: // a block-uniform branch on the argument
      s << pad << "if n > " << pick(20) << ":\n";
      body(s, indent + 1, depth + 1);
      s << pad << "else:\n" << pad << "    acc = acc - 1.0\n";
      break;
    case 5: // a thread-dependent branch (no barrier inside)
      s << pad << "if t % " << 2 + pick(3) << " == 0:\n" << pad << "    acc = acc * 0.75 + loc[1]\n";
      break;
    case 6: // a block-uniform while loop
    {
      std::string var = "w" + std::to_string(depth);
      s << pad << var << " = 0\n" << pad << "while " << var << " < n % 3 + 1:\n";
      body(s, indent + 1, depth + 1);
      s << pad << "    " << var << " += 1\n";
      break;
    }
    case 7: // lanes exchange values: every lane of the warp takes part
      s << pad << "acc += cuda.shfl_down_sync(0xFFFFFFFF, acc, " << 1 + pick(16) << ") * 0.5\n";
      break;
    case 8:
      s << pad << "acc = acc * 0.5 + cuda.shfl_xor_sync(0xFFFFFFFF, acc, " << 1 + pick(31) << ")\n"
        << pad << "acc += cuda.shfl_sync(0xFFFFFFFF, acc, t % " << 1 + pick(31) << ") * 0.25\n";
      break;
    case 9: // a vote
      s << pad << "if cuda.ballot_sync(0xFFFFFFFF, acc > " << pick(5) << ") & " << 1 + pick(255) << ":\n"
        << pad << "    acc = acc + 0.5\n";
      break;
    case 10: // half a warp exchanges values, the other half waits at the next barrier
      s << pad << "if t % 32 < 16:\n"
        << pad << "    acc += cuda.shfl_down_sync(0xFFFF, acc, " << 1 + pick(8) << ") * 0.25\n"
        << pad << "cuda.syncthreads()\n";
      break;
    case 11: // an integer kept across barriers: each thread's own, or one per block (read
             // from memory, so kept rather than computed again: the leader copies' two loops)
    {
      std::string var = "m" + std::to_string(depth);
      const char *from = pick(2) ? "inp[i]" : "inp[cuda.blockIdx.x * cuda.blockDim.x]";
      s << pad << var << " = int(" << from << ") % 3 + 1\n"
        << pad << "sh[t] = acc\n"
        << pad << "cuda.syncthreads()\n"
        << pad << "acc += sh[(t + " << var << ") % " << block_ << "] * 0.5\n"
        << pad << "cuda.syncthreads()\n"
        << pad << "if t < " << var << " * " << 1 + pick(8) << ":\n"
        << pad << "    acc += " << var << "\n";
      break;
    }
    case 12: // a tree's rounds: threads on one side of a block-uniform bound work (the
             // optimiser splits the loop over the threads there, and versions what is left)
    {
      std::string var = "h" + std::to_string(depth);
      const std::string bounds[] = {"t < " + var,
                                    "t >= " + var,
                                    var + " > t",
                                    "t <= " + var + " - 1",
                                    "t > n - " + std::to_string(pick(40)),
                                    "t < n * " + std::to_string(1 + pick(4)) + " - " +
                                        std::to_string(pick(60))};
      s << pad << var << " = " << block_ / 2 << " - n % 3\n"
        << pad << "while " << var << " > 0:\n"
        << pad << "    sh[t] = acc\n"
        << pad << "    cuda.syncthreads()\n"
        << pad << "    if " << bounds[pick(6)] << ":\n"
        << pad << "        acc += sh[(t + " << var << ") % " << block_ << "] * 0.5\n"
        << pad << "    cuda.syncthreads()\n"
        << pad << "    " << var << " //= 2\n";
      break;
    }
    }
  }

  std::mt19937 rng_;
  uint32_t block_ = 32;
};

/// A few threads of each block return early; the rest meet at the barriers.
const char *kEarlyReturn = R"PY(
from numba import cuda, float64

@cuda.jit
def k(inp, out, n):
    sh = cuda.shared.array(64, float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t >= n:
        return
    sh[t] = inp[i]
    cuda.syncthreads()
    out[i] = sh[(t + 1) % n] + sh[0]
)PY";

/// A device function with barriers, called three times (inlined into the kernel).
const char *kBarrierInDeviceFunction = R"PY(
from numba import cuda, float64

@cuda.jit(device=True)
def exchange(sh, t, v, shift):
    sh[t] = v
    cuda.syncthreads()
    w = sh[(t + shift) % 32]
    cuda.syncthreads()
    return w

@cuda.jit
def k(inp, out, n):
    sh = cuda.shared.array(32, float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = exchange(sh, t, inp[i], 1)
    v = exchange(sh, t, v + 1.0, 3)
    out[i] = v + exchange(sh, t, v, n)
)PY";

/// Even threads call it at one place, odd ones at another: the same barrier (the function's)
/// reached from two resume points (one per inlined call).
const char *kBarrierInTwoCalls = R"PY(
from numba import cuda, float64

@cuda.jit(device=True)
def exchange(sh, t, v):
    sh[t] = v
    cuda.syncthreads()
    return sh[(t + 1) % 32]

@cuda.jit
def k(inp, out, n):
    sh = cuda.shared.array(32, float64)
    t = cuda.threadIdx.x
    v = inp[cuda.grid(1)]
    if t % 2 == 0:
        v = exchange(sh, t, v)
    else:
        v = exchange(sh, t, v + 1.0)
    out[cuda.grid(1)] = v
)PY";

/// Half the threads wait at one barrier, the other half at another: never opens.
const char *kDivergent = R"PY(
from numba import cuda

@cuda.jit
def k(inp, out, n):
    t = cuda.threadIdx.x
    if t < 16:
        cuda.syncthreads()
    else:
        cuda.syncthreads()
    out[cuda.grid(1)] = t
)PY";

/// Lanes of some warps ask under a mask of half the warp, at two places; lanes 0-9 ask
/// which lanes are active; a vote among the lanes that are left.
const char *kPartialWarps = R"PY(
from numba import cuda, float64

@cuda.jit
def k(inp, out, n):
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = inp[i]
    if t % 2 == 0:
        v += cuda.shfl_down_sync(0x55555555, v, 2)
    else:
        v -= cuda.shfl_up_sync(0xAAAAAAAA, v, 4)
    if t % 32 < 10:
        v += cuda.activemask()
    if t < n:
        return
    v += cuda.ballot_sync(cuda.activemask(), v > 0)
    out[i] = v
)PY";

/// Lanes wait in a shuffle of the whole warp while lane 5 waits in a vote: neither can
/// complete.
const char *kStuckWarp = R"PY(
from numba import cuda

@cuda.jit
def k(inp, out, n):
    t = cuda.threadIdx.x
    if t != 5:
        out[cuda.grid(1)] = cuda.shfl_sync(0xFFFFFFFF, inp[cuda.grid(1)], 0)
    else:
        out[cuda.grid(1)] = cuda.ballot_sync(0xFFFFFFFF, True)
)PY";

/// The error of kernel `k` of `src` on one block of 32 threads, split and on fibers: the
/// same message both ways (returned), and the next launch works.
std::string sameErrorBothWays(const char *src, KernelErrorKind kind) {
  std::string messages[2];
  int k = 0;
  for (auto &dev : {sim(), fibers()}) {
    KernelError e = expectKernelError([&] { run(dev, src, "k", 1, 32, 0); });
    EXPECT_EQ(e.kind(), kind);
    messages[k++] = e.what();
    std::vector<double> out = run(dev, kEarlyReturn, "k", 1, 64, 64);
    EXPECT_EQ(out[0], (1 % 97) * 0.25 - 7.0 + (-7.0));
  }
  EXPECT_EQ(messages[0], messages[1]);
  return messages[0];
}

} // namespace

TEST(BarrierRegions, RandomKernelsWithBarriersAndWarpOpsInLoopsAndBranchesAgreeWithFibersBitForBit) {
  for (unsigned seed = 1; seed <= 48; ++seed) {
    KernelGenerator gen(seed);
    const uint32_t blocks[] = {32, 40, 64, 96, 48}; // (partial warps too)
    uint32_t block = blocks[seed % 5];
    std::string src = gen.kernel(block);
    SCOPED_TRACE(src);
    CompileOptions unchecked; // (the split kernels' leader copies: bounds checks off)
    unchecked.boundscheck = false;
    for (const CompileOptions &opts : {CompileOptions{}, unchecked})
      for (int64_t n : {3, 17}) {
        std::vector<double> split = run(sim(), src, "k", 3, block, n, opts);
        std::vector<double> fiber = run(fibers(), src, "k", 3, block, n, opts);
        ASSERT_EQ(split.size(), fiber.size());
        for (size_t j = 0; j < split.size(); ++j)
          ASSERT_EQ(std::memcmp(&split[j], &fiber[j], sizeof(double)), 0)
              << "seed " << seed << " n " << n << " bounds checks " << opts.boundscheck.value_or(true)
              << " element " << j << ": " << split[j] << " vs " << fiber[j];
      }
  }
}

TEST(BarrierRegions, ThreadsThatReturnedTakeNoPartInTheBarrier) {
  // Only the first n threads of each block reach the barrier (as on Volta and later).
  for (auto &dev : {sim(), fibers()}) {
    std::vector<double> out = run(dev, kEarlyReturn, "k", 2, 64, 40);
    for (uint32_t b = 0; b < 2; ++b)
      for (uint32_t t = 0; t < 64; ++t) {
        auto in = [&](uint32_t j) { return double((b * 64 + j) % 97) * 0.25 - 7.0; };
        double want = t < 40 ? in((t + 1) % 40) + in(0) : 0.0;
        ASSERT_EQ(out[b * 64 + t], want) << b << " " << t;
      }
  }
}

TEST(BarrierRegions, BarriersInADeviceFunctionCalledThreeTimes) {
  std::vector<double> split = run(sim(), kBarrierInDeviceFunction, "k", 2, 32, 5);
  EXPECT_EQ(split, run(fibers(), kBarrierInDeviceFunction, "k", 2, 32, 5));
  for (uint32_t b = 0; b < 2; ++b) {
    double v[3][32];
    for (uint32_t t = 0; t < 32; ++t)
      v[0][t] = double((b * 32 + (t + 1) % 32) % 97) * 0.25 - 7.0;
    for (uint32_t t = 0; t < 32; ++t)
      v[1][t] = v[0][(t + 3) % 32] + 1.0;
    for (uint32_t t = 0; t < 32; ++t)
      v[2][t] = v[1][(t + 5) % 32];
    for (uint32_t t = 0; t < 32; ++t)
      ASSERT_EQ(split[b * 32 + t], v[1][t] + v[2][t]) << b << " " << t;
  }
}

TEST(BarrierRegions, ThreadsResumingFromTwoPointsAtOneBarrierRunEachFromItsOwn) {
  std::vector<double> split = run(sim(), kBarrierInTwoCalls, "k", 2, 32, 0);
  EXPECT_EQ(split, run(fibers(), kBarrierInTwoCalls, "k", 2, 32, 0));
  for (uint32_t b = 0; b < 2; ++b)
    for (uint32_t t = 0; t < 32; ++t) {
      uint32_t u = (t + 1) % 32; // whose value thread t reads
      double stored = double((b * 32 + u) % 97) * 0.25 - 7.0 + (u % 2 ? 1.0 : 0.0);
      ASSERT_EQ(split[b * 32 + t], stored) << b << " " << t;
    }
}

TEST(BarrierRegions, DivergentBarriersAreReportedAsOnFibers) {
  std::string message = sameErrorBothWays(kDivergent, KernelErrorKind::BarrierDivergence);
  EXPECT_THAT(message, HasSubstr("barrier divergence: 16 of the block's 32 running threads"));
}

TEST(BarrierRegions, ASeedRunsASplitKernelAsFibersAndShufflesIt) {
  // CUTWIN_SIM_SEED needs fibers: the split kernel's thread entry runs its regions on them.
  setenv("CUTWIN_SIM_SEED", "99", 1);
  auto shuffled = Device::open("sim");
  unsetenv("CUTWIN_SIM_SEED");
  // (each fiber counts its own regions' parity for the values kept once per block)
  for (unsigned seed : {7u, 1u, 2u, 3u, 5u, 9u, 11u, 13u, 17u, 19u, 23u, 29u}) {
    KernelGenerator gen(seed);
    std::string src = gen.kernel(64);
    SCOPED_TRACE(src);
    EXPECT_EQ(run(shuffled, src, "k", 2, 64, 9), run(sim(), src, "k", 2, 64, 9)) << "seed " << seed;
  }
}

TEST(BarrierRegions, TheWatchdogStopsALaunchBetweenRoundsAsItStopsFibers) {
  // No loop polls here (a range ends by itself): the scheduler notices between rounds,
  // where every thread waits at the barrier.
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(inp, out, n):
    acc = 0.0
    for r in range(n):
        acc += inp[cuda.grid(1)]
        cuda.syncthreads()
    out[cuda.grid(1)] = acc
)PY";
  std::string messages[2];
  int k = 0;
  for (auto &dev : {sim(), fibers()}) {
    auto inp = dev->zeros(DType::F64, {64}), out = dev->zeros(DType::F64, {64});
    LaunchOptions opts;
    opts.timeoutSeconds = 0.1;
    auto mod = Module::fromString(dev, src, "rounds.py");
    KernelError e = expectKernelError([&] {
      mod->kernel("k").launch(1, 64, {inp, out, int64_t(1) << 40}, opts);
    });
    EXPECT_EQ(e.kind(), KernelErrorKind::Timeout);
    messages[k++] = e.what();
  }
  EXPECT_EQ(messages[0], messages[1]);
  EXPECT_THAT(messages[0], HasSubstr("thread (0,0,0) block (0,0,0)"));
  EXPECT_THAT(messages[0], HasSubstr("where: 0 of 1 blocks had finished; threads of block (0,0,0): 64 at the "
                                     "barrier at line 9"));
}

TEST(BarrierRegions, WarpsOfPartialMasksActiveMaskAndReturnedLanesAgreeWithFibers) {
  for (int64_t n : {0, 13, 40}) {
    std::vector<double> split = run(sim(), kPartialWarps, "k", 2, 64, n);
    EXPECT_EQ(split, run(fibers(), kPartialWarps, "k", 2, 64, n)) << n;
  }
}

TEST(BarrierRegions, AStuckWarpOperationIsReportedAsOnFibers) {
  std::string message = sameErrorBothWays(kStuckWarp, KernelErrorKind::WarpDivergence);
  EXPECT_THAT(message, HasSubstr("lane 5 of the mask waits at the warp operation at regions.py:10"));
}

/// One thread stores far past its array after a barrier (bounds checks off): the fault's
/// signal handler jumps out of the block, with the fault signals blocked as handlers run;
/// the block's runner unblocks them (it saves its jump point without the signal mask), so
/// the same OS thread can fault again in the next launch.
const char *kWildStoreAfterBarrier = R"PY(
from numba import cuda, float64

@cuda.jit
def k(inp, out, n):
    sh = cuda.shared.array(32, float64)
    t = cuda.threadIdx.x
    sh[t] = inp[t]
    cuda.syncthreads()
    if t == 5:
        out[n] = sh[(t + 1) % 32]
    else:
        out[t] = sh[(t + 1) % 32]
)PY";

TEST(BarrierRegions, AFaultAfterABarrierEndsItsLaunchAndTheSameThreadFaultsAgainInTheNext) {
  CompileOptions unchecked;
  unchecked.boundscheck = false;
  for (auto &dev : {sim(), fibers()})
    for (int round = 0; round < 3; ++round) { // (one block: it runs on the launching thread)
      KernelError e = expectKernelError(
          [&] { run(dev, kWildStoreAfterBarrier, "k", 1, 32, int64_t(1) << 40, unchecked); });
      EXPECT_EQ(e.kind(), KernelErrorKind::IllegalAddress);
      EXPECT_THAT(std::string(e.what()), HasSubstr("regions.py in k, thread ("));
      EXPECT_THAT(std::string(e.what()), HasSubstr(") block (0,0,0): illegal memory access"));
      if (dev == fibers()) // (a loop over the threads names the thread it last recorded: docs/simulator.md)
        EXPECT_THAT(std::string(e.what()), HasSubstr("thread (5,0,0) block (0,0,0)"));
      std::vector<double> ok = run(dev, kWildStoreAfterBarrier, "k", 1, 32, 5, unchecked);
      EXPECT_EQ(ok[5], (6 % 97) * 0.25 - 7.0);
    }
}

/// The loop over a block's threads split at `t < n` (bounds checks off: IRCE) leaves the
/// threads past n in a loop that keeps its other checks, versioned where one is the same
/// at both ends; one on the thread index cut to 8 bits is false at both ends of [24, 1024)
/// yet true at t = 256..271, 512..527, ...: it must keep its value per thread (the
/// optimiser makes it a mask test; VersionSplitChecksPass also declines an induction
/// variable narrower than the loop's count, which may wrap more than once).
const char *kTruncatedIndexCheck = R"PY(
from numba import cuda, uint8

@cuda.jit
def k(inp, out, n):
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t < n:
        out[i] = inp[i]
    if uint8(t) < 16:
        out[i] += 1.0
)PY";

TEST(BarrierRegions, AThreadLoopSplitAtABoundKeepsAnIndexCheckThatWrapsPastItExact) {
  CompileOptions unchecked;
  unchecked.boundscheck = false;
  for (int64_t n : {24, 300, 2000}) {
    std::vector<double> out = run(sim(), kTruncatedIndexCheck, "k", 2, 1024, n, unchecked);
    for (uint32_t i = 0; i < 2048; ++i) {
      uint32_t t = i % 1024;
      double want = (int64_t(t) < n ? double(i % 97) * 0.25 - 7.0 : 0.0) + ((t & 255) < 16 ? 1.0 : 0.0);
      ASSERT_EQ(out[i], want) << "n " << n << " thread " << t;
    }
  }
}

/// Lane 1 waits for lane 0 at each shuffle (mask 3), while lane 0 and every other lane ask
/// for themselves alone: those complete at once and run ahead, lane 1 completes only when
/// lane 0 has returned. Lanes then run different numbers of rounds, so the loop's count,
/// the same in every thread, must stay in each thread's frame (not once per block).
const char *kOverlappingWarpMasks = R"PY(
from numba import cuda

@cuda.jit
def k(inp, out, n):
    t = cuda.threadIdx.x
    m = 3 if t == 1 else (1 << t)
    for i in range(n):
        v = cuda.shfl_sync(m, i, t)
        out[i * 32 + t] = v + 1
)PY";

TEST(BarrierRegions, LanesReleasedAheadOfOthersKeepTheirOwnLoopCounts) {
  std::vector<double> split = run(sim(), kOverlappingWarpMasks, "k", 3, 32, 3);
  std::vector<double> fiber = run(fibers(), kOverlappingWarpMasks, "k", 3, 32, 3);
  EXPECT_EQ(split, fiber);
  for (uint32_t i = 0; i < 3; ++i)
    EXPECT_EQ(split[i * 32 + 1], double(i + 1)) << "iteration " << i << " of lane 1";
}

/// A shared array passed to a device function declared with a signature (its array in the
/// global space): what the function reads is still the block's shared memory, which the
/// optimiser must not take for global memory that never meets shared memory (the store
/// before the call is the value it reads; the store after it overwrites).
const char *kSharedArrayThroughASignature = R"PY(
from numba import cuda, float64

@cuda.jit("float64(float64[:], int64)", device=True)
def read(a, i):
    return a[i]

@cuda.jit
def k(inp, out, n):
    s = cuda.shared.array(32, float64)
    t = cuda.threadIdx.x
    s[t] = inp[cuda.grid(1)]
    v = read(s, t)
    s[t] = 2.0
    out[cuda.grid(1)] = v * 3.0 + s[t]
)PY";

TEST(BarrierRegions, ASharedArrayReadThroughAGlobalSpaceParameterIsStillSharedMemory) {
  CompileOptions unchecked;
  unchecked.boundscheck = false;
  for (const CompileOptions &opts : {CompileOptions{}, unchecked}) {
    std::vector<double> out = run(sim(), kSharedArrayThroughASignature, "k", 2, 32, 0, opts);
    for (size_t i = 0; i < out.size(); ++i)
      EXPECT_EQ(out[i], (double(i % 97) * 0.25 - 7.0) * 3.0 + 2.0) << i;
  }
}
