#include "runtime/cache_key.h"

#include "frontend/ir/byte_stream.h"
#include "frontend/ir/file_identity.h"
#include "frontend/sema/record_layout.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/Support/BLAKE3.h>
#include <llvm/TargetParser/Host.h>

#include <set>

namespace cutwin::rt {

namespace {

// Every field of these structs is part of the key: a field added must be written below
// (the static_asserts stop the build until it is; update the size then).
#if defined(__GLIBCXX__) && defined(__x86_64__)
static_assert(sizeof(HostValue) == 208, "a new HostValue field: add it to the kernel cache's key");
static_assert(sizeof(JitDeclaration) == 144, "a new JitDeclaration field: add it to the kernel cache's key");
static_assert(sizeof(NameBinding) == 416, "a new NameBinding field: add it to the kernel cache's key");
static_assert(sizeof(FunctionUnit) == 368, "a new FunctionUnit field: add it to the kernel cache's key");
static_assert(sizeof(ModuleBindings) == 96, "a new ModuleBindings field: add it to the kernel cache's key");
static_assert(sizeof(ir::PipelineOptions) == 128,
              "a new PipelineOptions field: add it to the kernel cache's key");
#endif

/// Bumped when what a key covers or an entry holds changes meaning.
constexpr const char *kKeyVersion = "cutwin kernel cache 1";

std::string digest(const std::string &bytes) {
  llvm::BLAKE3Result<32> d = llvm::BLAKE3::hash(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  return std::string(d.begin(), d.end());
}

/// A dtype by what it is: a record's index in this process's table by numba's spelling.
void writeDType(ir::ByteWriter &w, DType t) {
  w.pod(uint32_t(t));
  if (dtypeIsRecord(t))
    w.str(fe::recordAt(unsigned(t) - kFirstRecordDType)->text);
}

void writeValue(ir::ByteWriter &w, const HostValue &v) {
  w.pod(uint8_t(v.kind));
  w.flag(v.b);
  w.pod(v.i);
  w.pod(v.f);
  w.str(v.s);
  w.pod(uint64_t(v.elems.size()));
  for (const HostValue &e : v.elems)
    writeValue(w, e);
  writeDType(w, v.dtype);
  w.flag(v.typedScalar);
  w.pods(v.shape);
  w.pods(v.bytes);
  w.pod(v.address);
  w.pods(v.strides);
  w.str(v.enumClass);
  w.flag(v.intEnum);
}

template <typename T> void writeOptional(ir::ByteWriter &w, const std::optional<T> &o) {
  w.flag(o.has_value());
  if constexpr (std::is_same_v<T, bool>)
    w.flag(o.value_or(false));
  else
    w.str(o.value_or(T{}));
}

void writeDeclaration(ir::ByteWriter &w, const JitDeclaration &d) {
  w.flag(d.device);
  w.strs(d.signatures);
  w.flag(d.debug);
  w.flag(d.fastmath);
  w.flag(d.lineinfo);
  writeOptional(w, d.boundscheck);
  writeOptional(w, d.sanitize);
  w.pod(d.opt);
  w.strs(d.link);
  w.pods(d.launchBounds);
  w.flag(d.inlineAlways);
  w.flag(d.forceInline);
}

void writeBinding(ir::ByteWriter &w, const NameBinding &b) {
  w.pod(uint8_t(b.kind));
  w.str(b.path);
  w.strs(b.attrs);
  writeValue(w, b.value);
  w.str(b.text);
  w.str(b.foreignName);
  w.strs(b.foreignLink);
  w.flag(b.foreignCAbi);
  w.named(b.members, [&](const NameBinding &m) { writeBinding(w, m); });
}

/// The record types `t` names, by index (the mangled name's spelling of them).
void recordsOf(const fe::Type &t, std::set<const fe::RecordLayout *> &out) {
  if (t.record)
    out.insert(t.record);
  for (const fe::Type &e : t.elems)
    recordsOf(e, out);
}

} // namespace

std::string moduleDigest(const std::vector<FunctionUnit> &units) {
  ir::ByteWriter w;
  w.str("units");
  w.pod(uint64_t(units.size()));
  for (const FunctionUnit &u : units) {
    w.str(u.id);
    w.str(u.file);
    w.str(u.source);
    w.str(u.function);
    writeDeclaration(w, u.declaration);
    w.named(u.names, [&](const NameBinding &b) { writeBinding(w, b); });
    w.named(u.defaults, [&](const HostValue &v) { writeValue(w, v); });
  }
  return digest(w.bytes());
}

std::string moduleDigest(const std::string &path, const std::string &source, const ModuleBindings &bindings) {
  ir::ByteWriter w;
  w.str("file");
  w.str(path);
  w.str(source);
  w.named(bindings.constants, [&](const HostValue &v) { writeValue(w, v); });
  w.named(bindings.functions, [&](const JitDeclaration &d) { writeDeclaration(w, d); });
  return digest(w.bytes());
}

std::string kernelCacheKey(const std::string &moduleDigest, const std::string &kernel,
                           const std::vector<fe::Type> &types, const ir::PipelineOptions &opts,
                           const std::string &codeIdentity) {
  ir::ByteWriter w;
  w.str(kKeyVersion);
  w.str(buildIdentity());
  w.str(codeIdentity);
  w.str(moduleDigest);
  w.str(kernel);
  std::set<const fe::RecordLayout *> records;
  w.pod(uint64_t(types.size()));
  for (const fe::Type &t : types) {
    w.str(t.mangle());
    recordsOf(t, records);
  }
  for (const fe::RecordLayout *r : records) {
    w.pod(r->index);
    w.str(r->text);
  }
  // (dumpAfter, stopAfter, dump and timing only print: kernels compiled to run have none)
  w.flag(opts.boundscheck);
  w.pod(opts.sanitize);
  w.flag(opts.sanitizers);
  w.flag(opts.debugInfo);
  w.flag(opts.lineDirectivesOnly);
  w.flag(opts.debuggerView);
  w.str(opts.codegen);
  w.pod(opts.optLevel);
  w.flag(opts.lto);
  w.flag(opts.simRegions);
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : digest(w.bytes()))
    out += {hex[c >> 4], hex[c & 15]};
  return out;
}

const std::string &buildIdentity() {
  // The shared library (Python's extension module) or the program this code is in, and
  // LLVM where it is a library of its own: a patched LLVM makes other code.
  static const std::string id = [] {
    std::string self = ir::identityOfFileHolding(reinterpret_cast<const void *>(&buildIdentity));
    std::string llvm = ir::identityOfFileHolding(reinterpret_cast<const void *>(&llvm::sys::getHostCPUName));
    if (self.empty())
      return std::string(); // no file to tell builds apart: kernelCacheEnabled says no
    return self + ";LLVM " LLVM_VERSION_STRING + (llvm == self ? "" : ";" + llvm);
  }();
  return id;
}

} // namespace cutwin::rt
