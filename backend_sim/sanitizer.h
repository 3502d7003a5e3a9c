/// The simulator's sanitizer (docs/sanitizers.md): data races and reads of unwritten memory,
/// judged by CUDA's ordering rules rather than by the order the simulator ran the threads.
///
/// Races. Each 4 bytes of shared memory (per block) and of global memory (per allocation)
/// has a cell: the last write and up to two reads of the current stretch, each with its
/// thread, site, bytes and the thread's clocks; and a compact word (sanitize_accesses.h)
/// that stands for the cell while one thread's accesses (or two reads) are all there is,
/// kept by the inline checks without a call. Two accesses race when different threads
/// made them, they overlap, at least one writes, not both are atomic, and nothing orders
/// them: a barrier of their block between them (each barrier starts an epoch; shared cells
/// of an older epoch are stale), a grid sync (which starts a new interval for every cell),
/// or, for lanes of one warp, a warp-synchronous operation of both with both in its mask
/// (vector clocks of the warp's 32 lanes, joined by syncwarp and every *_sync operation).
/// Writes of the value memory already holds are benign. A thread that fenced after its
/// access, read by a thread that fenced since, is taken as ordered (the threadfence +
/// atomic flag idiom).
///
/// Uninitialised reads. Shared memory is unwritten at each block's start, a local array
/// each time its function begins, a device allocation until something writes it
/// (memory_shadow.h): a read of unwritten bytes is reported.
///
/// The first finding ends the launch as a fault does (KernelErrorKind::DataRace or
/// UninitializedRead) with a report naming both accesses; blocks still run in parallel.
#pragma once

#include "backend_sim/memory_shadow.h"
#include "backend_sim/sanitize_accesses.h"
#include "backend_sim/thread_context.h"
#include "cutwin/errors.h"
#include "frontend/ir/abi.h"
#include "frontend/ir/error_record.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cutwin::sim {

/// One access as a race cell remembers it (20 bytes: a cell is read for every access).
struct AccessRecord {
  uint32_t thread = 0;    ///< linear id in the grid: block * threads per block + thread
  uint32_t site : 24 = 0; ///< access site + 1 (0: no access)
  uint32_t bytes : 4 = 0; ///< which of the cell's 4 bytes
  uint32_t write : 1 = 0;
  uint32_t atomic : 1 = 0;
  uint32_t valueKnown : 1 = 0; ///< a store whose bytes in the cell are the cell's `value`
  uint32_t epoch = 0;          ///< its block's barrier epoch then
  uint32_t clock = 0;          ///< the thread's own lane clock then
  uint16_t fences = 0;         ///< fences the thread had made before it
};

struct RaceCell {
  uint32_t tag = 0; ///< the epoch (shared) or interval (global) the records belong to
  AccessRecord write, read[2];
  uint32_t value = 0; ///< the cell's 4 bytes as the write left them, if known
  /// Empty from now on, of stretch `t` (a record with no site is none).
  void clear(uint32_t t) {
    tag = t;
    write.site = read[0].site = read[1].site = 0;
  }
};

/// The bits a store of at most 8 bytes writes.
struct StoreValue {
  uint64_t bits = 0;
  uint64_t offset = 0; ///< where it begins (bytes, in the same numbering as the cells')
  uint8_t size = 0;
  bool unchanged = false; ///< memory already held these bits
  /// The bytes it writes into the cell of 4 bytes from `g * 4`, in their places there.
  uint32_t inGranule(uint64_t g) const;
};

/// The block and barrier epoch each stamp a launch handed a block stands for (a compact
/// word names only the stamp and the thread's index in its block). Stamps index it
/// directly: pages of it are made as stamps reach them.
class StampTable {
public:
  StampTable() = default;
  ~StampTable();
  StampTable(const StampTable &) = delete;
  StampTable &operator=(const StampTable &) = delete;
  void set(uint32_t stamp, uint32_t block, uint32_t epoch);
  struct Entry {
    uint32_t block = 0, epoch = 0;
  };
  Entry at(uint32_t stamp) const;

private:
  static constexpr unsigned kChunkBits = 14;
  static constexpr size_t kChunks = MemoryShadow::kStampLimit >> kChunkBits;
  std::atomic<std::atomic<uint64_t> *> chunks_[kChunks] = {}; ///< entries: block << 32 | epoch
};

/// What a sanitized kernel tells the sanitizer, from its compilation.
struct SanitizerProgram {
  unsigned checks = 0; ///< ir::SanitizeCheck bits
  std::vector<AccessSite> sites;
  std::vector<SharedArrayInfo> sharedArrays;
  uint64_t staticSharedBytes = 0;
  /// The kernel calls foreign code (`link=`), whose writes the sanitizer does not see: no
  /// unwritten-read checks of global memory, and afterwards all of it counts as written.
  bool foreignCode = false;
  std::vector<std::string> argNames;
  ir::ArgLayout layout;
  std::vector<fe::Type> argTypes;
};

/// A finding: where the reporting access is and what happened.
struct SanitizerReport {
  AccessSite where;
  std::string detail;
};

/// A read of unwritten shared or global memory, held until the launch ends: if another
/// thread writes the element without waiting for it, it is a race (reported as one); if
/// not, it is reported.
struct UnwrittenRead {
  uint64_t block = 0;
  uint32_t tid[3] = {}, ctaid[3] = {};
  uint32_t site = 0;
  std::string detail;
};

/// One launch of a sanitized kernel.
class SanitizerLaunch {
public:
  SanitizerLaunch(const SanitizerProgram &program, MemoryShadow &memory, const uint32_t grid[3],
                  const uint32_t block[3], const void *args, unsigned seed);
  ~SanitizerLaunch();
  SanitizerLaunch(const SanitizerLaunch &) = delete;
  SanitizerLaunch &operator=(const SanitizerLaunch &) = delete;
  /// Every block waits at a grid sync: what came before is ordered before what follows.
  void gridSynced();
  /// After the launch: a read of unwritten shared or global memory that no race explained
  /// (a write by another thread the read did not wait for) is reported now, in `err`.
  void finish(ir::ErrorRecord *err);
  /// The first finding, if the launch ended with one.
  const std::optional<SanitizerReport> &report() const { return report_; }

  const SanitizerProgram &program;
  MemoryShadow &memory;

private:
  friend class SanitizerBlock;
  const uint64_t serial_;           ///< this launch among all (a block state's sites are a launch's)
  std::atomic<uint32_t> interval_;  ///< the current interval's tag (race cells of others are stale)
  std::atomic<uint32_t> wordStart_; ///< its first stamp (older words are stale); 0: no words (none left)
  StampTable stamps_;
  uint32_t block_[3], grid_[3];
  uint64_t threadsPerBlock_;
  const void *args_;
  unsigned seed_;
  std::mutex reportMu_;
  std::optional<SanitizerReport> report_;
  std::optional<UnwrittenRead> suspect_;
  std::mutex fenceMu_;
  std::unordered_map<uint64_t, uint32_t> fences_; ///< fences made, by thread (those that made any)
  std::atomic<bool> anyFence_{false};
};

/// The sanitizer's state of one block while it runs (reused from block to block).
class SanitizerBlock {
public:
  /// A block begins: its shared memory (`sharedBytes`, static and dynamic) is all unwritten.
  void begin(SanitizerLaunch &launch, const ThreadContext &base, uint64_t blockLinear, uint64_t sharedBytes);
  /// Every thread of the block passed a barrier.
  void barrier();
  /// What the inline checks read (ThreadContext::sanitizer).
  const SanitizerFastPath *fastPath() const { return &fast_; }
  /// The lanes `group` of the warp whose first thread is `first` completed a *_sync operation.
  void warpSynced(uint32_t first, uint32_t group);

  /// The checks of one access (the instrumentation's call); false with the error recorded
  /// when it races or reads unwritten memory.
  bool access(const ThreadContext &tc, const void *address, uint64_t size, uint32_t access, uint32_t site,
              uint64_t value);
  /// A local array of thread `tc` begins, unwritten.
  void localArray(const ThreadContext &tc, const void *address, uint64_t size, uint64_t itemSize);

private:
  struct LocalArray {
    uintptr_t base = 0;
    uint64_t itemSize = 1;
    std::vector<uint8_t> written; ///< per byte
    bool holds(uintptr_t p) const { return p >= base && p < base + written.size(); }
  };
  struct Me; // the accessing thread
  bool shared(const Me &me, uint64_t offset, uint64_t size, uint32_t access, uint32_t site,
              const StoreValue *stored);
  bool global(const Me &me, const void *address, uint64_t size, uint32_t access, uint32_t site,
              const StoreValue *stored);
  bool local(const Me &me, const void *address, uint64_t size, uint32_t access, uint32_t site);
  /// Checks and updates one cell; false after recording a race.
  bool cell(const Me &me, RaceCell &c, uint32_t tag, uint64_t g, uint8_t bytes, uint32_t access,
            uint32_t site, const StoreValue *stored, const void *at);
  /// The records a compact word stands for, in the cell (empty) of granule `g`, whose 4 bytes
  /// are at `at`; `late`: this call's store, made before it (kAccessAfterStore).
  void fromWord(RaceCell &c, uint64_t word, const void *at, const StoreValue *late, uint64_t g);
  /// A new barrier epoch's stamp (the block began, or passed a barrier).
  void newStamp();
  bool ordered(const AccessRecord &r, const Me &me);
  uint32_t fencesOf(uint64_t thread);
  bool raceFound(const Me &me, const AccessRecord &other, uint32_t access, uint32_t site, const void *at);
  /// `deferred`: the memory is shared by threads (a race may explain the read; decided when the
  /// launch ends, SanitizerLaunch::finish).
  bool unwrittenRead(const Me &me, const void *at, uint64_t size, uint32_t site, const char *why,
                     bool deferred);
  /// "shared memory, element [3] of the shared array of line 8" and the like.
  std::string whatIsAt(const void *at, uint32_t tid) const;
  void record(const Me &me, KernelErrorKind kind, const std::string &detail, uint32_t site);

  SanitizerLaunch *launch_ = nullptr;
  uint64_t blockLinear_ = 0;
  uint32_t threads_ = 0;
  const uint8_t *sharedBase_ = nullptr;
  uint64_t sharedBytes_ = 0, staticSharedBytes_ = 0;
  uint32_t epoch_ = 0;
  uint32_t epochs_ = 0; ///< epochs handed out by this block state (never reused: older cells are stale)
  std::vector<RaceCell> sharedCells_;
  std::vector<uint64_t> sharedWords_;     ///< SanitizerFastPath::sharedWords
  std::vector<uint32_t> writtenGranules_; ///< SanitizerFastPath::sharedWritten
  SanitizerFastPath fast_;
  uint64_t serial_ = 0;           ///< the launch `sites_` belong to
  std::vector<GlobalSite> sites_; ///< SanitizerFastPath::sites
  uint32_t stamp_ = 0;            ///< the block's barrier epoch as compact words name it
  static constexpr uint32_t kStampBatch = 64;
  uint32_t nextStamp_ = 0, lastStamp_ = 0; ///< the batch of stamps left: [next, last)
  uint64_t stampsOf_ = 0;                  ///< the launch the batch is of
  std::vector<uint32_t> localThreads_;     ///< the threads with local arrays in `locals_`
  std::vector<uint32_t> sharedWritten_;    ///< per byte: the epoch base of the block that wrote it
  uint32_t blockStart_ = 0;                ///< this block's first epoch
  std::vector<uint32_t> clocks_;           ///< per thread: its warp's 32 lane clocks as it knows them
  std::vector<uint8_t> warpClocks_;        ///< per warp: whether its clocks were made (at its first *_sync)
  std::vector<std::vector<LocalArray>> locals_;
  /// The allocations the last global accesses found, latest first (kernels touch few arrays).
  MemoryShadow::Allocation *lastAllocations_[4] = {};
  uint64_t lastReleases_ = 0; ///< MemoryShadow::releases() when they were found
};

} // namespace cutwin::sim
