/// What the sanitizer knows of the simulated device's memory (docs/sanitizers.md): for each
/// allocation, which bytes something has written (host copies, memsets and kernel stores
/// count), so that a kernel reading bytes of a `device_array` nothing wrote is reported; and
/// the compact race words and race cells of global memory (sanitize_accesses.h,
/// sanitizer.h), made when a sanitized kernel first touches the allocation. A launch of a
/// kernel compiled without init checks may write anything: after it every allocation made
/// so far counts as written.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace cutwin::sim {

struct RaceCell;

class MemoryShadow {
public:
  /// One allocation of device memory.
  struct Allocation {
    uintptr_t base = 0;
    size_t bytes = 0;
    /// Which bytes were written: one bit per byte (null: all, or untracked).
    std::unique_ptr<std::atomic<uint64_t>[]> written;
    uint64_t generation = 0; ///< allocations older than the shadow's generation count as written
    std::once_flag raceStateMade;
    /// Mapped on first use (zero pages until touched): a word and a cell per 4 bytes; the
    /// inline checks read and update the words, the sanitizer keeps the cells where they do not.
    std::atomic<uint64_t> *words = nullptr;
    RaceCell *cells = nullptr;
    size_t wordBytes = 0, cellBytes = 0;
    ~Allocation();
  };

  MemoryShadow() = default;
  MemoryShadow(const MemoryShadow &) = delete;
  MemoryShadow &operator=(const MemoryShadow &) = delete;

  /// A fresh allocation: nothing written yet.
  void allocated(const void *p, size_t bytes);
  void released(const void *p);
  /// Bytes [p, p + n) were written (a host copy, a memset, a kernel's store).
  void written(const void *p, size_t n);
  /// Allocations released so far (a remembered allocation may be stale once it changes).
  uint64_t releases() const { return releases_.load(std::memory_order_acquire); }
  /// A sanitized launch begins / ends. A released allocation's shadow lives on until no
  /// sanitized launch runs (a check may still hold it).
  void launchBegins();
  void launchEnds();
  /// A kernel without init checks ran: whatever exists now counts as written.
  void forgetUnwritten() { generation_.fetch_add(1, std::memory_order_relaxed); }

  /// The allocation holding `p`, if any. A kernel's thread uses it while it checks one
  /// access: the host releases an allocation only between launches or while the launch is
  /// stopped (a debugger's handler), never during a check.
  Allocation *find(const void *p);
  /// A kernel wrote [p, p + n) inside `a` (no lock: a launch holds `reading()`).
  void writtenIn(Allocation &a, const void *p, size_t n) {
    markWritten(a, reinterpret_cast<uintptr_t>(p) - a.base, n);
  }
  /// `a`'s written-bytes bitmap, one bit per byte; null where every byte counts as written.
  const uint64_t *writtenBits(const Allocation &a) const {
    return a.written && a.generation >= generation_.load(std::memory_order_relaxed)
               ? reinterpret_cast<const uint64_t *>(a.written.get())
               : nullptr;
  }
  /// Whether all of [p, p + n) inside `a` was written.
  bool isWritten(const Allocation &a, const void *p, size_t n) const;
  /// Makes the allocation's race words and cells (on first use); false where the system
  /// has no memory for them (races in the allocation go unchecked).
  bool raceState(Allocation &a);

  /// A fresh tag for a stretch of a launch that no ordering crosses (a launch, or the time
  /// between two grid syncs): race cells of other tags are stale.
  uint32_t nextInterval() { return intervals_.fetch_add(1, std::memory_order_relaxed) + 1; }
  /// `n` fresh stamps (the first; the others follow it), 0 when none are left: the stamps of
  /// compact words (a block's barrier epochs, and the start of each stretch of a launch:
  /// words of older stamps are stale) stay below 2^24. Stamps only grow; launchBegins()
  /// clears every word and starts them again once half are spent and no launch runs.
  uint32_t nextStamps(uint32_t n) {
    uint32_t s = stamps_.load(std::memory_order_relaxed);
    do
      if (s + n >= kStampLimit)
        return 0;
    while (!stamps_.compare_exchange_weak(s, s + n, std::memory_order_relaxed));
    return s + 1;
  }
  static constexpr uint32_t kStampLimit = uint32_t(1) << 24;

  /// A lock held for the few instructions of one cell's check (a checking thread never waits
  /// for anything else while it holds one).
  class alignas(64) SpinLock { // (one per cache line: the cores take different stripes at once)
  public:
    void lock() {
      while (flag_.test_and_set(std::memory_order_acquire))
        while (flag_.test(std::memory_order_relaxed))
#if defined(__x86_64__)
          __builtin_ia32_pause();
#else
          ;
#endif
    }
    void unlock() { flag_.clear(std::memory_order_release); }

  private:
    std::atomic_flag flag_;
  };

  /// The lock guarding the race word and cell at `index` of `a` (blocks run in parallel).
  SpinLock &stripe(const Allocation &a, size_t index) { return stripes_[((a.base >> 8) + index) % kStripes]; }

private:
  void markWritten(Allocation &a, size_t from, size_t n);
  Allocation *findLocked(uintptr_t at); ///< under mu_
  static constexpr size_t kStripes = 1024;
  std::shared_mutex mu_;
  std::map<uintptr_t, std::unique_ptr<Allocation>> allocations_;
  std::atomic<uint64_t> generation_{1};
  std::atomic<uint64_t> releases_{0}; ///< allocations released so far: a thread's cached one may be stale
  std::atomic<uint32_t> stamps_{0}, intervals_{0};
  unsigned launches_ = 0;                             ///< sanitized launches running (under mu_)
  std::vector<std::unique_ptr<Allocation>> released_; ///< released while one ran (under mu_)
  SpinLock stripes_[kStripes];
};

} // namespace cutwin::sim
