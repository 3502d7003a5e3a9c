#include "backend_sim/device_arena.h"

#include "backend_sim/guard_pages.h"

#include "cutwin/errors.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace cutwin::sim {

DeviceArena::DeviceArena(size_t maxRegions)
    : page_(size_t(sysconf(_SC_PAGESIZE))), maxRegions_(std::max<size_t>(maxRegions, 1)) {}

size_t DeviceArena::defaultMaxRegions() { return size_t(std::max(mappingLimit(), 12L)) / 4 / 3; }

size_t DeviceArena::mappedRegions() {
  std::lock_guard<std::mutex> lock(mu_);
  return mapped_;
}

std::pair<char *, size_t> DeviceArena::pagesOf(void *p) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(p);
  if (it == live_.end())
    return {nullptr, 0};
  return {it->second.base + page_, it->second.span};
}

DeviceArena::~DeviceArena() {
  for (auto &[p, r] : live_)
    unmap(r);
  for (const Region &r : pending_)
    unmap(r);
  for (void *p : heap_)
    std::free(p);
  for (auto &[span, bases] : released_)
    for (char *base : bases)
      unmap({base, span});
}

void DeviceArena::unmap(const Region &r) {
  munmap(r.base, r.span + 2 * page_);
  --mapped_;
}

void *DeviceArena::allocate(size_t bytes) {
  bytes = std::max<size_t>(bytes, 1);
  size_t span = (bytes + page_ - 1) / page_ * page_;
  size_t used = (bytes + 255) / 256 * 256; // the allocation ends within 255 bytes of its guard
  // Without a mapping of its own (the process has as many as vm.max_map_count allows) an
  // allocation comes from the heap, unguarded, rather than failing.
  auto fromHeap = [&] {
    void *p = std::aligned_alloc(256, used);
    if (!p)
      throw DeviceError("simulator: out of memory allocating " + std::to_string(bytes) + " bytes");
    std::memset(p, 0, used);
    std::lock_guard<std::mutex> lock(mu_);
    heap_.insert(p);
    return p;
  };
  Region r{nullptr, span};
  bool guarded = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = released_.find(span);
    for (size_t i = pending_.size(); i-- > 0;)
      if (pending_[i].span == span) { // no kernel ran since its release
        r = pending_[i];
        pending_.erase(pending_.begin() + std::ptrdiff_t(i));
        break;
      }
    if (!r.base && it != released_.end() && it->second.size() > kReuseAfter) {
      guarded = true;
      r.base = it->second.front();
      it->second.pop_front();
      if (it->second.empty())
        released_.erase(it);
      --releasedRegions_;
      releasedBytes_ -= span;
    }
  }
  auto unmapAndUseHeap = [&] {
    {
      std::lock_guard<std::mutex> lock(mu_);
      unmap(r);
    }
    return fromHeap();
  };
  if (guarded && !removeGuard(r.base + page_, span))
    return unmapAndUseHeap();
  if (!r.base) {
    bool full = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      while (mapped_ >= maxRegions_ && evictReleased()) {
      }
      full = mapped_ >= maxRegions_; // every region is in use
      if (!full)
        ++mapped_; // counted before the call, so that concurrent allocations stay within bounds
    }
    if (full)
      return fromHeap();
    void *p = mmap(nullptr, span + 2 * page_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        --mapped_;
      }
      return fromHeap();
    }
    r.base = static_cast<char *>(p);
    if (!installGuard(r.base, page_) || !installGuard(r.base + page_ + span, page_))
      return unmapAndUseHeap();
  }
  char *user = r.base + page_ + span - used;
  std::lock_guard<std::mutex> lock(mu_);
  live_.emplace(user, r);
  return user;
}

void DeviceArena::release(void *p) {
  std::lock_guard<std::mutex> lock(mu_);
  if (heap_.erase(p)) {
    std::free(p);
    return;
  }
  auto it = live_.find(p);
  if (it == live_.end())
    throw DeviceError("simulator: releasing memory that is not a live device allocation");
  pending_.push_back(it->second);
  live_.erase(it);
  if (pending_.size() > kPendingRegions) { // many releases and no launch: guard the oldest now
    quarantine(pending_.front());
    pending_.erase(pending_.begin());
  }
}

void DeviceArena::guardReleased() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Region &r : pending_)
    quarantine(r);
  pending_.clear();
}

void DeviceArena::quarantine(const Region &r) {
  if (!installGuard(r.base + page_, r.span)) { // cannot guard it: give it back instead
    unmap(r);
    return;
  }
  released_[r.span].push_back(r.base);
  ++releasedRegions_;
  releasedBytes_ += r.span;
  while (releasedBytes_ > kKeepBytes || releasedRegions_ > kKeepRegions)
    evictReleased();
}

bool DeviceArena::evictReleased() {
  if (released_.empty())
    return false;
  auto largest = std::prev(released_.end()); // the largest span goes first
  unmap({largest->second.front(), largest->first});
  releasedBytes_ -= largest->first;
  --releasedRegions_;
  largest->second.pop_front();
  if (largest->second.empty())
    released_.erase(largest);
  return true;
}

} // namespace cutwin::sim
