#include "backend_sim/sim_image.h"

#include "backend_sim/foreign_cpu.h"
#include "backend_sim/jit.h"
#include "frontend/ir/byte_stream.h"
#include "frontend/ir/libdevice_link.h"

namespace cutwin::sim {

namespace {
constexpr uint32_t kImageVersion = 1;
} // namespace

std::string simImage(const SimCompiled &c, const std::string &object) {
  ir::ByteWriter w;
  w.pod(kImageVersion);
  w.flag(c.threadEntry != 0); // threads wait for threads: kThreadEntry, else kBlockEntry
  w.flag(c.regionsEntry != 0);
  w.pod(c.frameBytes);
  w.pods(c.regionSites);
  w.pods(c.regionWarp);
  w.pod(c.staticSharedBytes);
  w.pod(c.constBytes);
  w.pod(uint64_t(c.stackBytes));
  w.pod(c.localBytes);
  w.flag(c.cooperative);
  w.str(object);
  return w.take();
}

SimCompiled loadSimImage(const std::string &image, const ir::KernelInfo &info) {
  ir::ByteReader r(image);
  if (r.pod<uint32_t>() != kImageVersion)
    throw Error("a simulator kernel image of another version");
  SimCompiled out = compiledFor(info);
  bool fibers = r.flag(), split = r.flag();
  out.frameBytes = r.pod<uint64_t>();
  out.regionSites = r.pods<uint32_t>();
  out.regionWarp = r.pods<uint8_t>();
  out.staticSharedBytes = r.pod<uint64_t>();
  out.constBytes = r.pod<uint64_t>();
  out.stackBytes = size_t(r.pod<uint64_t>());
  out.localBytes = r.pod<uint64_t>();
  out.cooperative = r.flag();
  std::string object = r.str();
  if (!r.atEnd())
    throw Error("a damaged simulator kernel image");
  ForeignRequest foreign = foreignRequestOf(info);
  std::map<std::string, uint64_t> externals;
  if (!foreign.functions.empty())
    externals = foreignFunctionsForCpu(foreign);
  std::vector<uint64_t> addrs = Jit::get().loadObject(object, entrySymbols(fibers, split), externals);
  if (!addrs[0] || (split && !addrs[1]))
    throw Error("simulator JIT: entry point of '" + info.name + "' not found in its cached code");
  (fibers ? out.threadEntry : out.blockEntry) = addrs[0];
  if (split)
    out.regionsEntry = addrs[1];
  return out;
}

std::string simCodeIdentity() {
  static const std::string id = "sim;" + Jit::get().targetIdentity() + ";" + ir::libdeviceIdentity();
  return id;
}

} // namespace cutwin::sim
