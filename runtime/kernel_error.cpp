#include "runtime/kernel_error.h"

#include <sstream>

namespace cutwin::rt {

namespace {
std::string triple(const uint32_t v[3]) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}

std::string siteText(const ir::KernelInfo &info, int64_t id) {
  if (id < 0 || size_t(id) >= info.sites.size())
    return "?";
  return info.sites[size_t(id)].file + ":" + std::to_string(info.sites[size_t(id)].loc.line);
}
std::string siteWhat(const ir::KernelInfo &info, int64_t id) {
  if (id < 0 || size_t(id) >= info.sites.size())
    return "?";
  return info.sites[size_t(id)].what;
}
} // namespace

void throwKernelError(const ir::ErrorRecord &rec, const ir::KernelInfo &info) {
  auto kind = KernelErrorKind(rec.kind);
  const ir::Site *site = rec.site < info.sites.size() ? &info.sites[rec.site] : nullptr;
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
    detail = "barrier divergence: " + std::to_string(rec.payload[0]) + " of " +
             std::to_string(rec.payload[1]) + " threads of the block wait at this barrier, but this thread " +
             (rec.payload[2] < 0 ? std::string("exited without reaching it")
                                 : "waits at the barrier at " + siteText(info, rec.payload[2]));
    break;
  case KernelErrorKind::IllegalAddress: {
    std::ostringstream a;
    a << "illegal memory access at address 0x" << std::hex << uint64_t(rec.payload[0])
      << " (an index outside its array with bounds checks off?)";
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
        m << "waits at the " << siteWhat(info, rec.payload[2]) << " at " << siteText(info, rec.payload[2]);
      m << " (on a GPU the warp would hang)";
    }
    detail = m.str();
    break;
  }
  default: detail = "kernel fault (kind " + std::to_string(rec.kind) + ")"; break;
  }
  SourceLoc loc = site ? site->loc : SourceLoc{};
  std::string fn = site ? site->function : info.name;
  std::string file = site ? site->file : info.file;
  std::ostringstream os;
  os << file;
  if (site)
    os << ":" << loc.line;
  os << " in " << fn;
  if (fn != info.name)
    os << " (called from kernel " << info.name << ")";
  os << ", thread " << triple(rec.thread) << " block " << triple(rec.block) << ": " << detail;
  throw KernelError(os.str(), kind, info.name, file, loc, {rec.thread[0], rec.thread[1], rec.thread[2]},
                    {rec.block[0], rec.block[1], rec.block[2]}, detail);
}

} // namespace cutwin::rt
