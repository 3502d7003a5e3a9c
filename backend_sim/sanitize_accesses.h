/// Step sim-sanitize (kernels compiled with `sanitize=`, docs/sanitizers.md): before each
/// access a kernel makes to memory that threads may share or that may be unwritten (array
/// elements in global, shared and local memory, atomics, copies), a call telling the
/// simulator's sanitizer (sanitizer.h) the address, size, kind, the memory the address
/// space says it is in, the access's site and the value a store writes; after the
/// allocation of each local array (init checks), a call saying its bytes are unwritten.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace cutwin::sim {

// What an access does: bits of the `access` word the instrumentation passes.
inline constexpr uint32_t kAccessRead = 1;
inline constexpr uint32_t kAccessWrite = 2;
inline constexpr uint32_t kAccessAtomic = 4;     ///< an atomic operation: it races with plain accesses only
inline constexpr uint32_t kAccessValueKnown = 8; ///< a store of at most 8 bytes: `value` holds them
inline constexpr uint32_t kAccessCopy =
    16; ///< a copy's source: race-checked, not checked for unwritten bytes
inline constexpr uint32_t kAccessFence = 32; ///< a memory fence (no address)
/// Where an access goes, as its address space tells (bits 8-9 of the `access` word).
enum class AccessSpace : uint32_t { Unknown = 0, Global = 1, Shared = 2, Local = 3 };
inline constexpr uint32_t kAccessSpaceShift = 8;

/// Where an instrumented access is in the source (the innermost function, after inlining).
struct AccessSite {
  std::string file, function;
  uint32_t line = 0, col = 0;
};

/// A `cuda.shared.array` of the kernel: where sim-lower put it in the block's shared memory
/// (line 0: an array of the compiler's own, such as syncthreads_count()'s counter).
struct SharedArrayInfo {
  uint64_t offset = 0, bytes = 0, itemSize = 1;
  uint32_t line = 0;
  std::vector<uint64_t> dims;
};

/// What the inline check of an aligned 4-byte shared-memory access reads (the block's
/// SanitizerBlock keeps it current; ThreadContext::sanitizer points at it). `cells` mirrors
/// the race cells of shared memory, 4 words per 4 bytes: the cell's epoch, then the thread
/// (its linear id in the grid + 1; 0 none, kPartialAccess for an access of fewer bytes) of
/// its write and of its two reads. `written`: per 4 bytes, the block's first epoch once all
/// of them were written. An access needs the sanitizer's call only when the words say it may
/// race, may read unwritten bytes or is not yet recorded.
struct SharedFastPath {
  const uint32_t *cells = nullptr;
  const uint32_t *written = nullptr;
  uint32_t epoch = 0;       ///< the block's barrier epoch
  uint32_t blockStart = 0;  ///< its first epoch
  uint32_t firstThread = 0; ///< the linear id in the grid of the block's thread (0,0,0), + 1
  uint32_t granules = 0;    ///< 4-byte words of shared memory the arrays cover
};
inline constexpr uint32_t kPartialAccess = 0xffffffffu;
static_assert(offsetof(SharedFastPath, cells) == 0 && offsetof(SharedFastPath, written) == 8 &&
              offsetof(SharedFastPath, epoch) == 16 && offsetof(SharedFastPath, blockStart) == 20 &&
              offsetof(SharedFastPath, firstThread) == 24 && offsetof(SharedFastPath, granules) == 28);

/// Instruments every kernel function (those the context parameter was given) for `checks`
/// (ir::SanitizeCheck bits); returns the sites, indexed by the calls' site operands.
std::vector<AccessSite> instrumentAccessesForSanitizer(llvm::Module &m, unsigned checks);

} // namespace cutwin::sim
