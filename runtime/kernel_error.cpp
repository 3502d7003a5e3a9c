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
