// The pipeline, one named step after another (runtime/pipeline_steps.def names them,
// StepRunner verifies, prints and times each): source -> syntax tree -> module scope ->
// typed functions -> kernel IR -> the simulator's native code, or PTX for the GPU.
#include "runtime/pipeline.h"

#include "backend_gpu/libnvvm.h"
#include "backend_gpu/lower_intrinsics.h"
#include "backend_gpu/nvptx.h"
#include "backend_gpu/nvvm_printer.h"
#include "backend_sim/canonical_nan.h"
#include "backend_sim/foreign_cpu.h"
#include "backend_sim/jit.h"
#include "backend_sim/libdevice_cpu.h"
#include "backend_sim/lower_intrinsics.h"
#include "backend_sim/thread_context.h"
#include "backend_sim/vector_variants.h"
#include "frontend/ir/contract_fma.h"
#include "frontend/ir/libdevice_link.h"
#include "frontend/ir/passes.h"
#include "frontend/syntax/parser.h"
#include "runtime/linked_files.h"
#include "runtime/step_runner.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Support/raw_os_ostream.h>

#include <algorithm>
#include <optional>
#include <ostream>

namespace cutwin::rt {

bool PipelineOptions::shouldDump(const std::string &step) const {
  if (!dump)
    return false;
  return std::find(dumpAfter.begin(), dumpAfter.end(), step) != dumpAfter.end() ||
         std::find(dumpAfter.begin(), dumpAfter.end(), "all") != dumpAfter.end();
}

namespace {

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

void dumpScopes(const fe::Program &program, std::ostream &out) {
  out << "# *** scopes after resolve ***\n";
  for (auto &scope : program.scopes()) {
    out << "scope " << scope->file().path() << "\n";
    for (auto &[name, s] : scope->symbols()) {
      if (name.empty() || name[0] == '\x01')
        continue;
      out << "  " << name << ": ";
      switch (s.kind) {
      case fe::Symbol::Kind::Entity: out << s.entity.type.str(); break;
      case fe::Symbol::Kind::Constant: out << "constant " << s.value.type().str(); break;
      case fe::Symbol::Kind::JitFunction:
        out << (s.def ? (s.options.device ? "device function " : "kernel ") : "function ") << s.key;
        break;
      case fe::Symbol::Kind::Foreign: out << "foreign function " << s.foreignName; break;
      case fe::Symbol::Kind::HostOnly: out << "host only"; break;
      }
      out << "\n";
    }
  }
}

void dumpTypes(const fe::Typer &typer, std::ostream &out) {
  out << "# *** types after type ***\n";
  for (auto &s : typer.specs()) {
    out << (s->isKernel ? "kernel " : "device ") << s->def->name << " -> " << s->returnType.str() << "\n";
    for (auto &[name, t] : s->locals)
      out << "  " << name << ": " << t.str() << "\n";
  }
}

/// Runs `transform` as step `s` unless only another step is to run (`cutwin opt`).
template <class F> void step(StepRunner &steps, std::optional<Step> only, Step s, llvm::Module &m, F &&transform) {
  if (!only || *only == s)
    steps.run(s, m, std::forward<F>(transform));
}

/// Steps cleanup and contract, after lower: shared by kernels and exported device functions.
void runFrontendModuleSteps(llvm::Module &m, const ir::KernelInfo &info, StepRunner &steps,
                            std::optional<Step> only = {}) {
  step(steps, only, Step::Cleanup, m, [&](llvm::Module &m) {
    if (info.opt > 0) // debug kernels keep their variables in memory, visible to a debugger
      ir::runCleanup(m);
  });
  step(steps, only, Step::Contract, m, [](llvm::Module &m) { ir::contractMultiplyAdds(m); });
}

/// The simulator's module steps, sim-lower to sim-vector-bodies.
void runSimModuleSteps(llvm::Module &m, const ir::KernelInfo &info, const PipelineOptions &opts, StepRunner &steps,
                       sim::SimLoweringResult &lowered, std::optional<Step> only = {}) {
  sim::Jit &jit = sim::Jit::get();
  step(steps, only, Step::SimLower, m, [&](llvm::Module &m) {
    lowered = sim::lowerIntrinsicsForSim(m, info);
    m.setDataLayout(jit.dataLayout());
    m.setTargetTriple(jit.triple());
  });
  step(steps, only, Step::SimLibdevice, m, [&](llvm::Module &m) {
    sim::linkLibdeviceForCpu(m, ir::ReflectValues::forKernel(info.fastmath));
  });
  step(steps, only, Step::SimNan, m, [](llvm::Module &m) { sim::applyGpuNanRules(m); });
  step(steps, only, Step::SimStackProbes, m, [](llvm::Module &m) {
    for (llvm::Function &f : m)
      if (!f.isDeclaration())
        f.addFnAttr("probe-stack", "inline-asm");
  });
  // Without bounds checks (whose error exits keep a thread loop scalar) the loop may
  // vectorise through the host helpers' vector variants, its guard (`if i < n:`) split off
  // so that the vectorised loop needs no masks; with them, offering the variants only
  // lengthened compilation (other loops vectorised, +15-20 ms of JIT), and splitting the
  // loop copied its body thrice (+30 ms for a kernel calling four math functions).
  bool vectorVariants = !info.boundscheck;
  step(steps, only, Step::SimVectorVariants, m, [&](llvm::Module &m) {
    if (vectorVariants)
      sim::declareVectorVariants(m);
  });
  step(steps, only, Step::SimOptimize, m, [&](llvm::Module &m) {
    ir::runOptimization(m, &jit.targetMachine(), std::min(opts.optLevel, info.opt),
                        /*splitRangeChecks=*/vectorVariants);
  });
  step(steps, only, Step::SimVectorBodies, m, [&](llvm::Module &m) {
    if (vectorVariants)
      sim::defineVectorVariants(m);
  });
}

gpu::GpuTarget gpuTarget(const ir::KernelInfo &info, const std::string &arch) {
  gpu::GpuTarget target;
  target.arch = arch;
  target.ftz = info.fastmath;
  return target;
}

/// The GPU's module steps: gpu-lower, then gpu-libdevice and gpu-optimize (NVPTX) or
/// gpu-hoist (libNVVM).
void runGpuModuleSteps(llvm::Module &m, const ir::KernelInfo &info, const PipelineOptions &opts,
                       const gpu::GpuTarget &target, StepRunner &steps, gpu::GpuLoweringResult &lowered,
                       std::optional<Step> only = {}) {
  step(steps, only, Step::GpuLower, m, [&](llvm::Module &m) {
    lowered = gpu::lowerIntrinsicsForGpu(m, info);
    gpu::prepareModuleForNvptx(m, target);
  });
  if (opts.codegen == "nvvm") {
    // libNVVM leaves loop-invariant index arithmetic in conditional blocks inside loops
    // (e.g. a row offset under a bounds test); hoisting it first saves a 64-bit multiply
    // per iteration.
    step(steps, only, Step::GpuHoist, m, [](llvm::Module &m) { ir::hoistLoopInvariants(m); });
    return;
  }
  if (opts.codegen != "nvptx")
    throw Error("unknown GPU code generator '" + opts.codegen + "' (expected nvptx or nvvm)");
  // Reflection answered as libNVVM answers it for the same options (LLVM's NVVMReflect
  // knows only __CUDA_FTZ and __CUDA_ARCH and would take __CUDA_PREC_SQRT as 0), shifts
  // and nvvm.round with PTX's meaning, as libNVVM reads them.
  step(steps, only, Step::GpuLibdevice, m, [&](llvm::Module &m) {
    ir::linkLibdevice(m, ir::ReflectValues::forKernel(info.fastmath, unsigned(std::stoi(target.arch.substr(3))) * 10));
  });
  step(steps, only, Step::GpuOptimize, m,
       [&](llvm::Module &m) { gpu::optimizeForNvptx(m, target, std::min(opts.optLevel + 1, info.opt)); });
}

/// Step gpu-nvvm-ir: the module in the LLVM 7 dialect libNVVM reads.
std::string printForNvvm(llvm::Module &m, StepRunner &steps) {
  gpu::prepareForNvvm(m);
  std::string text = gpu::printNvvmIR(m);
  if (steps.dumps(Step::GpuNvvmIR))
    steps.out() << "; *** NVVM IR after gpu-nvvm-ir ***\n" << text;
  steps.finished(Step::GpuNvvmIR, &m);
  return text;
}

/// Step gpu-ptx with libNVVM (PTX, or LTO-IR when opts.lto).
std::string ptxFromNvvm(const llvm::Module &m, const std::string &text, const ir::KernelInfo &info,
                        const PipelineOptions &opts, const gpu::GpuTarget &target) {
  gpu::NvvmOptions no;
  no.arch = target.arch;
  no.ftz = target.ftz;
  no.opt = std::min(3, info.opt);
  no.lineInfo = m.getNamedMetadata("llvm.dbg.cu") != nullptr;
  no.lto = opts.lto;
  return gpu::compileWithLibnvvm(text, info.name, no);
}

void printPtx(const std::string &ptx, StepRunner &steps) {
  if (steps.dumps(Step::GpuPtx))
    steps.out() << "// *** PTX after gpu-ptx ***\n" << ptx;
  steps.finished(Step::GpuPtx);
}

} // namespace

std::shared_ptr<ParsedModule> parseKernelModule(std::shared_ptr<const fe::SourceFile> file,
                                                const PipelineOptions &opts, const fe::HostBindings &host) {
  auto pm = std::make_shared<ParsedModule>();
  StepRunner steps(opts);
  auto ast = std::make_shared<fe::Module>(fe::parseModule(*file));
  if (steps.dumps(Step::Parse)) {
    steps.out() << "# *** syntax tree after parse ***\n";
    fe::dumpModule(*ast, steps.out());
  }
  steps.finished(Step::Parse);
  pm->program = std::make_unique<fe::Program>(std::make_unique<fe::ModuleScope>(file, ast, host));
  if (steps.dumps(Step::Resolve))
    dumpScopes(*pm->program, steps.out());
  steps.finished(Step::Resolve);
  return pm;
}

std::shared_ptr<ParsedModule> parseHostUnits(const std::vector<HostSource> &sources, const PipelineOptions &opts) {
  if (sources.empty())
    throw Error("internal error: no function to compile");
  auto pm = std::make_shared<ParsedModule>();
  StepRunner steps(opts);
  std::vector<std::shared_ptr<fe::Module>> asts;
  for (const HostSource &src : sources) {
    asts.push_back(std::make_shared<fe::Module>(fe::parseModule(*src.file)));
    if (steps.dumps(Step::Parse)) {
      steps.out() << "# *** syntax tree of " << src.unit.function << " after parse ***\n";
      fe::dumpModule(*asts.back(), steps.out());
    }
  }
  steps.finished(Step::Parse);
  pm->program = std::make_unique<fe::Program>();
  for (size_t i = 0; i < sources.size(); ++i)
    pm->program->add(std::make_unique<fe::ModuleScope>(sources[i].file, asts[i], sources[i].unit));
  pm->program->link();
  if (steps.dumps(Step::Resolve))
    dumpScopes(*pm->program, steps.out());
  steps.finished(Step::Resolve);
  return pm;
}

ir::KernelIR buildKernelIR(const ParsedModule &pm, const std::string &kernel,
                           const std::vector<fe::Type> &argTypes, const PipelineOptions &opts) {
  StepRunner steps(opts);
  fe::Typer typer(*pm.program);
  const fe::FunctionSpec &spec = typer.typeKernel(kernel, argTypes);
  if (steps.dumps(Step::Type))
    dumpTypes(typer, steps.out());
  steps.finished(Step::Type);
  ir::LowerOptions lo;
  // @cuda.jit(boundscheck=...) overrides the device's default for this kernel.
  lo.boundscheck = spec.options().boundscheck.value_or(opts.boundscheck);
  lo.debugInfo = opts.debugInfo;
  lo.lineDirectivesOnly = opts.lineDirectivesOnly;
  ir::KernelIR ir = ir::lowerKernel(typer, spec, lo);
  steps.finished(Step::Lower, ir.module.get());
  runFrontendModuleSteps(*ir.module, ir.info, steps);
  return ir;
}

ir::KernelIR buildDeviceExportIR(const ParsedModule &pm, const std::string &function,
                                 const std::vector<fe::Type> &argTypes, std::optional<fe::Type> returnType,
                                 ir::ExportAbi abi, const std::string &name, const PipelineOptions &opts) {
  StepRunner steps(opts);
  fe::Typer typer(*pm.program);
  const fe::Symbol *sym = pm.scope().definedFunction(function);
  if (!sym || !sym->options.device)
    throw Error("module has no device function named '" + function + "'");
  if (argTypes.size() != sym->def->params.size())
    pm.scope().file().error(sym->loc, "device function '" + function + "' takes " +
                                          std::to_string(sym->def->params.size()) +
                                          " arguments, but its signature has " + std::to_string(argTypes.size()));
  const fe::FunctionSpec &spec = typer.typeDeviceFunction(*sym, pm.scope().file(), argTypes, sym->loc);
  if (steps.dumps(Step::Type))
    dumpTypes(typer, steps.out());
  steps.finished(Step::Type);
  ir::LowerOptions lo;
  lo.boundscheck = spec.options().boundscheck.value_or(opts.boundscheck);
  lo.debugInfo = opts.debugInfo;
  lo.lineDirectivesOnly = opts.lineDirectivesOnly;
  ir::KernelIR ir = ir::lowerDeviceExport(typer, spec, lo, abi, name, returnType.value_or(spec.returnType));
  steps.finished(Step::Lower, ir.module.get());
  runFrontendModuleSteps(*ir.module, ir.info, steps);
  return ir;
}

SimCompiled compileForSim(ir::KernelIR ir, const PipelineOptions &opts) {
  llvm::Module &m = *ir.module;
  StepRunner steps(opts);
  sim::SimLoweringResult lowered;
  runSimModuleSteps(m, ir.info, opts, steps, lowered);
  SimCompiled out;
  out.name = ir.info.name;
  out.serial = ir.info.debug;
  out.staticSharedBytes = lowered.staticSharedBytes;
  for (const llvm::GlobalVariable &g : m.globals())
    if (g.isConstant() && g.getName().contains(".const."))
      out.constBytes += m.getDataLayout().getTypeAllocSize(g.getValueType());
  out.cooperative = lowered.usesGridSync;
  out.maxThreadsPerBlock = ir.info.launchBounds.empty() ? 0 : unsigned(ir.info.launchBounds[0]);

  out.stackBytes = fiberStackBytes(m);
  if (steps.dumps(Step::SimStack))
    steps.out() << "# *** sim-stack: " << out.stackBytes << " bytes per fiber ***\n";
  steps.finished(Step::SimStack);

  std::map<std::string, uint64_t> externals;
  if (!ir.info.foreign.empty()) {
    sim::ForeignRequest fr;
    fr.kernel = ir.info.name;
    fr.files = resolveLinkedFiles(ir.info);
    for (auto &[name, loc] : ir.info.foreign)
      fr.functions[name] = foreignCallSite(ir.info, name);
    externals = sim::foreignFunctionsForCpu(fr);
  }
  if (steps.dumps(Step::SimForeign))
    steps.out() << "# *** sim-foreign: " << externals.size() << " foreign functions ***\n";
  steps.finished(Step::SimForeign);

  std::vector<std::string> entries = {lowered.usesBarrier ? sim::kThreadEntry : sim::kBlockEntry};
  auto addrs = sim::Jit::get().load(llvm::orc::ThreadSafeModule(std::move(ir.module), std::move(ir.context)),
                                    entries, externals);
  (lowered.usesBarrier ? out.threadEntry : out.blockEntry) = addrs[0];
  if (!addrs[0])
    throw Error("simulator JIT: entry point of '" + out.name + "' not found");
  if (steps.dumps(Step::SimJit))
    steps.out() << "# *** sim-jit: " << out.name << " loaded, entry at 0x" << std::hex << addrs[0] << std::dec
                << ", " << out.staticSharedBytes << " bytes static shared, "
                << (lowered.usesBarrier ? "fibers" : "thread loop") << " ***\n";
  steps.finished(Step::SimJit);
  return out;
}

GpuCompiled compileForGpu(ir::KernelIR ir, const PipelineOptions &opts, const std::string &arch) {
  llvm::Module &m = *ir.module;
  gpu::GpuTarget target = gpuTarget(ir.info, arch);
  if (opts.lto && opts.codegen != "nvvm")
    throw Error("LTO-IR is made by libNVVM: compile with the nvvm code generator");
  GpuCompiled out;
  out.name = ir.info.name;
  out.entry = ir.info.irName;
  StepRunner steps(opts);
  gpu::GpuLoweringResult lowered;
  runGpuModuleSteps(m, ir.info, opts, target, steps, lowered);
  out.usesBarrier = lowered.usesBarrier;
  out.cooperative = lowered.usesGridSync;
  if (opts.codegen == "nvvm") {
    std::string text = printForNvvm(m, steps);
    out.ptx = withClusterRank(ptxFromNvvm(m, text, ir.info, opts, target), ir.info);
    if (opts.lto) {
      out.ltoir = std::move(out.ptx);
      out.ptx.clear();
      return out;
    }
  } else {
    out.ptx = withClusterRank(gpu::emitPtx(m, target), ir.info);
  }
  printPtx(out.ptx, steps);
  return out;
}

namespace {

/// What a backend step needs to know of the kernel, read from textual IR (`cutwin opt`):
/// the kernel is the first function of !cutwin.kernels; its parameters are laid out as
/// the argument ABI's C struct.
ir::KernelInfo kernelInfoFromModule(const llvm::Module &m, const PipelineOptions &opts) {
  ir::KernelInfo info;
  if (const llvm::NamedMDNode *md = m.getNamedMetadata("cutwin.kernels"); md && md->getNumOperands())
    if (auto *f = llvm::mdconst::dyn_extract_or_null<llvm::Function>(md->getOperand(0)->getOperand(0)))
      info.irName = f->getName().str();
  if (info.irName.empty())
    throw Error("the IR names no kernel: add !cutwin.kernels = !{!N} with !N = !{ptr @kernel}");
  info.name = info.irName.substr(0, info.irName.find("__"));
  info.boundscheck = opts.boundscheck;
  const llvm::DataLayout &dl = m.getDataLayout();
  uint32_t offset = 0;
  for (const llvm::Argument &a : m.getFunction(info.irName)->args()) {
    ir::ParamSlot slot;
    slot.size = uint32_t(dl.getTypeAllocSize(a.getType()));
    slot.align = uint32_t(dl.getABITypeAlign(a.getType()).value());
    offset = (offset + slot.align - 1) / slot.align * slot.align;
    slot.offset = offset;
    offset += slot.size;
    info.layout.slots.push_back(slot);
  }
  info.layout.size = (offset + 7) / 8 * 8;
  return info;
}

} // namespace

void runStepAlone(llvm::Module &m, const std::string &name, PipelineOptions opts, const std::string &arch) {
  Step s = stepNamed(name);
  opts.dumpAfter = {name};
  ir::KernelInfo info = kernelInfoFromModule(m, opts);
  StepRunner steps(opts);
  sim::SimLoweringResult simLowered;
  gpu::GpuLoweringResult gpuLowered;
  gpu::GpuTarget target = gpuTarget(info, arch);
  switch (s) {
  case Step::Parse:
  case Step::Resolve:
  case Step::Type:
  case Step::Lower: throw Error("step '" + name + "' starts from Python source: use cutwin compile");
  case Step::Cleanup:
  case Step::Contract: runFrontendModuleSteps(m, info, steps, s); return;
  case Step::SimLower:
  case Step::SimLibdevice:
  case Step::SimNan:
  case Step::SimStackProbes:
  case Step::SimVectorVariants:
  case Step::SimOptimize:
  case Step::SimVectorBodies: runSimModuleSteps(m, info, opts, steps, simLowered, s); return;
  case Step::SimStack:
    steps.out() << "# *** sim-stack: " << fiberStackBytes(m) << " bytes per fiber ***\n";
    return;
  case Step::SimForeign:
  case Step::SimJit: throw Error("step '" + name + "' loads code into this process: use cutwin compile");
  case Step::GpuLower:
  case Step::GpuLibdevice:
  case Step::GpuOptimize: runGpuModuleSteps(m, info, opts, target, steps, gpuLowered, s); return;
  case Step::GpuHoist:
    opts.codegen = "nvvm";
    runGpuModuleSteps(m, info, opts, target, steps, gpuLowered, s);
    return;
  case Step::GpuNvvmIR: printForNvvm(m, steps); return;
  case Step::GpuPtx:
    if (opts.codegen == "nvvm")
      printPtx(ptxFromNvvm(m, printForNvvm(m, steps), info, opts, target), steps);
    else
      printPtx(gpu::emitPtx(m, target), steps);
    return;
  }
}

} // namespace cutwin::rt
