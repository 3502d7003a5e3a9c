#include "frontend/ir/error_record.h"

#include "cutwin/errors.h"
#include "frontend/ir/kernel_ir.h"

#include <sstream>

namespace cutwin::ir {

namespace {
std::string siteText(const std::vector<Site> &sites, int64_t id) {
  if (id < 0 || size_t(id) >= sites.size())
    return "?";
  return sites[size_t(id)].file + ":" + std::to_string(sites[size_t(id)].loc.line);
}
std::string siteWhat(const std::vector<Site> &sites, int64_t id) {
  if (id < 0 || size_t(id) >= sites.size())
    return "?";
  return sites[size_t(id)].what;
}
} // namespace

std::string describeError(const ErrorRecord &rec, const std::vector<Site> &sites) {
  auto kind = KernelErrorKind(rec.kind);
  const Site *site = rec.site < sites.size() ? &sites[rec.site] : nullptr;
  std::string detail;
  switch (kind) {
  case KernelErrorKind::IndexOutOfBounds:
    if (rec.payload[1] < 0) // a tuple indexed at run time
      detail = "tuple index out of range: index " + std::to_string(rec.payload[0]) + " of a tuple of " +
               std::to_string(rec.payload[2]);
    else
      detail = "index " + std::to_string(rec.payload[0]) + " out of bounds for axis " +
               std::to_string(rec.payload[1]) + " with size " + std::to_string(rec.payload[2]);
    break;
  case KernelErrorKind::Assertion:
    detail = "AssertionError" + (site && !site->detail.empty() ? ": " + site->detail : std::string());
    break;
  case KernelErrorKind::Exception: detail = site ? site->detail : "exception"; break;
  case KernelErrorKind::BarrierDivergence:
    detail = "barrier divergence: " + std::to_string(rec.payload[0]) + " of the block's " +
             std::to_string(rec.payload[1]) +
             " running threads wait at this barrier, but this thread waits at " + "the barrier at " +
             siteText(sites, rec.payload[2]);
    break;
  case KernelErrorKind::IllegalAddress: {
    // x86-64 reports no address for one outside the address space (a general protection fault)
    std::ostringstream a;
    if (rec.payload[0] == 0)
      a << "illegal memory access outside the address space";
    else
      a << "illegal memory access at address 0x" << std::hex << uint64_t(rec.payload[0]);
    a << " (an index outside its array with bounds checks off?)";
    detail = a.str();
    break;
  }
  case KernelErrorKind::StackOverflow:
    detail = "stack overflow: the simulated thread used more than its " +
             std::to_string(rec.payload[0] / 1024) + " KiB stack";
    break;
  case KernelErrorKind::Deadlock:
    detail = "grid synchronisation can never complete: " + std::to_string(rec.payload[0]) + " of " +
             std::to_string(rec.payload[1]) +
             " blocks wait at this grid sync, but this thread's block exited without reaching it "
             "(on a GPU the launch would hang)";
    break;
  case KernelErrorKind::Interrupted:
  case KernelErrorKind::Timeout: {
    std::ostringstream m;
    if (KernelErrorKind(rec.kind) == KernelErrorKind::Interrupted)
      m << "interrupted (Ctrl-C)";
    else
      m << "the watchdog stopped the launch after " << double(rec.payload[1]) / 1000.0
        << " s (its time limit: the launch's timeout, or CUTWIN_SIM_TIMEOUT)";
    if (rec.payload[0] > 0)
      m << " in the loop at line " << rec.payload[0];
    detail = m.str();
    break;
  }
  case KernelErrorKind::Livelock: {
    std::ostringstream m;
    m << "livelock: " << rec.payload[1]
      << (rec.payload[1] == 1 ? " thread of the block spins" : " threads of the block spin")
      << " in the loop at line " << rec.payload[0] << " and no thread of the block made progress for "
      << double(rec.payload[2]) / 1000.0
      << " s (on a GPU the launch would hang; CUTWIN_SIM_SPIN_TIMEOUT sets the seconds waited)";
    detail = m.str();
    break;
  }
  case KernelErrorKind::DataRace: // (the sanitizer's report, which names both accesses, replaces these)
    detail = "data race at line " + std::to_string(rec.payload[0]);
    break;
  case KernelErrorKind::UninitializedRead:
    detail = "read of uninitialised memory at line " + std::to_string(rec.payload[0]);
    break;
  case KernelErrorKind::WarpDivergence: {
    std::ostringstream m;
    m << "warp operation with mask 0x" << std::hex << (uint64_t(rec.payload[0]) & 0xffffffffu) << std::dec;
    if (rec.payload[1] < 0) {
      m << ": this thread's lane (" << rec.payload[2] << ") is not in the mask";
    } else {
      m << " cannot complete: lane " << rec.payload[1] << " of the mask ";
      if (rec.payload[2] < 0)
        m << "never arrives";
      else
        m << "waits at the " << siteWhat(sites, rec.payload[2]) << " at " << siteText(sites, rec.payload[2]);
      m << " (on a GPU the warp would hang)";
    }
    detail = m.str();
    break;
  }
  case KernelErrorKind::None:
  case KernelErrorKind::Trap: break;
  }
  if (detail.empty()) // (also a kind no enumerator has: the record is device memory)
    detail = "kernel fault (kind " + std::to_string(rec.kind) + ")";
  return detail;
}

} // namespace cutwin::ir
