/// What simulated threads see of their surroundings: the structure every kernel function
/// receives as its hidden first argument on the simulator. The lowering pass
/// (lower_intrinsics.cpp) reads it with field indices that must match this layout.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cutwin::sim {

struct Fiber;
struct BlockState;
struct SanitizerFastPath;
struct WarpLane;

/// A function of a debug kernel as it runs (`cutwin.debug.enter`, docs/ir.md): the frame
/// record the frontend lays out in the function's frame. The thread's debug stack links
/// them, innermost first.
struct DebugFrameRecord {
  const DebugFrameRecord *caller; ///< the calling function's record (null in the kernel)
  void *const *variables;         ///< the addresses of the function's variables (its sites' `locals`)
  uint32_t site;                  ///< the line event of the statement running (UINT32_MAX: none yet)
};

struct ThreadContext {
  uint32_t tid[3];        ///< field 0: threadIdx
  uint32_t ctaid[3];      ///< field 1: blockIdx
  uint32_t ntid[3];       ///< field 2: blockDim
  uint32_t nctaid[3];     ///< field 3: gridDim
  uint8_t *shared;        ///< field 4: this block's shared memory
  BlockState *block;      ///< field 5: scheduler state of the block
  Fiber *fiber;           ///< field 6: this thread's fiber; null when threads run as a loop
  uint64_t dynamicShared; ///< field 7: the launch's dynamic shared bytes (after the static ones)
  /// field 8: debug kernels: the innermost function's frame record (null outside any)
  const DebugFrameRecord *debugTop;
  /// field 9: polls left before a loop that may wait for another thread yields
  /// (`cutwin.spin`; the JIT code counts down and resets it to kSpinPolls)
  uint32_t spinPollsLeft;
  /// field 10: iterations left before a loop of unknown length asks whether the launch
  /// was interrupted (`cutwin.poll`; counted down like spinPollsLeft, reset to kInterruptPolls)
  uint32_t interruptPollsLeft;
  /// field 11: kernels compiled with `sanitize=`: what the inline checks of shared-memory
  /// and global-memory accesses read (sanitize_accesses.h); null otherwise
  const SanitizerFastPath *sanitizer;
  /// field 12: kernels split at their barriers (step sim-regions): the block's thread frames,
  /// where what a thread keeps across a barrier lives (barrier_regions.h); null otherwise
  uint8_t *frames;
  /// field 13: kernels split at their warp operations too: the block's lanes (warp_ops.h),
  /// where each thread leaves its request and finds the result; null otherwise
  WarpLane *lanes;
};

/// Iterations of a waiting loop (`cutwin.spin`) between two yields of its fiber.
inline constexpr uint32_t kSpinPolls = 256;
/// Iterations of a loop of unknown length (`cutwin.poll`) between two checks for Ctrl-C
/// or the watchdog: a few microseconds of work, far below the 100 ms an interrupt may take.
inline constexpr uint32_t kInterruptPolls = 4096;

// The LLVM struct the pass builds is {[3 x i32] x4, ptr, ptr, ptr, i64, ptr, i32, i32, ptr, ptr, ptr}.
static_assert(offsetof(ThreadContext, tid) == 0);
static_assert(offsetof(ThreadContext, ctaid) == 12);
static_assert(offsetof(ThreadContext, ntid) == 24);
static_assert(offsetof(ThreadContext, nctaid) == 36);
static_assert(offsetof(ThreadContext, shared) == 48);
static_assert(offsetof(ThreadContext, block) == 56);
static_assert(offsetof(ThreadContext, fiber) == 64);
static_assert(offsetof(ThreadContext, dynamicShared) == 72);
static_assert(offsetof(ThreadContext, debugTop) == 80);
static_assert(offsetof(ThreadContext, spinPollsLeft) == 88);
static_assert(offsetof(ThreadContext, interruptPollsLeft) == 92);
static_assert(offsetof(ThreadContext, sanitizer) == 96);
static_assert(offsetof(ThreadContext, frames) == 104);
static_assert(offsetof(ThreadContext, lanes) == 112);
// ... and the frame record's is {ptr, ptr, i32}.
static_assert(offsetof(DebugFrameRecord, variables) == 8 && offsetof(DebugFrameRecord, site) == 16);

/// The attribute of the functions compiled from the kernel's source (each got the context
/// parameter): the code the sanitizer instruments, apart from the entry points and helpers.
inline constexpr const char *kKernelCodeAttribute = "cutwin-kernel-code";

/// The (x, y, z) of the `i`-th element of a box of `dims`, x fastest: threadIdx from a
/// thread's linear index in its block (dims blockDim), blockIdx from a block's in the grid.
inline void indexOfLinear(uint64_t i, const uint32_t dims[3], uint32_t out[3]) {
  out[0] = uint32_t(i % dims[0]);
  out[1] = uint32_t(i / dims[0] % dims[1]);
  out[2] = uint32_t(i / (uint64_t(dims[0]) * dims[1]));
}
/// The inverse: the linear index of (x, y, z) in a box of `dims`.
inline uint64_t linearOfIndex(const uint32_t v[3], const uint32_t dims[3]) {
  return v[0] + uint64_t(dims[0]) * (v[1] + uint64_t(dims[1]) * v[2]);
}

/// Names of the generated entry points (the host functions JIT code calls: host_callbacks.h).
inline constexpr const char *kThreadEntry = "cutwin.sim.thread";
inline constexpr const char *kBlockEntry = "cutwin.sim.block";
inline constexpr const char *kRegionsEntry = "cutwin.sim.regions";

} // namespace cutwin::sim
