#include "backend_sim/memory_shadow.h"

#include "backend_sim/sanitizer.h"

#include <sys/mman.h>

namespace cutwin::sim {

MemoryShadow::Allocation::~Allocation() {
  if (words)
    munmap(words, wordBytes);
  if (cells)
    munmap(cells, cellBytes);
}

void MemoryShadow::allocated(const void *p, size_t bytes) {
  auto a = std::make_unique<Allocation>();
  a->base = reinterpret_cast<uintptr_t>(p);
  a->bytes = bytes;
  a->written.reset(new std::atomic<uint64_t>[(bytes + 63) / 64]());
  std::unique_lock<std::shared_mutex> lock(mu_);
  a->generation = generation_.load(std::memory_order_relaxed);
  allocations_[a->base] = std::move(a);
}

void MemoryShadow::released(const void *p) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto it = allocations_.find(reinterpret_cast<uintptr_t>(p));
  if (it == allocations_.end())
    return;
  if (launches_) // (a launch stopped by a debugger, or another host thread's)
    released_.push_back(std::move(it->second));
  allocations_.erase(it);
  releases_.fetch_add(1, std::memory_order_release);
}

void MemoryShadow::launchBegins() {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (launches_++ == 0 && stamps_.load(std::memory_order_relaxed) > kStampLimit / 2) {
    // Half the stamps are spent: clear every word (zero: stale), start them again.
    for (auto &[base, a] : allocations_)
      if (a->words)
        madvise(a->words, a->wordBytes, MADV_DONTNEED);
    stamps_.store(0, std::memory_order_relaxed);
  }
}

void MemoryShadow::launchEnds() {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (--launches_ == 0)
    released_.clear();
}

MemoryShadow::Allocation *MemoryShadow::find(const void *p) {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return findLocked(reinterpret_cast<uintptr_t>(p));
}

MemoryShadow::Allocation *MemoryShadow::findLocked(uintptr_t at) {
  auto it = allocations_.upper_bound(at);
  if (it == allocations_.begin())
    return nullptr;
  --it;
  Allocation &a = *it->second;
  return at < a.base + a.bytes ? &a : nullptr;
}

namespace {
/// The bitmap words that hold bits [from, end), each with the mask of those bits: f(word,
/// mask) for each, in order, while it returns true. Whether it always did.
template <class F> bool forEachWord(size_t from, size_t end, F f) {
  for (size_t i = from; i < end;) {
    size_t bit = i % 64, take = std::min<size_t>(64 - bit, end - i);
    uint64_t mask = take == 64 ? ~uint64_t(0) : ((uint64_t(1) << take) - 1) << bit;
    if (!f(i / 64, mask))
      return false;
    i += take;
  }
  return true;
}
} // namespace

void MemoryShadow::markWritten(Allocation &a, size_t from, size_t n) {
  if (!a.written)
    return;
  forEachWord(from, std::min(from + n, a.bytes), [&](size_t w, uint64_t mask) {
    if ((a.written[w].load(std::memory_order_relaxed) & mask) != mask) // (most stores write written bytes)
      a.written[w].fetch_or(mask, std::memory_order_relaxed);
    return true;
  });
}

void MemoryShadow::written(const void *p, size_t n) {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto at = reinterpret_cast<uintptr_t>(p);
  for (size_t done = 0; done < n;) { // (a copy may span allocations only where they touch)
    Allocation *a = findLocked(at + done);
    if (!a)
      return;
    size_t from = at + done - a->base, take = std::min(n - done, a->bytes - from);
    markWritten(*a, from, take);
    done += take;
  }
}

bool MemoryShadow::isWritten(const Allocation &a, const void *p, size_t n) const {
  if (!a.written || a.generation < generation_.load(std::memory_order_relaxed))
    return true;
  size_t from = reinterpret_cast<uintptr_t>(p) - a.base;
  return forEachWord(from, std::min(from + n, a.bytes), [&](size_t w, uint64_t mask) {
    return (a.written[w].load(std::memory_order_relaxed) & mask) == mask;
  });
}

bool MemoryShadow::raceState(Allocation &a) {
  std::call_once(a.raceStateMade, [&] {
    // Zero pages until touched: a kernel that touches a few elements of a large array pays
    // for those only.
    // (The words get a spare one: an 8-byte access's inline check reads two.)
    size_t page = 4096, count = (a.bytes + 3) / 4;
    auto map = [&](size_t &bytes, size_t each, size_t n) -> void * {
      bytes = (n * each + page - 1) / page * page;
      void *m =
          mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      return m == MAP_FAILED ? nullptr : m;
    };
    void *words = map(a.wordBytes, sizeof(uint64_t), count + 1);
    void *cells = map(a.cellBytes, sizeof(RaceCell), count);
    if (!words || !cells) {
      if (words)
        munmap(words, a.wordBytes);
      if (cells)
        munmap(cells, a.cellBytes);
      return;
    }
    a.words = static_cast<std::atomic<uint64_t> *>(words);
    a.cells = static_cast<RaceCell *>(cells);
  });
  return a.cells != nullptr;
}

} // namespace cutwin::sim
