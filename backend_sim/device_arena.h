/// The simulator's device memory, apart from the host heap. Each allocation has pages of
/// its own with a guard page on either side, and ends as close to the guard above it as
/// its 256-byte alignment allows: a kernel that runs past an array's end (bounds checks
/// off) faults there, within 255 bytes, and is reported as an illegal address naming
/// kernel and thread, where a heap allocation would let it overwrite the host's data. A
/// released allocation's pages become guard pages themselves (their memory is returned)
/// before the next launch: a kernel still writing through a pointer to it faults the same
/// way. (Until a launch nothing can touch them: an allocation of the same size made before
/// it takes them over at no cost, as a GPU's caching allocator would; that keeps a launch
/// with host arrays, which allocates and releases each time, free of system calls.) Guarded
/// regions wait in a queue before their address range is used again or unmapped. The arena
/// maps a bounded number of regions, leaving most of the process's mappings
/// (vm.max_map_count) to the rest of it (the JIT, thread stacks, the host's allocator):
/// beyond, the oldest released regions are unmapped, and where none is left allocations
/// come from the heap, unguarded, rather than failing elsewhere later.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace cutwin::sim {

class DeviceArena {
public:
  /// `maxRegions`: regions mapped at once at most (live, released or guarded); the default
  /// takes a quarter of the mappings this process may have (each region may take three).
  explicit DeviceArena(size_t maxRegions = defaultMaxRegions());
  DeviceArena(const DeviceArena &) = delete;
  DeviceArena &operator=(const DeviceArena &) = delete;
  ~DeviceArena();

  /// `bytes` (at least 1) of memory aligned to 256 bytes, zeroed unless it is a region
  /// released since the last launch. Beyond `maxRegions`, or where the system refuses
  /// another mapping, it comes from the heap, unguarded; DeviceError if that fails too.
  void *allocate(size_t bytes);
  /// Returns an allocation of this arena; throws DeviceError for any other pointer.
  void release(void *p);
  /// Before a launch: the regions released since the last one become guard pages.
  void guardReleased();
  /// Regions mapped now (live, released or guarded); heap allocations are not counted.
  size_t mappedRegions();
  /// The pages a live allocation has to itself: {first page, bytes}; {nullptr, 0} for one
  /// from the heap.
  std::pair<char *, size_t> pagesOf(void *p);

  static size_t defaultMaxRegions();

private:
  struct Region {
    char *base = nullptr; ///< the mapping: a guard page, `span` bytes, a guard page
    size_t span = 0;      ///< usable bytes, whole pages
  };
  void unmap(const Region &r); ///< under mu_
  /// Guards `r` (released) and queues it; unmaps the oldest beyond the limits. Under mu_.
  void quarantine(const Region &r);
  /// Unmaps the oldest guarded region of the largest span; false if there is none. Under mu_.
  bool evictReleased();

  /// Released regions of a span are used again only after this many more of that span
  /// were released (a kernel writing through a stale pointer meanwhile faults).
  static constexpr size_t kReuseAfter = 16;
  /// Released regions kept mapped (guarded) at most: beyond, the oldest are unmapped.
  static constexpr size_t kKeepBytes = size_t(256) << 20, kKeepRegions = 4096;
  /// Released regions left unguarded until a launch at most (their memory stays in use).
  static constexpr size_t kPendingRegions = 64;

  size_t page_, maxRegions_;
  size_t mapped_ = 0; ///< regions mapped now
  std::mutex mu_;
  std::unordered_map<void *, Region> live_;       ///< by the pointer handed out
  std::vector<Region> pending_;                   ///< released since the last launch, not guarded
  std::unordered_set<void *> heap_;               ///< allocations the system could not map: from the heap
  std::map<size_t, std::deque<char *>> released_; ///< span -> bases, oldest first (guarded)
  size_t releasedBytes_ = 0, releasedRegions_ = 0;
};

} // namespace cutwin::sim
