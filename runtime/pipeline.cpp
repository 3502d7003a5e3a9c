// The pipeline, one call per step: source -> syntax tree -> module scope -> typed
// functions -> kernel IR -> (simulator) lowered IR -> native code.
#include "runtime/pipeline.h"

#include "backend_gpu/libnvvm.h"
#include "backend_gpu/lower_intrinsics.h"
#include "backend_gpu/nvptx.h"
#include "backend_gpu/nvvm_printer.h"
#include "backend_sim/canonical_nan.h"
#include "backend_sim/foreign_cpu.h"
#include "backend_sim/jit.h"
#include "backend_sim/libdevice_cpu.h"
#include "backend_sim/vector_variants.h"
#include "backend_sim/lower_intrinsics.h"
#include "backend_sim/thread_context.h"
#include "frontend/ir/contract_fma.h"
#include "frontend/ir/libdevice_link.h"
#include "frontend/ir/passes.h"
#include "frontend/syntax/parser.h"
#include "runtime/linked_files.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_os_ostream.h>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <ostream>

namespace cutwin::rt {

const std::vector<std::string> &pipelineSteps() {
  static const std::vector<std::string> steps = {"parse",         "resolve",      "type",     "lower",
                                                 "verify",        "cleanup",      "contract", "sim-lower",
                                                 "sim-libdevice", "sim-optimize", "sim-jit",  "gpu-lower",
                                                 "gpu-libdevice", "gpu-optimize", "gpu-ptx"};
  return steps;
}

bool PipelineOptions::shouldDump(const std::string &step) const {
  if (!dump)
    return false;
  return std::find(dumpAfter.begin(), dumpAfter.end(), step) != dumpAfter.end() ||
         std::find(dumpAfter.begin(), dumpAfter.end(), "all") != dumpAfter.end();
}

namespace {

void dumpIR(const PipelineOptions &o, const std::string &step, const llvm::Module &m) {
  if (!o.shouldDump(step))
    return;
  *o.dump << "; *** IR after " << step << " ***\n";
  llvm::raw_os_ostream os(*o.dump);
  m.print(os, nullptr);
}

/// Reports the wall time of each step when asked (PipelineOptions::timing).
class StepClock {
public:
  explicit StepClock(const PipelineOptions &o) : o_(o) {}
  void done(const char *step) {
    auto now = std::chrono::steady_clock::now();
    if (o_.timing)
      *o_.timing << "# time " << step << ": " << std::fixed << std::setprecision(2)
                 << std::chrono::duration<double, std::milli>(now - last_).count() << " ms\n";
    last_ = now;
  }

private:
  const PipelineOptions &o_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

void verify(const llvm::Module &m, const std::string &step) {
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(m, &os))
    throw Error("internal error: IR invalid after " + step + ":\n" + os.str());
}

/// Stack bytes a simulated thread needs: a base for call frames plus every fixed-size
/// local the code allocates.
size_t fiberStackBytes(const llvm::Module &m) {
  uint64_t locals = 0;
  for (const llvm::Function &f : m)
    for (const llvm::BasicBlock &bb : f)
      for (const llvm::Instruction &i : bb)
        if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&i))
          if (auto size = a->getAllocationSize(m.getDataLayout()))
            locals += size->getFixedValue();
  uint64_t bytes = 32 * 1024 + locals;
  return size_t((bytes + 4095) / 4096 * 4096);
}

void finishKernelIR(ir::KernelIR &ir, const PipelineOptions &opts, StepClock &clock);

/// launch_bounds' third value, the max cluster rank: a PTX directive after the kernel's
/// .maxntid (neither code generator annotates it).
std::string withClusterRank(std::string ptx, const ir::KernelInfo &info) {
  if (info.launchBounds.size() < 3)
    return ptx;
  size_t at = ptx.find(".maxntid");
  if (at == std::string::npos)
    return ptx;
  size_t eol = ptx.find('\n', at);
  ptx.insert(eol == std::string::npos ? ptx.size() : eol, "\n.maxclusterrank " + std::to_string(info.launchBounds[2]));
  return ptx;
}

} // namespace

namespace {

void dumpScopes(const fe::Program &program, const PipelineOptions &opts) {
  if (!opts.shouldDump("resolve"))
    return;
  *opts.dump << "# *** scopes after resolve ***\n";
  for (auto &scope : program.scopes()) {
    *opts.dump << "scope " << scope->file().path() << "\n";
    for (auto &[name, s] : scope->symbols()) {
      if (name.empty() || name[0] == '\x01')
        continue;
      *opts.dump << "  " << name << ": ";
      switch (s.kind) {
      case fe::Symbol::Kind::Entity: *opts.dump << s.entity.type.str(); break;
      case fe::Symbol::Kind::Constant: *opts.dump << "constant " << s.value.type().str(); break;
      case fe::Symbol::Kind::JitFunction:
        *opts.dump << (s.def ? (s.options.device ? "device function " : "kernel ") : "function ") << s.key;
        break;
      case fe::Symbol::Kind::Foreign: *opts.dump << "foreign function " << s.foreignName; break;
      case fe::Symbol::Kind::HostOnly: *opts.dump << "host only"; break;
      }
      *opts.dump << "\n";
    }
  }
}

} // namespace

std::shared_ptr<ParsedModule> parseKernelModule(std::shared_ptr<const fe::SourceFile> file,
                                                const PipelineOptions &opts, const fe::HostBindings &host) {
  auto pm = std::make_shared<ParsedModule>();
  StepClock clock(opts);
  // parse
  auto ast = std::make_shared<fe::Module>(fe::parseModule(*file));
  if (opts.shouldDump("parse")) {
    *opts.dump << "# *** syntax tree after parse ***\n";
    fe::dumpModule(*ast, *opts.dump);
  }
  clock.done("parse");
  // resolve
  pm->program = std::make_unique<fe::Program>(std::make_unique<fe::ModuleScope>(file, ast, host));
  dumpScopes(*pm->program, opts);
  clock.done("resolve");
  return pm;
}

std::shared_ptr<ParsedModule> parseHostUnits(const std::vector<HostSource> &sources, const PipelineOptions &opts) {
  if (sources.empty())
    throw Error("internal error: no function to compile");
  auto pm = std::make_shared<ParsedModule>();
  StepClock clock(opts);
  // parse
  std::vector<std::shared_ptr<fe::Module>> asts;
  for (const HostSource &src : sources) {
    asts.push_back(std::make_shared<fe::Module>(fe::parseModule(*src.file)));
    if (opts.shouldDump("parse")) {
      *opts.dump << "# *** syntax tree of " << src.unit.function << " after parse ***\n";
      fe::dumpModule(*asts.back(), *opts.dump);
    }
  }
  clock.done("parse");
  // resolve
  pm->program = std::make_unique<fe::Program>();
  for (size_t i = 0; i < sources.size(); ++i)
    pm->program->add(std::make_unique<fe::ModuleScope>(sources[i].file, asts[i], sources[i].unit));
  pm->program->link();
  dumpScopes(*pm->program, opts);
  clock.done("resolve");
  return pm;
}

ir::KernelIR buildKernelIR(const ParsedModule &pm, const std::string &kernel,
                           const std::vector<fe::Type> &argTypes, const PipelineOptions &opts) {
  StepClock clock(opts);
  // type
  fe::Typer typer(*pm.program);
  const fe::FunctionSpec &spec = typer.typeKernel(kernel, argTypes);
  if (opts.shouldDump("type")) {
    *opts.dump << "# *** types after type ***\n";
    for (auto &s : typer.specs()) {
      *opts.dump << (s->isKernel ? "kernel " : "device ") << s->def->name << " -> " << s->returnType.str()
                 << "\n";
      for (auto &[name, t] : s->locals)
        *opts.dump << "  " << name << ": " << t.str() << "\n";
    }
  }
  clock.done("type");
  // lower
  ir::LowerOptions lo;
  // @cuda.jit(boundscheck=...) overrides the device's default for this kernel.
  lo.boundscheck = spec.options().boundscheck.value_or(opts.boundscheck);
  lo.debugInfo = opts.debugInfo;
  lo.lineDirectivesOnly = opts.lineDirectivesOnly;
  ir::KernelIR ir = ir::lowerKernel(typer, spec, lo);
  finishKernelIR(ir, opts, clock);
  return ir;
}

ir::KernelIR buildDeviceExportIR(const ParsedModule &pm, const std::string &function,
                                 const std::vector<fe::Type> &argTypes, std::optional<fe::Type> returnType,
                                 ir::ExportAbi abi, const std::string &name, const PipelineOptions &opts) {
  StepClock clock(opts);
  // type
  fe::Typer typer(*pm.program);
  const fe::Symbol *sym = pm.scope().definedFunction(function);
  if (!sym || !sym->options.device)
    throw Error("module has no device function named '" + function + "'");
  if (argTypes.size() != sym->def->params.size())
    pm.scope().file().error(sym->loc, "device function '" + function + "' takes " +
                                          std::to_string(sym->def->params.size()) +
                                          " arguments, but its signature has " + std::to_string(argTypes.size()));
  const fe::FunctionSpec &spec = typer.typeDeviceFunction(*sym, pm.scope().file(), argTypes, sym->loc);
  clock.done("type");
  // lower
  ir::LowerOptions lo;
  lo.boundscheck = spec.options().boundscheck.value_or(opts.boundscheck);
  lo.debugInfo = opts.debugInfo;
  lo.lineDirectivesOnly = opts.lineDirectivesOnly;
  ir::KernelIR ir = ir::lowerDeviceExport(typer, spec, lo, abi, name, returnType.value_or(spec.returnType));
  finishKernelIR(ir, opts, clock);
  return ir;
}

namespace {

/// Steps verify, cleanup and contract, shared by kernels and exported device functions.
void finishKernelIR(ir::KernelIR &ir, const PipelineOptions &opts, StepClock &clock) {
  dumpIR(opts, "lower", *ir.module);
  clock.done("lower");
  // verify
  verify(*ir.module, "lower");
  clock.done("verify");
  // cleanup (skipped for debug kernels: variables stay in memory, visible to a debugger)
  if (ir.info.opt > 0)
    ir::runCleanup(*ir.module);
  verify(*ir.module, "cleanup");
  dumpIR(opts, "cleanup", *ir.module);
  clock.done("cleanup");
  // contract
  ir::contractMultiplyAdds(*ir.module);
  verify(*ir.module, "contract");
  dumpIR(opts, "contract", *ir.module);
  clock.done("contract");
}

} // namespace

SimCompiled compileForSim(ir::KernelIR ir, const PipelineOptions &opts) {
  llvm::Module &m = *ir.module;
  sim::Jit &jit = sim::Jit::get();
  StepClock clock(opts);
  // sim-lower
  sim::SimLoweringResult lowered = sim::lowerIntrinsicsForSim(m, ir.info);
  m.setDataLayout(jit.dataLayout());
  m.setTargetTriple(jit.triple());
  verify(m, "sim-lower");
  dumpIR(opts, "sim-lower", m);
  clock.done("sim-lower");
  // sim-libdevice
  sim::linkLibdeviceForCpu(m, ir::ReflectValues::forKernel(ir.info.fastmath));
  verify(m, "sim-libdevice");
  dumpIR(opts, "sim-libdevice", m);
  clock.done("sim-libdevice");
  // sim-nan
  sim::applyGpuNanRules(m);
  verify(m, "sim-nan");
  dumpIR(opts, "sim-nan", m);
  clock.done("sim-nan");
  // Frames larger than a page touch each page in order, so a fiber that outgrows its
  // stack hits the guard page below it instead of another fiber's stack.
  for (llvm::Function &f : m)
    if (!f.isDeclaration())
      f.addFnAttr("probe-stack", "inline-asm");
  // sim-optimize. Without bounds checks (whose error exits keep a thread loop scalar) the
  // loop may vectorise through the host helpers' vector variants, its guard (`if i < n:`)
  // split off so that the vectorised loop needs no masks; with them, offering the variants
  // only lengthened compilation (other loops vectorised, +15-20 ms of JIT), and splitting
  // the loop copied its body thrice (+30 ms for a kernel calling four math functions).
  bool vectorVariants = !ir.info.boundscheck;
  if (vectorVariants)
    sim::declareVectorVariants(m);
  ir::runOptimization(m, &jit.targetMachine(), std::min(opts.optLevel, ir.info.opt),
                      /*splitRangeChecks=*/vectorVariants);
  if (vectorVariants)
    sim::defineVectorVariants(m);
  dumpIR(opts, "sim-optimize", m);
  clock.done("sim-optimize");
  // sim-jit
  SimCompiled out;
  out.name = ir.info.name;
  out.serial = ir.info.debug;
  out.staticSharedBytes = lowered.staticSharedBytes;
  for (const llvm::GlobalVariable &g : m.globals())
    if (g.isConstant() && g.getName().contains(".const."))
      out.constBytes += m.getDataLayout().getTypeAllocSize(g.getValueType());
  out.stackBytes = fiberStackBytes(m);
  out.cooperative = lowered.usesGridSync;
  out.maxThreadsPerBlock = ir.info.launchBounds.empty() ? 0 : unsigned(ir.info.launchBounds[0]);
  std::vector<std::string> entries = {lowered.usesBarrier ? sim::kThreadEntry : sim::kBlockEntry};
  // Foreign device functions: their CPU versions, compiled from the linked sources.
  std::map<std::string, uint64_t> externals;
  if (!ir.info.foreign.empty()) {
    sim::ForeignRequest fr;
    fr.kernel = ir.info.name;
    fr.files = resolveLinkedFiles(ir.info);
    for (auto &[name, loc] : ir.info.foreign)
      fr.functions[name] = foreignCallSite(ir.info, name);
    externals = sim::foreignFunctionsForCpu(fr);
  }
  auto addrs =
      jit.load(llvm::orc::ThreadSafeModule(std::move(ir.module), std::move(ir.context)), entries, externals);
  (lowered.usesBarrier ? out.threadEntry : out.blockEntry) = addrs[0];
  if (!addrs[0])
    throw Error("simulator JIT: entry point of '" + out.name + "' not found");
  if (opts.shouldDump("sim-jit"))
    *opts.dump << "# *** sim-jit: " << out.name << " loaded, entry at 0x" << std::hex << addrs[0] << std::dec
               << ", " << out.staticSharedBytes << " bytes static shared, "
               << (lowered.usesBarrier ? "fibers" : "thread loop") << " ***\n";
  clock.done("sim-jit");
  return out;
}

GpuCompiled compileForGpu(ir::KernelIR ir, const PipelineOptions &opts, const std::string &arch) {
  llvm::Module &m = *ir.module;
  gpu::GpuTarget target;
  target.arch = arch;
  target.ftz = ir.info.fastmath;
  GpuCompiled out;
  out.name = ir.info.name;
  out.entry = ir.info.irName;
  StepClock clock(opts);
  // gpu-lower
  gpu::GpuLoweringResult lowered = gpu::lowerIntrinsicsForGpu(m, ir.info);
  out.usesBarrier = lowered.usesBarrier;
  out.cooperative = lowered.usesGridSync;
  gpu::prepareModuleForNvptx(m, target);
  verify(m, "gpu-lower");
  dumpIR(opts, "gpu-lower", m);
  clock.done("gpu-lower");
  if (opts.codegen == "nvvm") {
    // gpu-nvvm-ir: the LLVM 7 dialect libNVVM reads; libNVVM adds libdevice and optimises
    // libNVVM leaves loop-invariant index arithmetic in conditional blocks inside loops
    // (e.g. a row offset under a bounds test); hoisting it first saves a 64-bit multiply
    // per iteration.
    ir::hoistLoopInvariants(m);
    gpu::prepareForNvvm(m);
    verify(m, "gpu-nvvm-ir");
    std::string text = gpu::printNvvmIR(m);
    if (opts.shouldDump("gpu-nvvm-ir"))
      *opts.dump << "; *** NVVM IR after gpu-nvvm-ir ***\n" << text;
    clock.done("gpu-nvvm-ir");
    // gpu-ptx
    gpu::NvvmOptions no;
    no.arch = arch;
    no.ftz = target.ftz;
    no.opt = std::min(3, ir.info.opt);
    no.lineInfo = m.getNamedMetadata("llvm.dbg.cu") != nullptr;
    no.lto = opts.lto;
    out.ptx = withClusterRank(gpu::compileWithLibnvvm(text, out.name, no), ir.info);
    if (opts.lto) {
      out.ltoir = std::move(out.ptx);
      out.ptx.clear();
      return out;
    }
    if (opts.shouldDump("gpu-ptx"))
      *opts.dump << "// *** PTX after gpu-ptx ***\n" << out.ptx;
    clock.done("gpu-ptx");
    return out;
  }
  if (opts.lto)
    throw Error("LTO-IR is made by libNVVM: compile with the nvvm code generator");
  if (opts.codegen != "nvptx")
    throw Error("unknown GPU code generator '" + opts.codegen + "' (expected nvptx or nvvm)");
  // gpu-libdevice: reflection answered as libNVVM answers it for the same options (LLVM's
  // NVVMReflect knows only __CUDA_FTZ and __CUDA_ARCH and would take __CUDA_PREC_SQRT as 0),
  // shifts and nvvm.round with PTX's meaning, as libNVVM reads them
  ir::linkLibdevice(m, ir::ReflectValues::forKernel(ir.info.fastmath, unsigned(std::stoi(arch.substr(3))) * 10));
  verify(m, "gpu-libdevice");
  dumpIR(opts, "gpu-libdevice", m);
  clock.done("gpu-libdevice");
  // gpu-optimize
  gpu::optimizeForNvptx(m, target, std::min(opts.optLevel + 1, ir.info.opt));
  dumpIR(opts, "gpu-optimize", m);
  clock.done("gpu-optimize");
  // gpu-ptx
  out.ptx = withClusterRank(gpu::emitPtx(m, target), ir.info);
  if (opts.shouldDump("gpu-ptx"))
    *opts.dump << "// *** PTX after gpu-ptx ***\n" << out.ptx;
  clock.done("gpu-ptx");
  return out;
}

} // namespace cutwin::rt
