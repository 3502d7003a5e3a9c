#include "frontend/ir/kernel_info_bytes.h"

namespace cutwin::ir {

namespace {

// A field added to these structs must be written and read below (the static_asserts
// stop the build until it is; update the size then).
#if defined(__GLIBCXX__) && defined(__x86_64__)
static_assert(sizeof(KernelInfo) == 512, "a new KernelInfo field: write and read it here");
static_assert(sizeof(Site) == 136, "a new Site field: write and read it here");
static_assert(sizeof(ParamSlot) == 56, "a new ParamSlot field: write and read it here");
#endif

void writeLoc(ByteWriter &w, SourceLoc l) {
  w.pod(l.line);
  w.pod(l.col);
}

SourceLoc readLoc(ByteReader &r) {
  SourceLoc l;
  l.line = r.pod<uint32_t>();
  l.col = r.pod<uint32_t>();
  return l;
}

void writeLayout(ByteWriter &w, const ArgLayout &l) {
  w.pod(uint64_t(l.slots.size()));
  for (const ParamSlot &s : l.slots) {
    w.pod(uint8_t(s.role));
    w.pod(s.arg);
    w.pods(s.path);
    w.pod(s.dim);
    w.pod(uint8_t(s.scalar));
    w.flag(s.pointer);
    w.pod(s.offset);
    w.pod(s.size);
    w.pod(s.align);
  }
  w.pod(l.size);
  w.pod(l.align);
}

ArgLayout readLayout(ByteReader &r) {
  ArgLayout l;
  l.slots.resize(r.count(24));
  for (ParamSlot &s : l.slots) {
    s.role = r.enumerator(ParamSlot::Role::ErrorRecord);
    s.arg = r.pod<unsigned>();
    s.path = r.pods<unsigned>();
    s.dim = r.pod<unsigned>();
    s.scalar = r.enumerator(fe::Scalar(fe::kNumScalars - 1));
    s.pointer = r.flag();
    s.offset = r.pod<uint32_t>();
    s.size = r.pod<uint32_t>();
    s.align = r.pod<uint32_t>();
  }
  l.size = r.pod<uint32_t>();
  l.align = r.pod<uint32_t>();
  return l;
}

} // namespace

bool kernelInfoKeepable(const KernelInfo &info, const std::vector<fe::Type> &argTypes) {
  return info.breakpoints.empty() && !info.exported && info.argTypes == argTypes;
}

void writeKernelInfo(ByteWriter &w, const KernelInfo &info) {
  w.str(info.name);
  w.str(info.irName);
  w.str(info.file);
  w.strs(info.argNames);
  writeLayout(w, info.layout);
  w.pod(uint64_t(info.sites.size()));
  for (const Site &s : info.sites) {
    writeLoc(w, s.loc);
    w.str(s.file);
    w.str(s.function);
    w.str(s.what);
    w.str(s.detail);
  }
  w.flag(info.debug);
  w.flag(info.lineinfo);
  w.flag(info.debuggerView);
  w.flag(info.boundscheck);
  w.pod(info.sanitize);
  w.flag(info.fastmath);
  w.pod(info.opt);
  w.named(info.foreign, [&](SourceLoc loc) { writeLoc(w, loc); });
  w.strs(info.link);
  w.pods(info.launchBounds);
  w.strs(info.warnings);
}

KernelInfo readKernelInfo(ByteReader &r, const std::vector<fe::Type> &argTypes) {
  KernelInfo info;
  info.name = r.str();
  info.irName = r.str();
  info.file = r.str();
  info.argTypes = argTypes;
  info.argNames = r.strs();
  info.layout = readLayout(r);
  info.sites.resize(r.count(40));
  for (Site &s : info.sites) {
    s.loc = readLoc(r);
    s.file = r.str();
    s.function = r.str();
    s.what = r.str();
    s.detail = r.str();
  }
  info.debug = r.flag();
  info.lineinfo = r.flag();
  info.debuggerView = r.flag();
  info.boundscheck = r.flag();
  info.sanitize = r.pod<unsigned>();
  info.fastmath = r.flag();
  info.opt = r.pod<int>();
  for (uint64_t n = r.count(16); n; --n) {
    std::string name = r.str();
    info.foreign[name] = readLoc(r);
  }
  info.link = r.strs();
  info.launchBounds = r.pods<int>();
  info.warnings = r.strs();
  return info;
}

} // namespace cutwin::ir
