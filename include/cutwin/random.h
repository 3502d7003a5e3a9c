/// \file
/// numba.cuda.random's host side: arrays of xoroshiro128+ RNG states, one per thread, that
/// kernels draw from with the xoroshiro128p_* functions. The states are bit-identical to
/// numba-cuda's: state 0 is seeded by one splitmix64 step, state i is state i-1 advanced by
/// the 2^64-step jump, after `subsequenceStart` jumps of state 0.
#pragma once

#include "cutwin/cutwin.h"

namespace cutwin::random {

/// One state record: two uint64 words, numba's `xoroshiro128p_dtype` (s0, s1).
struct Xoroshiro128pState {
  uint64_t s0 = 0, s1 = 0;
  bool operator==(const Xoroshiro128pState &) const = default;
};

/// A new 1-D array of `n` states on `device` (numba's create_xoroshiro128p_states).
DeviceArray createXoroshiro128pStates(Device &device, int64_t n, uint64_t seed,
                                      uint64_t subsequenceStart = 0);
/// Re-seeds an existing C-contiguous 1-D state array (numba's init_xoroshiro128p_states).
void initXoroshiro128pStates(DeviceArray &states, uint64_t seed, uint64_t subsequenceStart = 0);
/// What initXoroshiro128pStates does on a GPU for large arrays, on any device: the host makes
/// one state per 64, a kernel compiled by cutwin makes the rest (tested on the simulator).
void expandXoroshiro128pStatesWithKernel(DeviceArray &states, uint64_t seed, uint64_t subsequenceStart = 0);
/// The states on the host, in parallel: jumps are linear maps over GF(2)^128, applied with
/// byte tables and composed by squaring for the start of each block of states.
void xoroshiro128pStates(Xoroshiro128pState *out, int64_t n, uint64_t seed, uint64_t subsequenceStart = 0);

/// Reference implementations for tests: one step, and one jump by 128 steps.
uint64_t xoroshiro128pNext(Xoroshiro128pState &s);
Xoroshiro128pState xoroshiro128pJump(Xoroshiro128pState s);
Xoroshiro128pState xoroshiro128pSeed(uint64_t seed);

} // namespace cutwin::random
