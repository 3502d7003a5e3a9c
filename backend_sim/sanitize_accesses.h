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
/// The store was made before the call (an inline check's compare-and-swap failed after it):
/// kAccessUnchanged says whether memory held its bits before.
inline constexpr uint32_t kAccessAfterStore = 64;
inline constexpr uint32_t kAccessUnchanged = 128;
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

/// The allocation a global-memory access site last touched, as the inline check of its
/// aligned 4- and 8-byte plain accesses reads it (SanitizerFastPath::sites). A site that
/// touched none yet, or memory the sanitizer does not track, has no granules: it calls.
struct GlobalSite {
  uint64_t base = 0;                 ///< the allocation's first byte
  uint64_t *words = nullptr;         ///< its compact race words, one per 4 bytes (kWord* below)
  const uint64_t *written = nullptr; ///< its written-bytes bitmap; null: every byte counts as written
  /// The 4-byte granules an aligned access of 4 bytes, of 8 bytes, may begin at (all of it
  /// inside): the address's offset rotated right by 2 is below it exactly where the access is
  /// aligned and inside (the rotation turns a misaligned offset's low bits into high ones).
  uint32_t granules4 = 0, granules8 = 0;
};
static_assert(sizeof(GlobalSite) == 32);

/// A compact race word, one per 4 bytes of global memory (per allocation) and of shared
/// memory (per block): while the accesses to the 4 bytes since they were last ordered (for
/// global memory, the interval: a launch, or the time between grid syncs; for shared
/// memory, the block's barrier epoch) are one thread's, or two threads' reads at one site,
/// all of one block in one barrier epoch, the word says so: the stamp (block and epoch:
/// SanitizerLaunch), the thread (its index in the block), how (read, write), the second
/// reader and the site (+ 1). The inline checks keep it (global memory: by compare-and-swap,
/// blocks run in parallel) where an access of the epoch's thread, a second reader or the
/// first access of the stretch needs nothing else, without a call. Any other access calls:
/// the sanitizer keeps the 4 bytes' accesses in a full race cell (sanitizer.h) and the word
/// says so (kWordFull). A word of an older stamp is empty. Stamps are below 2^24 (MemoryShadow).
inline constexpr uint64_t kWordStamp = 0xffffff;
inline constexpr unsigned kWordTidShift = 24; ///< the thread's index in its block, 10 bits
inline constexpr uint64_t kWordTid = 0x3ff;
inline constexpr uint64_t kWordRead = uint64_t(1) << 34;
inline constexpr uint64_t kWordWrite = uint64_t(1) << 35;
inline constexpr uint64_t kWordFull = uint64_t(1) << 36;
inline constexpr unsigned kWordReaderShift = 37;             ///< the second reader's index, 10 bits
inline constexpr uint64_t kWordTwoReads = uint64_t(1) << 47; ///< (with kWordRead alone)
inline constexpr unsigned kWordSiteShift = 48;               ///< site + 1, 16 bits
inline constexpr uint32_t kWordSites = (1u << 16) - 1;       ///< sites from here on never go in a word
/// The bits that say whose a word is: equal to (stamp | tid << kWordTidShift) when one thread's.
inline constexpr uint64_t kWordOwner = kWordStamp | (kWordTid << kWordTidShift) | kWordFull | kWordTwoReads;

/// What the inline checks read (ThreadContext::sanitizer; the block's SanitizerBlock keeps
/// it current): shared memory's words and written granules, the allocation each global
/// access site last touched, the block's stamp and the interval's first.
struct SanitizerFastPath {
  uint64_t *sharedWords = nullptr;   ///< a word per 4 bytes of the block's shared memory
  uint32_t *sharedWritten = nullptr; ///< per 4 bytes: `blockStart` once all of them were written
  uint32_t blockStart = 0;           ///< the block's first barrier epoch
  uint32_t granules = 0;             ///< 4-byte granules of shared memory
  GlobalSite *sites = nullptr;       ///< by access site
  uint32_t stamp = 0;                ///< the block's barrier epoch as words name it (0: none left)
  uint32_t intervalStart = 0;        ///< global words of older stamps are empty
  /// Bit w: the lanes of warp w always call (the warp has lane clocks, or one of them
  /// fenced: a compact word records neither).
  uint32_t callingWarps = 0;
  uint32_t unused = 0;
  uint64_t allWritten = ~uint64_t(0); ///< what the written check reads for an allocation without a bitmap
  uint64_t noWords[2] = {};           ///< what the words of a site without an allocation are
};
static_assert(offsetof(SanitizerFastPath, sharedWords) == 0 &&
              offsetof(SanitizerFastPath, sharedWritten) == 8 &&
              offsetof(SanitizerFastPath, blockStart) == 16 && offsetof(SanitizerFastPath, granules) == 20 &&
              offsetof(SanitizerFastPath, sites) == 24 && offsetof(SanitizerFastPath, stamp) == 32 &&
              offsetof(SanitizerFastPath, intervalStart) == 36 &&
              offsetof(SanitizerFastPath, callingWarps) == 40 &&
              offsetof(SanitizerFastPath, allWritten) == 48);

/// Instruments every kernel function (those the context parameter was given) for `checks`
/// (ir::SanitizeCheck bits); returns the sites, indexed by the calls' site operands.
std::vector<AccessSite> instrumentAccessesForSanitizer(llvm::Module &m, unsigned checks);

} // namespace cutwin::sim
