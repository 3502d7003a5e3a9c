// Host side of the xoroshiro128+ RNG: seeding, jumps and state arrays (cutwin/random.h).
#include "cutwin/random.h"
#include "runtime/backend.h"

#include <tbb/parallel_for.h>

#include <array>
#include <bit>
#include <map>
#include <mutex>
#include <vector>

namespace cutwin::random {

using State = Xoroshiro128pState;

uint64_t xoroshiro128pNext(State &s) {
  uint64_t r = s.s0 + s.s1, x = s.s1 ^ s.s0;
  s.s0 = std::rotl(s.s0, 55) ^ x ^ (x << 14);
  s.s1 = std::rotl(x, 36);
  return r;
}

State xoroshiro128pJump(State s) {
  static constexpr uint64_t kJump[2] = {0xBEAC0467EBA5FACBull, 0xD86B048B86AA9922ull};
  State t;
  for (uint64_t w : kJump)
    for (int b = 0; b < 64; ++b) {
      if ((w >> b) & 1) {
        t.s0 ^= s.s0;
        t.s1 ^= s.s1;
      }
      xoroshiro128pNext(s);
    }
  return t;
}

State xoroshiro128pSeed(uint64_t seed) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return {z, z};
}

namespace {

State operator^(State a, State b) { return {a.s0 ^ b.s0, a.s1 ^ b.s1}; }

/// A linear map of GF(2)^128 by its columns: col[k] is the image of bit k (bits 0-63 are
/// s0's, 64-127 s1's). The jump is linear: xoroshiro's step only shifts, rotates and xors.
struct LinearMap {
  std::array<State, 128> col{};

  State apply(State s) const {
    State r;
    for (int k = 0; k < 128; ++k)
      if (((k < 64 ? s.s0 : s.s1) >> (k & 63)) & 1)
        r = r ^ col[size_t(k)];
    return r;
  }
  LinearMap then(const LinearMap &next) const { // next ∘ this
    LinearMap m;
    for (size_t k = 0; k < 128; ++k)
      m.col[k] = next.apply(col[k]);
    return m;
  }
  static LinearMap identity() {
    LinearMap m;
    for (int k = 0; k < 128; ++k)
      m.col[size_t(k)] = k < 64 ? State{1ull << k, 0} : State{0, 1ull << (k - 64)};
    return m;
  }
  static LinearMap jump() {
    LinearMap m = identity();
    for (auto &c : m.col)
      c = xoroshiro128pJump(c);
    return m;
  }
  LinearMap power(uint64_t e) const {
    LinearMap r = identity(), sq = *this;
    for (; e; e >>= 1) {
      if (e & 1)
        r = r.then(sq);
      sq = sq.then(sq);
    }
    return r;
  }
};

/// The same map applied a byte at a time: 16 lookups instead of 128 conditional xors.
struct ByteTable {
  std::vector<State> t = std::vector<State>(16 * 256);

  explicit ByteTable(const LinearMap &m) {
    for (size_t j = 0; j < 16; ++j)
      for (unsigned b = 1; b < 256; ++b)
        t[j * 256 + b] = t[j * 256 + (b & (b - 1))] ^ m.col[j * 8 + size_t(std::countr_zero(b))];
  }
  State apply(State s) const {
    State r;
    for (size_t j = 0; j < 8; ++j) {
      r = r ^ t[j * 256 + ((s.s0 >> (8 * j)) & 0xFF)];
      r = r ^ t[(j + 8) * 256 + ((s.s1 >> (8 * j)) & 0xFF)];
    }
    return r;
  }
};

} // namespace

namespace {

const LinearMap &jumpMap() {
  static const LinearMap jump = LinearMap::jump();
  return jump;
}

/// On a GPU the states are expanded by a kernel: thread t starts at state t (made on the
/// host) and strides by the T threads, applying the jump by T states with a byte table.
/// Written in the kernel dialect and compiled by cutwin itself.
const char *kExpandStates = R"PY(
from numba import cuda, int64, uint64


@cuda.jit
def expand_states(starts, table, out, n):
    t = cuda.grid(1)
    T = starts.shape[0]
    if t < T:
        s0 = starts[t, 0]
        s1 = starts[t, 1]
        i = t
        while i < n:
            out[i, 0] = s0
            out[i, 1] = s1
            r0 = uint64(0)
            r1 = uint64(0)
            for j in range(8):
                k = j * 256 + int64((s0 >> uint64(8 * j)) & uint64(255))
                r0 ^= table[k, 0]
                r1 ^= table[k, 1]
                k = (j + 8) * 256 + int64((s1 >> uint64(8 * j)) & uint64(255))
                r0 ^= table[k, 0]
                r1 ^= table[k, 1]
            s0 = r0
            s1 = r1
            i += T
)PY";

/// States each GPU thread writes; below kGpuMinStates the host makes them all.
constexpr int64_t kStatesPerThread = 64, kGpuMinStates = 1 << 16;

Kernel expandKernel(Device &device) {
  static std::mutex mu;
  static std::map<const Device *, std::shared_ptr<Module>> modules;
  std::lock_guard<std::mutex> lock(mu);
  auto &m = modules[&device];
  if (!m) {
    CompileOptions o;
    o.boundscheck = false;
    m = Module::fromString(device.shared_from_this(), kExpandStates, "<cutwin random>", o);
  }
  return m->kernel("expand_states");
}

} // namespace

static void checkStates(const DeviceArray &states) {
  if (states.dtype() != DType::Xoroshiro128p || states.ndim() != 1 || !states.isCContiguous())
    throw Error("init_xoroshiro128p_states needs a C-contiguous 1-D array of xoroshiro128p states");
}

void expandXoroshiro128pStatesWithKernel(DeviceArray &states, uint64_t seed, uint64_t subsequenceStart) {
  checkStates(states);
  Device &dev = states.device();
  int64_t n = states.size();
  int64_t threads = (n + kStatesPerThread - 1) / kStatesPerThread;
  std::vector<State> starts(static_cast<size_t>(threads));
  xoroshiro128pStates(starts.data(), threads, seed, subsequenceStart);
  ByteTable stride(jumpMap().power(uint64_t(threads)));
  DeviceArray dStarts = dev.empty(DType::U64, {threads, 2});
  dStarts.copyFromHost(starts.data(), starts.size() * sizeof(State));
  DeviceArray dTable = dev.empty(DType::U64, {16 * 256, 2});
  dTable.copyFromHost(stride.t.data(), stride.t.size() * sizeof(State));
  DeviceArray words = states.view(DType::U64, {n, 2}, {16, 8});
  uint32_t block = 256, grid = uint32_t((threads + block - 1) / block);
  expandKernel(dev).launch(grid, block, {dStarts, dTable, words, Arg(n)});
}

void xoroshiro128pStates(State *out, int64_t n, uint64_t seed, uint64_t subsequenceStart) {
  if (n <= 0)
    return;
  const LinearMap &jump = jumpMap();
  static const ByteTable jumpTable(jump);
  State first = xoroshiro128pSeed(seed);
  if (subsequenceStart)
    first = jump.power(subsequenceStart).apply(first);
  // Blocks of states start at first advanced by block * blockSize jumps.
  constexpr int64_t kBlock = 16384;
  int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<State> starts(static_cast<size_t>(blocks));
  starts[0] = first;
  if (blocks > 1) {
    ByteTable blockJump(jump.power(uint64_t(kBlock)));
    for (int64_t b = 1; b < blocks; ++b)
      starts[size_t(b)] = blockJump.apply(starts[size_t(b - 1)]);
  }
  tbb::parallel_for(int64_t(0), blocks, [&](int64_t b) {
    State s = starts[size_t(b)];
    int64_t end = std::min(n, (b + 1) * kBlock);
    for (int64_t i = b * kBlock; i < end; ++i) {
      out[i] = s;
      s = jumpTable.apply(s);
    }
  });
}

DeviceArray createXoroshiro128pStates(Device &device, int64_t n, uint64_t seed, uint64_t subsequenceStart) {
  if (n < 0)
    throw Error("create_xoroshiro128p_states: n must not be negative");
  DeviceArray a = device.empty(DType::Xoroshiro128p, {n});
  initXoroshiro128pStates(a, seed, subsequenceStart);
  return a;
}

void initXoroshiro128pStates(DeviceArray &states, uint64_t seed, uint64_t subsequenceStart) {
  checkStates(states);
  if (states.device().backend().capabilities().hostAddressableMemory) { // write in place
    xoroshiro128pStates(static_cast<State *>(states.data()), states.size(), seed, subsequenceStart);
    states.device().backend().memory().writtenInPlace(states.data(), size_t(states.size()) * sizeof(State));
    return;
  }
  if (states.size() >= kGpuMinStates)
    return expandXoroshiro128pStatesWithKernel(states, seed, subsequenceStart);
  std::vector<State> host(static_cast<size_t>(states.size()));
  xoroshiro128pStates(host.data(), states.size(), seed, subsequenceStart);
  states.copyFromHost(host.data(), host.size() * sizeof(State));
}

} // namespace cutwin::random
