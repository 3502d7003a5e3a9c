#include "runtime/launch_tracker.h"

#include "runtime/kernel_error.h"

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

} // namespace

LaunchTracker::LaunchTracker(Backend &b) : b_(b) {}

LaunchTracker::~LaunchTracker() {
  if (records_)
    b_.memory().release(records_);
}

ir::ErrorRecord *LaunchTracker::acquire(std::shared_ptr<const ir::KernelInfo> info) {
  if (pending_.size() == kSlots)
    check();
  std::lock_guard<std::mutex> lock(mu_);
  if (!records_) {
    records_ = static_cast<ir::ErrorRecord *>(b_.memory().allocate(kSlots * sizeof(ir::ErrorRecord)));
    b_.memory().fill(records_, 0, kSlots * sizeof(ir::ErrorRecord));
  }
  pending_.push_back(std::move(info));
  return records_ + (pending_.size() - 1);
}

void LaunchTracker::forget(ir::ErrorRecord *record) { b_.memory().fill(record, 0, sizeof(ir::ErrorRecord)); }

void LaunchTracker::check() {
  std::vector<std::shared_ptr<const ir::KernelInfo>> launched;
  {
    std::lock_guard<std::mutex> lock(mu_);
    launched.swap(pending_);
  }
  try {
    b_.streams().synchronize();
  } catch (const DeviceError &e) {
    // An asynchronous fault: name the kernels that were in flight.
    std::string names;
    for (auto &info : launched)
      if (names.find("'" + info->name + "'") == std::string::npos)
        names += (names.empty() ? "'" : ", '") + info->name + "'";
    throw DeviceError(std::string(e.what()) + (names.empty() ? ""
                                                             : "; kernels launched since the last "
                                                               "synchronisation: " +
                                                                   names));
  }
  // On a GPU reading the records back costs a copy and a clear (two transfers): skipped
  // when no kernel since the last check could have written one.
  if (!b_.capabilities().hostAddressableMemory &&
      std::none_of(launched.begin(), launched.end(),
                   [](const auto &info) { return mayWriteRecordOnGpu(*info); }))
    return;
  std::vector<ir::ErrorRecord> host(launched.size());
  b_.memory().copyToHost(host.data(), records_, host.size() * sizeof(ir::ErrorRecord));
  b_.memory().fill(records_, 0, host.size() * sizeof(ir::ErrorRecord));
  for (size_t i = 0; i < host.size(); ++i)
    if (host[i].flag != 0)
      throwKernelError(host[i], *launched[i]);
}

} // namespace cutwin::rt
