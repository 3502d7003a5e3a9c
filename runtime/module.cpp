// Modules, kernels and the dispatcher: argument types -> compiled kernel -> launch.
#include "backend_gpu/gpu_pipeline.h"
#include "cutwin/time_cases.h"
#include "runtime/module_impl.h"

#include "frontend/ir/kernel_info_bytes.h"
#include "frontend/ir/sanitize_checks.h"
#include "frontend/sema/record_layout.h"
#include "runtime/cache_key.h"
#include "runtime/kernel_cache.h"
#include "runtime/kernel_error.h"
#include "runtime/launch_tracker.h"
#include "runtime/marshal.h"

#include <llvm/IR/DebugInfo.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

namespace cutwin {

namespace {

fe::ConstValue typed(fe::ConstValue c, const HostValue &v) {
  if (v.typedScalar) {
    if (v.dtype == DType::Xoroshiro128p)
      throw Error("a host scalar constant cannot be an RNG state");
    c.typedScalar = true;
    c.dtype = fe::Scalar(v.dtype);
  }
  return c;
}

fe::ConstValue valueOf(const HostValue &v);

/// A host value as the compiler's constant (an enum member: its value, typed with its class).
fe::ConstValue constValue(const HostValue &v) {
  fe::ConstValue c = valueOf(v);
  c.enumClass = v.enumClass;
  c.intEnum = v.intEnum;
  return c;
}

fe::ConstValue valueOf(const HostValue &v) {
  switch (v.kind) {
  case HostValue::Kind::Bool: return typed(fe::ConstValue::ofBool(v.b), v);
  case HostValue::Kind::Int: return typed(fe::ConstValue::ofInt(v.i), v);
  case HostValue::Kind::Float: return typed(fe::ConstValue::ofFloat(v.f), v);
  case HostValue::Kind::Tuple: break;
  case HostValue::Kind::None: return fe::ConstValue{};
  case HostValue::Kind::Str: {
    fe::ConstValue c;
    c.kind = fe::ConstValue::Kind::Str;
    c.s = v.s;
    return c;
  }
  case HostValue::Kind::DeviceArray: {
    if (v.shape.size() > kMaxArrayDims || v.strides.size() != v.shape.size())
      throw Error("captured device arrays have at most " + std::to_string(kMaxArrayDims) + " dimensions");
    fe::ConstValue a;
    a.kind = fe::ConstValue::Kind::DeviceArray;
    a.dtype = fe::Scalar(v.dtype);
    a.shape = v.shape;
    a.strides = v.strides;
    a.address = v.address;
    return a;
  }
  case HostValue::Kind::Array: {
    int64_t n = 1;
    for (int64_t d : v.shape)
      n *= d;
    if (v.shape.size() > kMaxArrayDims || n * int64_t(dtypeSize(v.dtype)) != int64_t(v.bytes.size()))
      throw Error("host array constants need at most " + std::to_string(kMaxArrayDims) +
                  " dimensions and one element per shape entry");
    fe::ConstValue a;
    a.kind = fe::ConstValue::Kind::Array;
    if (dtypeIsRecord(v.dtype))
      a.record = fe::recordAt(unsigned(v.dtype) - kFirstRecordDType);
    else
      a.dtype = fe::Scalar(v.dtype);
    a.shape = v.shape;
    a.bytes = std::make_shared<const std::vector<uint8_t>>(v.bytes);
    return a;
  }
  }
  fe::ConstValue t;
  t.kind = fe::ConstValue::Kind::Tuple;
  for (auto &e : v.elems)
    t.elems.push_back(constValue(e));
  return t;
}

fe::JitOptions jitOptions(const JitDeclaration &d) {
  fe::JitOptions o;
  o.device = d.device;
  o.debug = d.debug;
  o.fastmath = d.fastmath;
  o.lineinfo = d.lineinfo;
  o.boundscheck = d.boundscheck;
  if (d.sanitize)
    o.sanitize = ir::parseSanitizeChecks(*d.sanitize);
  o.opt = d.opt;
  o.link = d.link;
  o.launchBounds = d.launchBounds;
  o.inlineAlways = d.inlineAlways;
  o.forceInline = d.forceInline;
  for (auto &s : d.signatures)
    o.signatures.push_back({nullptr, s, {}});
  return o;
}

fe::HostBindings hostBindings(const ModuleBindings &b) {
  fe::HostBindings h;
  for (auto &[name, v] : b.constants)
    h.constants[name] = constValue(v);
  for (auto &[name, d] : b.functions)
    h.functions[name] = jitOptions(d);
  return h;
}

fe::NameBinding nameBinding(const NameBinding &b) {
  fe::NameBinding f;
  f.kind = fe::NameBinding::Kind(int(b.kind));
  f.path = b.path;
  f.attrs = b.attrs;
  if (b.kind == NameBinding::Kind::Constant)
    f.value = constValue(b.value);
  f.text = b.text;
  f.foreignName = b.foreignName;
  f.foreignLink = b.foreignLink;
  f.foreignCAbi = b.foreignCAbi;
  for (auto &[name, m] : b.members)
    f.members[name] = nameBinding(m);
  return f;
}

/// The module's digest for the kernel cache (`digest()`), or "" where the cache is off for it.
std::string cacheInputs(Device &dev, const CompileOptions &opts, const std::function<std::string()> &digest) {
  return rt::kernelCacheEnabled(opts.cache, dev.backend().capabilities()) ? digest() : "";
}

} // namespace

std::shared_ptr<Module> Module::fromUnits(std::shared_ptr<Device> dev, const std::vector<FunctionUnit> &units,
                                          CompileOptions opts) {
  std::vector<rt::HostSource> sources;
  for (const FunctionUnit &u : units) {
    rt::HostSource src;
    src.file = std::make_shared<fe::SourceFile>(u.file, u.source);
    src.unit.key = u.function + "@" + u.id;
    src.unit.function = u.function;
    src.unit.options = jitOptions(u.declaration);
    for (auto &[param, v] : u.defaults)
      src.unit.defaults[param] = constValue(v);
    // Function bindings name units by id; in the frontend keys carry the function's name.
    std::function<void(fe::NameBinding &, const std::string &)> rekey = [&](fe::NameBinding &b,
                                                                            const std::string &name) {
      for (auto &[attr, m] : b.members)
        rekey(m, name + "." + attr);
      if (b.kind != fe::NameBinding::Kind::Function)
        return;
      auto it =
          std::find_if(units.begin(), units.end(), [&](const FunctionUnit &o) { return o.id == b.text; });
      if (it == units.end())
        throw Error("'" + name + "' in " + u.file + " names function unit '" + b.text +
                    "', which is not given");
      b.text = it->function + "@" + it->id;
    };
    for (auto &[name, b] : u.names) {
      src.unit.names[name] = nameBinding(b);
      rekey(src.unit.names[name], name);
    }
    sources.push_back(std::move(src));
  }
  std::string inputs = cacheInputs(*dev, opts, [&] { return rt::moduleDigest(units); });
  return std::shared_ptr<Module>(
      new Module(std::make_shared<rt::ModuleImpl>(std::move(dev), sources, opts, std::move(inputs))));
}

std::shared_ptr<Module> Module::fromFile(std::shared_ptr<Device> dev, const std::string &path,
                                         CompileOptions opts) {
  auto file = fe::SourceFile::fromFile(path);
  std::string inputs =
      cacheInputs(*dev, opts, [&] { return rt::moduleDigest(file->path(), file->text(), {}); });
  return std::shared_ptr<Module>(new Module(
      std::make_shared<rt::ModuleImpl>(std::move(dev), file, opts, fe::HostBindings{}, std::move(inputs))));
}

std::shared_ptr<Module> Module::fromString(std::shared_ptr<Device> dev, const std::string &source,
                                           const std::string &name, CompileOptions opts,
                                           const ModuleBindings &bindings) {
  auto file = std::make_shared<fe::SourceFile>(name, source);
  std::string inputs = cacheInputs(*dev, opts, [&] { return rt::moduleDigest(name, source, bindings); });
  return std::shared_ptr<Module>(new Module(std::make_shared<rt::ModuleImpl>(
      std::move(dev), file, opts, hostBindings(bindings), std::move(inputs))));
}

bool Module::hasFunction(const std::string &name) const {
  return impl_->scope().definedFunction(name) != nullptr;
}

Kernel Module::kernel(const std::string &name) {
  const fe::Symbol *s = impl_->scope().definedFunction(name);
  if (!s || s->options.device)
    throw Error("module has no kernel named '" + name + "'");
  return Kernel(impl_, name);
}

std::vector<std::string> Module::kernelNames() const { return impl_->kernelNames(); }

CompiledFunction Module::compileFunction(const std::string &name, const FunctionCompileRequest &request) {
  return impl_->compileFunction(name, request);
}

void Module::setLoadHook(LoadHook hook) { impl_->setLoadHook(std::move(hook)); }

std::string Module::cacheDirectory() const {
  return impl_->cachesKernels() ? rt::kernelCacheDirectory().string() : "";
}

void Kernel::launch(Dim3 grid, Dim3 block, const std::vector<Arg> &args, uint64_t sharedBytes,
                    const Stream *stream) {
  launch(grid, block, args, LaunchOptions{sharedBytes, stream});
}

void Kernel::launch(Dim3 grid, Dim3 block, const std::vector<Arg> &args, const LaunchOptions &opts) {
  if (opts.stream && &opts.stream->device() != &module_->device())
    throw LaunchError("kernel '" + name_ + "' runs on " + module_->device().spec() +
                      " but its stream is one of " + opts.stream->device().spec() +
                      ": CUDA_ERROR_INVALID_HANDLE (invalid resource handle)");
  module_->launch(name_, grid, block, args, opts.sharedBytes, opts.stream ? opts.stream->handle() : nullptr,
                  opts.timeoutSeconds);
}

std::string Kernel::ir(const std::vector<Arg> &args) { return module_->ir(name_, args); }

std::shared_ptr<Device> Kernel::device() const { return module_->sharedDevice(); }

std::map<std::string, std::string> Kernel::localTypes(const std::vector<Arg> &args) {
  return module_->localTypes(name_, args);
}

KernelAttributes Kernel::attributes(const std::vector<Arg> &args) { return module_->attributes(name_, args); }

std::vector<std::vector<std::string>> Kernel::compiledSignatures() const {
  return module_->compiledSignatures(name_);
}

std::vector<std::vector<std::string>> Kernel::cachedSignatures() const {
  return module_->compiledSignatures(name_, true);
}

std::vector<std::string> Kernel::takeWarnings() { return module_->takeWarnings(); }

uint64_t Kernel::maxCooperativeGridBlocks(const std::vector<Arg> &args, Dim3 block, uint64_t sharedBytes) {
  return module_->maxCooperativeBlocks(name_, args, block, sharedBytes);
}

uint64_t Kernel::maxCooperativeGridBlocks(Dim3 block, uint64_t sharedBytes) {
  return module_->maxCooperativeBlocks(name_, block, sharedBytes);
}

std::string Kernel::ptx(const std::vector<Arg> &args, const std::string &arch) {
  return module_->ptx(name_, args, arch);
}

namespace rt {

ModuleImpl::ModuleImpl(std::shared_ptr<Device> dev, std::shared_ptr<const fe::SourceFile> file,
                       CompileOptions opts, const fe::HostBindings &host, std::string inputs)
    : device_(std::move(dev)), opts_(opts), inputs_(std::move(inputs)) {
  parsed_ = parseKernelModule(std::move(file), pipelineOptions(), host);
}

ModuleImpl::ModuleImpl(std::shared_ptr<Device> dev, const std::vector<HostSource> &sources,
                       CompileOptions opts, std::string inputs)
    : device_(std::move(dev)), opts_(opts), inputs_(std::move(inputs)) {
  parsed_ = parseHostUnits(sources, pipelineOptions());
}

PipelineOptions ModuleImpl::pipelineOptions() const {
  PipelineOptions p;
  p.boundscheck = opts_.boundscheck.value_or(device_->backend().capabilities().boundscheckByDefault);
  p.sanitize =
      opts_.sanitize ? ir::parseSanitizeChecks(*opts_.sanitize) : ir::sanitizeChecksFromEnvironment();
  p.sanitizers = device_->backend().capabilities().sanitizers;
  p.lineDirectivesOnly = !device_->backend().capabilities().fullDebugInfo;
  p.debuggerView = !p.lineDirectivesOnly && debuggerAttached();
  p.optLevel = opts_.optLevel;
  p.codegen = opts_.codegen;
  return p;
}

std::vector<fe::Type> ModuleImpl::formalTypes(const std::string &kernel, const std::vector<Arg> &args) const {
  std::vector<fe::Type> actual;
  for (auto &a : args)
    actual.push_back(argumentType(a));
  const fe::Symbol *sym = parsed_->scope().definedFunction(kernel);
  if (sym->options.signatures.empty())
    return actual;
  // Explicit signatures: the one the arguments convert to best, as numba rates them
  // (fewest unsafe, then safe conversions, then promotions; the first of equals). Arrays
  // must match dtype and ndim, and the layout if one is declared - except that a kernel
  // of one signature takes an array of integers of the declared size and the other
  // signedness as its declared type (numba launches its one signature without looking at
  // an array's dtype; cutwin accepts only this reinterpretation, which keeps every bit).
  std::string declared;
  std::optional<std::vector<fe::Type>> best;
  std::tuple<int, int, int> bestRate{};
  for (const fe::SignatureDecl &s : sym->options.signatures) {
    fe::Signature sig = parsed_->scope().parseSignature(s);
    auto formal = fe::kernelArgTypesFromSignature(parsed_->scope(), *sym, sig);
    declared += "\n  void(";
    for (size_t i = 0; i < formal.size(); ++i)
      declared += (i ? ", " : "") + formal[i].str();
    declared += ")";
    if (formal.size() != actual.size())
      continue;
    int unsafe = 0, safe = 0, promote = 0;
    bool ok = true;
    for (size_t i = 0; i < formal.size() && ok; ++i) {
      const fe::Type &f = formal[i], &a = actual[i];
      if (f.pointer) {
        ok = a.isInt() || (a.isArray() && a.scalar == f.scalar);
        continue;
      }
      fe::Type reinterpreted = a;
      if (sym->options.signatures.size() == 1 && a.isArray() && f.isArray() && fe::isInteger(a.scalar) &&
          fe::isInteger(f.scalar) && fe::byteSize(a.scalar) == fe::byteSize(f.scalar))
        reinterpreted.scalar = f.scalar;
      switch (fe::argConversion(reinterpreted, f)) {
      case fe::Conversion::Exact: break;
      case fe::Conversion::Promote: ++promote; break;
      case fe::Conversion::Safe: ++safe; break;
      case fe::Conversion::Unsafe: ++unsafe; break;
      case fe::Conversion::None: ok = false; break;
      }
    }
    std::tuple<int, int, int> rate{unsafe, safe, promote};
    if (ok && (!best || rate < bestRate)) {
      best = formal;
      bestRate = rate;
    }
  }
  if (best)
    return *best;
  std::string got;
  for (size_t i = 0; i < actual.size(); ++i)
    got += (i ? ", " : "") + actual[i].str();
  throw SignatureMismatchError("No matching definition for argument type(s) " + got + " of kernel '" +
                               kernel + "'; declared signatures:" + declared);
}

ModuleImpl::Compiled &ModuleImpl::compiled(const std::string &kernel, const std::vector<fe::Type> &types) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto last = lastLookup_.find(kernel); last != lastLookup_.end() && last->second.first == types)
      return *last->second.second;
  }
  std::string key = kernel + "(";
  for (auto &t : types)
    key += t.mangle() + ",";
  std::unique_lock<std::mutex> lock(mu_);
  auto it = cache_.find(key);
  if (it != cache_.end()) {
    lastLookup_[kernel] = {types, it->second.get()};
    return *it->second;
  }
  Compiled &out = *cache_.emplace(key, compileOrLoad(kernel, types)).first->second;
  lastCompiled_[kernel] = &out;
  lastLookup_[kernel] = {types, &out};
  order_.push_back(&out);
  if (!out.info->warnings.empty()) {
    pendingWarnings_.insert(pendingWarnings_.end(), out.info->warnings.begin(), out.info->warnings.end());
    hasWarnings_ = true;
  }
  lock.unlock(); // the hook may compile other kernels of this module
  if (loadHook_)
    loadHook_(kernel, out.kernel->moduleHandle(), true);
  return out;
}

std::unique_ptr<ModuleImpl::Compiled> ModuleImpl::compileOrLoad(const std::string &kernel,
                                                                const std::vector<fe::Type> &types) {
  PipelineOptions po = pipelineOptions();
  KernelCompiler &compiler = device_->backend().compiler();
  auto c = std::make_unique<Compiled>();
  c->kernelName = kernel;
  std::string key =
      inputs_.empty() ? "" : kernelCacheKey(inputs_, kernel, types, po, compiler.codeIdentity());
  if (!key.empty())
    if (std::optional<CachedKernel> hit = readCachedKernel(key, types)) {
      try {
        c->kernel = compiler.load(hit->image, hit->info);
        c->info = std::make_shared<const ir::KernelInfo>(std::move(hit->info));
        c->fromCache = true;
        return c;
      } catch (const std::exception &) {
        // An image this process could not load: compiled again below, and its entry replaced.
      }
    }
  ir::KernelIR kir = buildKernelIR(*parsed_, kernel, types, po);
  c->info = std::make_shared<const ir::KernelInfo>(kir.info);
  std::string image;
  c->kernel = compiler.compile(std::move(kir), po, key.empty() ? nullptr : &image);
  if (!image.empty() && ir::kernelInfoKeepable(*c->info, types))
    writeCachedKernel(key, *c->info, image);
  return c;
}

KernelAttributes ModuleImpl::attributes(const std::string &kernel, const std::vector<Arg> &args) {
  return compiled(kernel, formalTypes(kernel, args)).kernel->attributes();
}

std::vector<std::string> ModuleImpl::takeWarnings() {
  if (!hasWarnings_) // (launches ask every time: a flag, not the lock)
    return {};
  std::lock_guard<std::mutex> lock(mu_);
  hasWarnings_ = false;
  return std::exchange(pendingWarnings_, {});
}

std::vector<std::vector<std::string>> ModuleImpl::compiledSignatures(const std::string &kernel,
                                                                     bool cachedOnly) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::vector<std::string>> out;
  for (const Compiled *c : order_) {
    if (c->kernelName != kernel || (cachedOnly && !c->fromCache))
      continue;
    std::vector<std::string> sig;
    for (const fe::Type &t : c->info->argTypes)
      sig.push_back(t.signatureText());
    out.push_back(std::move(sig));
  }
  return out;
}

ModuleImpl::~ModuleImpl() {
  if (!loadHook_)
    return;
  for (auto &[key, c] : cache_) {
    try {
      loadHook_(c->kernelName, c->kernel->moduleHandle(), false);
    } catch (...) {
      // a failing teardown callback must not stop the unloading
    }
  }
}

namespace {
/// The alignment a GPU's loads and stores of `t` need (a complex number is two parts).
size_t elementAlignment(DType t) {
  switch (t) {
  case DType::C64:
  case DType::C128: return dtypeSize(t) / 2;
  case DType::Xoroshiro128p: return 8;
  case DType::Bool:
  case DType::I8:
  case DType::I16:
  case DType::I32:
  case DType::I64:
  case DType::U8:
  case DType::U16:
  case DType::U32:
  case DType::U64:
  case DType::F32:
  case DType::F64:
  case DType::F16:
  case DType::BF16:
  case DType::FP8E5M2:
  case DType::FP8E4M3:
  case DType::FP8E8M0: CUTWIN_TIME_CASES(DType) return dtypeSize(t);
  }
  return 1;
}

/// An array whose elements lie at misaligned addresses (another library's pointer with an
/// odd offset, odd strides): every access to it faults on a GPU, with an error that ends
/// the context. Refused before the launch, on every backend, naming the argument.
void checkAligned(const std::string &kernel, size_t i, const DeviceArray &a) {
  if (a.size() == 0)
    return;
  size_t align = elementAlignment(a.dtype());
  auto address = reinterpret_cast<uintptr_t>(a.data());
  bool misaligned = address % align != 0;
  for (size_t d = 0; d < a.ndim(); ++d)
    misaligned = misaligned || (a.shape()[d] > 1 && a.strides()[d] % int64_t(align) != 0);
  if (!misaligned)
    return;
  std::ostringstream os;
  os << "argument " << i + 1 << " of kernel '" << kernel << "': a " << dtypeName(a.dtype())
     << " array at address 0x" << std::hex << address << std::dec << " with strides (";
  for (size_t d = 0; d < a.ndim(); ++d)
    os << (d ? ", " : "") << a.strides()[d];
  os << ") has elements not aligned to " << align
     << " bytes: every access to them would be a misaligned address (CUDA_ERROR_MISALIGNED_ADDRESS)";
  throw LaunchError(os.str());
}
} // namespace

void ModuleImpl::launch(const std::string &kernel, Dim3 grid, Dim3 block, const std::vector<Arg> &args,
                        uint64_t sharedBytes, void *stream, double timeoutSeconds) {
  std::vector<const DeviceArray *> peerArrays; // arrays of other devices, reached by peer access
  std::function<void(const Arg &, size_t)> onThisDevice = [&](const Arg &a, size_t i) {
    if (a.isTuple()) {
      for (const Arg &e : a.elements())
        onThisDevice(e, i);
    } else if (a.isArray()) {
      const Device &owner = a.array().device();
      if (&owner != device_.get())
        peerArrays.push_back(&a.array());
      if (&owner != device_.get() && !device_->peerAccessEnabled(owner))
        throw LaunchError(
            "argument " + std::to_string(i + 1) + " of kernel '" + kernel + "' is an array on " +
            owner.spec() + " (" + owner.name() + "), but the kernel runs on " + device_->spec() +
            ", which has no peer access to it: a GPU faults with CUDA_ERROR_ILLEGAL_ADDRESS (an "
            "illegal memory access was encountered). Copy the array to " +
            device_->spec() + " or enable peer access first");
      checkAligned(kernel, i, a.array());
    }
  };
  for (size_t i = 0; i < args.size(); ++i)
    onThisDevice(args[i], i);
  Compiled &c = compiled(kernel, formalTypes(kernel, args));
  ir::ErrorRecord *rec = device_->launches().acquire(c.info);
  auto buffer = packArguments(c.info->layout, args, rec);
  try {
    c.kernel->launch(grid, block, sharedBytes, buffer.data(), rec, stream, timeoutSeconds);
  } catch (...) {
    device_->launches().forget(rec);
    throw;
  }
  device_->launches().submitted(rec);
  // The kernel may have written a peer's arrays, which its owner's sanitizer (a simulated
  // device's) does not see: they count as written there.
  for (const DeviceArray *a : peerArrays)
    if (DeviceArray::Span sp = a->span(); sp.bytes)
      a->device().backend().memory().writtenInPlace(static_cast<char *>(a->data()) + sp.begin, sp.bytes);
  // The simulator has finished: report faults at the launch. Debug kernels on a GPU are
  // waited for, as numba-cuda does, so that their exceptions are the launch's.
  if (!device_->backend().capabilities().synchronousLaunches && !c.info->debug)
    return;
  try {
    device_->launches().check();
  } catch (const KernelError &e) {
    // The sanitizer: its report names both accesses of a race.
    if (e.kind() == KernelErrorKind::DataRace || e.kind() == KernelErrorKind::UninitializedRead)
      if (std::optional<FaultReport> r = c.kernel->faultReport()) {
        std::string file = r->file.empty() ? e.file() : r->file,
                    fn = r->function.empty() ? kernel : r->function;
        throw KernelError(
            rt::kernelErrorText(file, r->loc.line, fn, kernel, e.thread(), e.block(), r->detail), e.kind(),
            e.kernel(), file, r->loc, e.thread(), e.block(), r->detail);
      }
    // Ctrl-C or the watchdog: the message says where the kernel's threads were.
    std::string where = e.kind() == KernelErrorKind::Interrupted || e.kind() == KernelErrorKind::Timeout
                            ? c.kernel->stopReport()
                            : "";
    if (where.empty())
      throw;
    std::string what = std::string(e.what()) + "\n  where: " + where;
    if (e.kind() == KernelErrorKind::Interrupted)
      throw Interrupted(what, e.kind(), e.kernel(), e.file(), e.loc(), e.thread(), e.block(), e.detail());
    throw KernelError(what, e.kind(), e.kernel(), e.file(), e.loc(), e.thread(), e.block(), e.detail());
  }
}

uint64_t ModuleImpl::maxCooperativeBlocks(const std::string &kernel, const std::vector<Arg> &args, Dim3 block,
                                          uint64_t sharedBytes) {
  return compiled(kernel, formalTypes(kernel, args)).kernel->maxCooperativeBlocks(block, sharedBytes);
}

uint64_t ModuleImpl::maxCooperativeBlocks(const std::string &kernel, Dim3 block, uint64_t sharedBytes) {
  Compiled *c = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = lastCompiled_.find(kernel);
    c = it == lastCompiled_.end() ? nullptr : it->second;
  }
  if (!c)
    throw Error("kernel '" + kernel + "' has not been compiled yet: launch it once, or give argument types");
  return c->kernel->maxCooperativeBlocks(block, sharedBytes);
}

std::string ModuleImpl::ir(const std::string &kernel, const std::vector<Arg> &args) {
  // The kernel as the GPU compiles it, as numba shows it (and as ptx() compiles it): bounds
  // checks only when asked for; full debug info for debug=True, line tables (DWARF's
  // "directives only") for lineinfo=True, none otherwise. The simulator runs the same IR
  // with its defaults (bounds checks on, full debug info for its debugger).
  PipelineOptions po = pipelineOptions();
  po.boundscheck = opts_.boundscheck.value_or(false);
  const fe::Symbol *sym = parsed_->program->primary().definedFunction(kernel);
  bool debug = sym && sym->options.debug;
  if (!debug)
    po.lineDirectivesOnly = true;
  ir::KernelIR kir = buildKernelIR(*parsed_, kernel, formalTypes(kernel, args), po);
  if (!debug && !kir.info.lineinfo)
    llvm::StripDebugInfo(*kir.module);
  std::string s;
  llvm::raw_string_ostream os(s);
  kir.module->print(os, nullptr);
  return os.str();
}

std::map<std::string, std::string> ModuleImpl::localTypes(const std::string &kernel,
                                                          const std::vector<Arg> &args) {
  fe::Typer typer(*parsed_->program);
  const fe::FunctionSpec &spec = typer.typeKernel(kernel, formalTypes(kernel, args));
  std::map<std::string, std::string> out;
  for (auto &[name, t] : spec.locals)
    if (!fe::isStaticType(t)) // modules, functions and types have no value to show
      out[name] = t.signatureText();
  return out;
}

std::string ModuleImpl::ptx(const std::string &kernel, const std::vector<Arg> &args,
                            const std::string &arch) {
  PipelineOptions po = pipelineOptions();
  po.boundscheck = opts_.boundscheck.value_or(false); // numba-cuda's GPU default
  po.lineDirectivesOnly = true;
  ir::KernelIR kir = buildKernelIR(*parsed_, kernel, formalTypes(kernel, args), po);
  if (!kir.info.debug && !kir.info.lineinfo) // numba's PTX has .file and .loc only when asked for
    llvm::StripDebugInfo(*kir.module);
  return gpu::compileForGpu(std::move(kir), po, arch).ptx;
}

} // namespace rt
} // namespace cutwin
