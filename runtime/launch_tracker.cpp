#include "runtime/launch_tracker.h"

#include "runtime/kernel_error.h"

#include "cutwin/errors.h"

#include <algorithm>
#include <string>

namespace cutwin::rt {

namespace {

/// Whether a GPU kernel can write its error record: it has a site that raises (bounds
/// check, assert, raise); barriers report nothing there. (On the simulator the runtime
/// also records faults and barrier errors of any kernel.)
bool mayWriteRecordOnGpu(const ir::KernelInfo &info) {
  for (const ir::Site &s : info.sites)
    if (s.what != "barrier" && s.what != "grid barrier")
      return true;
  return false;
}

/// Calls fn(index, count) for each run of consecutive slots in `bySlot` (sorted by slot).
template <typename Launches, typename Fn> void forEachRun(const Launches &bySlot, Fn fn) {
  for (size_t i = 0; i < bySlot.size();) {
    size_t j = i + 1;
    while (j < bySlot.size() && bySlot[j].slot == bySlot[j - 1].slot + 1)
      ++j;
    fn(i, j - i);
    i = j;
  }
}

} // namespace

LaunchTracker::LaunchTracker(Backend &b) : b_(b) {}

LaunchTracker::~LaunchTracker() {
  if (records_)
    b_.memory().release(records_);
}

ir::ErrorRecord *LaunchTracker::acquire(std::shared_ptr<const ir::KernelInfo> info) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!records_) {
    records_ = static_cast<ir::ErrorRecord *>(b_.memory().allocate(kSlots * sizeof(ir::ErrorRecord)));
    b_.memory().fill(records_, 0, kSlots * sizeof(ir::ErrorRecord));
    for (uint32_t s = kSlots; s-- > 0;)
      free_.push_back(s);
  }
  if (free_.empty()) {
    lock.unlock();
    check(); // every submitted launch's slot comes free
    lock.lock();
    if (free_.empty())
      throw LaunchError("more than " + std::to_string(kSlots) +
                        " launches are being submitted at once from this process's threads");
  }
  uint32_t slot = free_.back();
  free_.pop_back();
  launches_.push_back({slot, std::move(info), std::this_thread::get_id(), false});
  return records_ + slot;
}

void LaunchTracker::submitted(ir::ErrorRecord *record) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Launch &l : launches_)
    if (records_ + l.slot == record)
      l.submitted = true;
}

void LaunchTracker::forget(ir::ErrorRecord *record) {
  b_.memory().fill(record, 0, sizeof(ir::ErrorRecord));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(launches_.begin(), launches_.end(),
                         [&](const Launch &l) { return records_ + l.slot == record; });
  if (it != launches_.end()) {
    free_.push_back(it->slot);
    launches_.erase(it);
  }
}

void LaunchTracker::check() {
  // One check at a time: a check that took another thread's launch must have filed its
  // fault before that thread's own check looks for it.
  std::lock_guard<std::mutex> checking(checking_);
  std::vector<Launch> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto firstPending = std::stable_partition(launches_.begin(), launches_.end(),
                                              [](const Launch &l) { return l.submitted; });
    done.assign(std::make_move_iterator(launches_.begin()), std::make_move_iterator(firstPending));
    launches_.erase(launches_.begin(), firstPending);
  }
  try {
    b_.streams().synchronize();
  } catch (const Interrupted &) {
    // Ctrl-C while the GPU ran them: they are still in flight, for the next check.
    std::lock_guard<std::mutex> lock(mu_);
    launches_.insert(launches_.begin(), std::make_move_iterator(done.begin()),
                     std::make_move_iterator(done.end()));
    throw;
  } catch (const DeviceError &e) {
    // An asynchronous fault: name the kernels that were in flight.
    std::string names;
    for (auto &l : done)
      if (names.find("'" + l.info->name + "'") == std::string::npos)
        names += (names.empty() ? "'" : ", '") + l.info->name + "'";
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto &l : done)
        free_.push_back(l.slot);
    }
    throw DeviceError(std::string(e.what()) + (names.empty() ? ""
                                                             : "; kernels launched since the last "
                                                               "synchronisation: " +
                                                                   names));
  }
  collect(done);
  std::unique_lock<std::mutex> lock(mu_);
  auto mine = faults_.find(std::this_thread::get_id());
  if (mine == faults_.end())
    return;
  Fault f = std::move(mine->second);
  faults_.erase(mine);
  lock.unlock();
  throwKernelError(f.record, *f.info);
}

void LaunchTracker::collect(std::vector<Launch> &done) {
  // On a GPU reading the records back costs a copy and a clear (two transfers): skipped
  // when no kernel since the last check could have written one.
  bool read =
      b_.capabilities().hostAddressableMemory ||
      std::any_of(done.begin(), done.end(), [](const Launch &l) { return mayWriteRecordOnGpu(*l.info); });
  std::vector<Launch> bySlot = done;
  std::sort(bySlot.begin(), bySlot.end(), [](const Launch &a, const Launch &b) { return a.slot < b.slot; });
  std::vector<ir::ErrorRecord> host(read ? bySlot.size() : 0);
  if (read)
    forEachRun(bySlot, [&](size_t i, size_t count) {
      b_.memory().copyToHost(&host[i], records_ + bySlot[i].slot, count * sizeof(ir::ErrorRecord));
      b_.memory().fill(records_ + bySlot[i].slot, 0, count * sizeof(ir::ErrorRecord));
    });
  auto recordOf = [&](uint32_t slot) -> const ir::ErrorRecord & {
    auto it = std::lower_bound(bySlot.begin(), bySlot.end(), slot,
                               [](const Launch &l, uint32_t s) { return l.slot < s; });
    return host[size_t(it - bySlot.begin())];
  };
  std::lock_guard<std::mutex> lock(mu_);
  for (const Launch &l : done) { // in launch order: a thread's first fault wins
    free_.push_back(l.slot);
    if (read && recordOf(l.slot).flag != 0 && !faults_.count(l.owner))
      faults_.emplace(l.owner, Fault{recordOf(l.slot), l.info});
  }
}

} // namespace cutwin::rt
