/// Step sim-sanitize (kernels compiled with `sanitize=`, docs/sanitizers.md): before each
/// access a kernel makes to memory that threads may share or that may be unwritten (array
/// elements in global, shared and local memory, atomics, copies), a call telling the
/// simulator's sanitizer (sanitizer.h) the address, size, kind, the memory the address
/// space says it is in, the access's site and the value a store writes; after the
/// allocation of each local array (init checks), a call saying its bytes are unwritten.
#pragma once

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

/// Instruments every kernel function (those the context parameter was given) for `checks`
/// (ir::SanitizeCheck bits); returns the sites, indexed by the calls' site operands.
std::vector<AccessSite> instrumentAccessesForSanitizer(llvm::Module &m, unsigned checks);

} // namespace cutwin::sim
