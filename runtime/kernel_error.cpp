#include "runtime/kernel_error.h"

#include "frontend/ir/error_record.h"

#include <sstream>

namespace cutwin::rt {

namespace {
std::string triple(const std::array<uint32_t, 3> &v) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}
} // namespace

std::string kernelErrorText(const std::string &file, uint32_t line, const std::string &function,
                            const std::string &kernel, const std::array<uint32_t, 3> &thread,
                            const std::array<uint32_t, 3> &block, const std::string &detail) {
  std::ostringstream os;
  os << file;
  if (line > 0)
    os << ":" << line;
  os << " in " << function;
  if (function != kernel)
    os << " (called from kernel " << kernel << ")";
  os << ", thread " << triple(thread) << " block " << triple(block) << ": " << detail;
  return os.str();
}

void throwKernelError(const ir::ErrorRecord &rec, const ir::KernelInfo &info) {
  auto kind = KernelErrorKind(rec.kind);
  const ir::Site *site = rec.site < info.sites.size() ? &info.sites[rec.site] : nullptr;
  std::string detail = ir::describeError(rec, info.sites);
  SourceLoc loc = site ? site->loc : SourceLoc{};
  bool atLoop = kind == KernelErrorKind::Livelock || kind == KernelErrorKind::Interrupted ||
                kind == KernelErrorKind::Timeout || kind == KernelErrorKind::DataRace ||
                kind == KernelErrorKind::UninitializedRead; // (no site: the line it was at)
  if (!site && atLoop && rec.payload[0] > 0)
    loc.line = uint32_t(rec.payload[0]);
  std::string fn = site ? site->function : info.name;
  std::string file = site ? site->file : info.file;
  std::array<uint32_t, 3> thread{rec.thread[0], rec.thread[1], rec.thread[2]},
      block{rec.block[0], rec.block[1], rec.block[2]};
  std::string what = kernelErrorText(file, loc.line, fn, info.name, thread, block, detail);
  if (kind == KernelErrorKind::Interrupted)
    throw Interrupted(what, kind, info.name, file, loc, thread, block, detail);
  throw KernelError(what, kind, info.name, file, loc, thread, block, detail);
}

} // namespace cutwin::rt
