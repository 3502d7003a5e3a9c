#include "runtime/kernel_error.h"

#include "frontend/ir/error_record.h"

#include <sstream>

namespace cutwin::rt {

namespace {
std::string triple(const uint32_t v[3]) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}
} // namespace

void throwKernelError(const ir::ErrorRecord &rec, const ir::KernelInfo &info) {
  auto kind = KernelErrorKind(rec.kind);
  const ir::Site *site = rec.site < info.sites.size() ? &info.sites[rec.site] : nullptr;
  std::string detail = ir::describeError(rec, info.sites);
  SourceLoc loc = site ? site->loc : SourceLoc{};
  bool atLoop = kind == KernelErrorKind::Livelock || kind == KernelErrorKind::Interrupted ||
                kind == KernelErrorKind::Timeout; // (no site: the line of the loop it was in)
  if (!site && atLoop && rec.payload[0] > 0)
    loc.line = uint32_t(rec.payload[0]);
  std::string fn = site ? site->function : info.name;
  std::string file = site ? site->file : info.file;
  std::ostringstream os;
  os << file;
  if (loc.line > 0)
    os << ":" << loc.line;
  os << " in " << fn;
  if (fn != info.name)
    os << " (called from kernel " << info.name << ")";
  os << ", thread " << triple(rec.thread) << " block " << triple(rec.block) << ": " << detail;
  std::array<uint32_t, 3> thread{rec.thread[0], rec.thread[1], rec.thread[2]},
      block{rec.block[0], rec.block[1], rec.block[2]};
  if (kind == KernelErrorKind::Interrupted)
    throw Interrupted(os.str(), kind, info.name, file, loc, thread, block, detail);
  throw KernelError(os.str(), kind, info.name, file, loc, thread, block, detail);
}

} // namespace cutwin::rt
