#include "backend_sim/watchpoints.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

namespace cutwin::sim {

namespace {

struct Watch {
  const uint8_t *address = nullptr;
  size_t size = 0;
  std::optional<Dim> tid, ctaid;
  bool launchScoped = false;
  std::vector<uint8_t> bytes; ///< as last seen
};

struct Watches {
  std::mutex mutex;
  int nextId = 1;
  std::map<int, Watch> list;
  void rearm() { setArmed(kArmedWatches, !list.empty()); }
};
Watches &watches() {
  static Watches w;
  return w;
}

} // namespace

int addWatch(void *address, size_t size, std::optional<Dim> tid, std::optional<Dim> ctaid,
             bool launchScoped) {
  Watches &w = watches();
  std::lock_guard<std::mutex> lock(w.mutex);
  Watch watch{static_cast<const uint8_t *>(address), size, tid, ctaid, launchScoped, {}};
  watch.bytes.assign(watch.address, watch.address + size);
  int id = w.nextId++;
  w.list[id] = std::move(watch);
  w.rearm();
  return id;
}

void removeWatch(int id) {
  Watches &w = watches();
  std::lock_guard<std::mutex> lock(w.mutex);
  w.list.erase(id);
  w.rearm();
}

void clearWatches() {
  Watches &w = watches();
  std::lock_guard<std::mutex> lock(w.mutex);
  w.list.clear();
  w.rearm();
}

std::vector<int> watchIds() {
  Watches &w = watches();
  std::lock_guard<std::mutex> lock(w.mutex);
  std::vector<int> ids;
  for (const auto &[id, watch] : w.list)
    ids.push_back(id);
  return ids;
}

std::optional<WatchHit> watchedStore(const ThreadContext &tc, const void *address, uint64_t size) {
  Watches &w = watches();
  std::lock_guard<std::mutex> lock(w.mutex);
  auto *lo = static_cast<const uint8_t *>(address);
  for (auto &[id, watch] : w.list) {
    if (lo >= watch.address + watch.size || lo + size <= watch.address)
      continue;
    if (std::memcmp(watch.address, watch.bytes.data(), watch.size) == 0)
      continue; // stored the value it had
    WatchHit hit{id, watch.bytes, std::vector<uint8_t>(watch.address, watch.address + watch.size)};
    watch.bytes = hit.after;
    if (watch.tid && !std::equal(tc.tid, tc.tid + 3, watch.tid->begin()))
      continue; // another thread's change: remembered, not stopped at
    if (watch.ctaid && !std::equal(tc.ctaid, tc.ctaid + 3, watch.ctaid->begin()))
      continue;
    return hit;
  }
  return std::nullopt;
}

void beginLaunchWatches() {
  Watches &w = watches();
  std::lock_guard<std::mutex> lock(w.mutex);
  for (auto &[id, watch] : w.list)
    watch.bytes.assign(watch.address, watch.address + watch.size);
}

void endLaunchWatches() {
  Watches &w = watches();
  std::lock_guard<std::mutex> lock(w.mutex);
  std::erase_if(w.list, [](const auto &kv) { return kv.second.launchScoped; });
  w.rearm();
}

} // namespace cutwin::sim
