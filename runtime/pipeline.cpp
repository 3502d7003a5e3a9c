// The pipeline, one named step after another (frontend/ir/pipeline_steps.def names them,
// StepRunner verifies, prints and times each): source -> syntax tree -> module scope ->
// typed functions -> kernel IR -> the simulator's native code, or PTX for the GPU.
#include "runtime/pipeline.h"

#include "backend_gpu/gpu_pipeline.h"
#include "backend_sim/sim_pipeline.h"
#include "frontend/ir/contract_fma.h"
#include "frontend/ir/inline_calls.h"
#include "frontend/ir/passes.h"
#include "frontend/syntax/parser.h"
#include "runtime/compiler_stack.h"

#include <llvm/IR/Constants.h>

#include <algorithm>
#include <optional>
#include <ostream>

namespace cutwin::rt {

namespace {

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

/// Steps inline, cleanup and contract, after lower: shared by kernels and exported device functions.
void runFrontendModuleSteps(llvm::Module &m, const ir::KernelInfo &info, StepRunner &steps,
                            std::optional<Step> only = {}) {
  steps.run(Step::Inline, only, m, [](llvm::Module &m) { ir::inlineMarkedCalls(m); });
  steps.run(Step::Cleanup, only, m, [&](llvm::Module &m) {
    if (info.opt > 0) // debug kernels keep their variables in memory, visible to a debugger
      ir::runCleanup(m, /*speculate=*/!info.sanitize);
  });
  steps.run(Step::Contract, only, m, [&](llvm::Module &m) {
    if (info.opt > 0) // at -opt=0 (opt=False, debug=True) NVVM fuses no multiply-adds
      ir::contractMultiplyAdds(m);
  });
}

} // namespace

ParsedModule::~ParsedModule() {
  constexpr size_t kDeepTree = 100; // (a few KiB of stack to free, wherever it is freed)
  if (!program)
    return;
  size_t deepest = 0;
  for (auto &scope : program->scopes())
    deepest = std::max(deepest, scope->module().deepestExpression);
  if (deepest > kDeepTree)
    runOnCompilerStack([&] { program.reset(); });
}

// The steps themselves, run on the compiler's stack by the functions of pipeline.h.
static std::shared_ptr<ParsedModule> parseKernelModuleHere(std::shared_ptr<const fe::SourceFile> file,
                                                           const PipelineOptions &opts,
                                                           const fe::HostBindings &host);
static std::shared_ptr<ParsedModule> parseHostUnitsHere(const std::vector<HostSource> &sources,
                                                        const PipelineOptions &opts);
static ir::KernelIR buildKernelIRHere(const ParsedModule &pm, const std::string &kernel,
                                      const std::vector<fe::Type> &argTypes, const PipelineOptions &opts);
static ir::KernelIR buildDeviceExportIRHere(const ParsedModule &pm, const std::string &function,
                                            const std::vector<fe::Type> &argTypes,
                                            std::optional<fe::Type> returnType, ir::ExportAbi abi,
                                            const std::string &name, const PipelineOptions &opts);

std::shared_ptr<ParsedModule> parseKernelModule(std::shared_ptr<const fe::SourceFile> file,
                                                const PipelineOptions &opts, const fe::HostBindings &host) {
  return onCompilerStack([&] { return parseKernelModuleHere(std::move(file), opts, host); });
}

static std::shared_ptr<ParsedModule> parseKernelModuleHere(std::shared_ptr<const fe::SourceFile> file,
                                                           const PipelineOptions &opts,
                                                           const fe::HostBindings &host) {
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

std::shared_ptr<ParsedModule> parseHostUnits(const std::vector<HostSource> &sources,
                                             const PipelineOptions &opts) {
  return onCompilerStack([&] { return parseHostUnitsHere(sources, opts); });
}

static std::shared_ptr<ParsedModule> parseHostUnitsHere(const std::vector<HostSource> &sources,
                                                        const PipelineOptions &opts) {
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

namespace {

/// How `spec` is lowered: @cuda.jit(boundscheck=..., sanitize=...) override the defaults.
ir::LowerOptions lowerOptions(const fe::FunctionSpec &spec, const PipelineOptions &opts) {
  ir::LowerOptions lo;
  lo.boundscheck = spec.options().boundscheck.value_or(opts.boundscheck);
  lo.sanitize = opts.sanitizers ? spec.options().sanitize.value_or(opts.sanitize) : 0;
  lo.debugInfo = opts.debugInfo;
  lo.lineDirectivesOnly = opts.lineDirectivesOnly;
  lo.debuggerView = opts.debuggerView;
  return lo;
}

} // namespace

ir::KernelIR buildKernelIR(const ParsedModule &pm, const std::string &kernel,
                           const std::vector<fe::Type> &argTypes, const PipelineOptions &opts) {
  return onCompilerStack([&] { return buildKernelIRHere(pm, kernel, argTypes, opts); });
}

static ir::KernelIR buildKernelIRHere(const ParsedModule &pm, const std::string &kernel,
                                      const std::vector<fe::Type> &argTypes, const PipelineOptions &opts) {
  StepRunner steps(opts);
  fe::Typer typer(*pm.program);
  const fe::FunctionSpec &spec = typer.typeKernel(kernel, argTypes);
  if (steps.dumps(Step::Type))
    dumpTypes(typer, steps.out());
  steps.finished(Step::Type);
  ir::KernelIR ir = ir::lowerKernel(typer, spec, lowerOptions(spec, opts));
  steps.finished(Step::Lower, ir.module.get());
  runFrontendModuleSteps(*ir.module, ir.info, steps);
  return ir;
}

ir::KernelIR buildDeviceExportIR(const ParsedModule &pm, const std::string &function,
                                 const std::vector<fe::Type> &argTypes, std::optional<fe::Type> returnType,
                                 ir::ExportAbi abi, const std::string &name, const PipelineOptions &opts) {
  return onCompilerStack([&] {
    return buildDeviceExportIRHere(pm, function, argTypes, std::move(returnType), abi, name, opts);
  });
}

static ir::KernelIR buildDeviceExportIRHere(const ParsedModule &pm, const std::string &function,
                                            const std::vector<fe::Type> &argTypes,
                                            std::optional<fe::Type> returnType, ir::ExportAbi abi,
                                            const std::string &name, const PipelineOptions &opts) {
  StepRunner steps(opts);
  fe::Typer typer(*pm.program);
  const fe::Symbol *sym = pm.scope().definedFunction(function);
  if (!sym || !sym->options.device)
    throw Error("module has no device function named '" + function + "'");
  if (argTypes.size() != sym->def->params.size())
    pm.scope().file().error(
        sym->loc, "device function '" + function + "' takes " + std::to_string(sym->def->params.size()) +
                      " arguments, but its signature has " + std::to_string(argTypes.size()));
  const fe::FunctionSpec &spec = typer.typeDeviceFunction(*sym, pm.scope().file(), argTypes, sym->loc);
  if (steps.dumps(Step::Type))
    dumpTypes(typer, steps.out());
  steps.finished(Step::Type);
  ir::KernelIR ir = ir::lowerDeviceExport(typer, spec, lowerOptions(spec, opts), abi, name,
                                          returnType.value_or(spec.returnType));
  steps.finished(Step::Lower, ir.module.get());
  runFrontendModuleSteps(*ir.module, ir.info, steps);
  return ir;
}

namespace {

/// What a backend step needs to know of the kernel, read from textual IR (`cutwin opt`):
/// the kernel is the first function of !cutwin.kernels; its parameters are laid out as
/// the argument ABI's C struct, but for the simulator's thread context (IR after sim-lower,
/// whose functions have the kernel-code attribute), which the argument buffer does not hold.
ir::KernelInfo kernelInfoFromModule(const llvm::Module &m, const PipelineOptions &opts) {
  ir::KernelInfo info;
  if (const llvm::NamedMDNode *md = m.getNamedMetadata("cutwin.kernels"); md && md->getNumOperands())
    if (auto *f = llvm::mdconst::dyn_extract_or_null<llvm::Function>(md->getOperand(0)->getOperand(0)))
      info.irName = f->getName().str();
  if (info.irName.empty())
    throw Error("the IR names no kernel: add !cutwin.kernels = !{!N} with !N = !{ptr @kernel}");
  info.name = info.irName.substr(0, info.irName.find("__"));
  info.boundscheck = opts.boundscheck;
  info.sanitize = opts.sanitize;
  const llvm::DataLayout &dl = m.getDataLayout();
  uint32_t offset = 0;
  for (const llvm::Argument &a : m.getFunction(info.irName)->args()) {
    if (a.getArgNo() == 0 && sim::takesThreadContext(*a.getParent()))
      continue;
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
  const StepInfo &step = stepInfo(stepNamed(name));
  opts.dumpAfter = {name};
  ir::KernelInfo info = kernelInfoFromModule(m, opts);
  StepRunner steps(opts);
  // By what the step prints, then by its stage: an IR step of a stage needs no case here.
  switch (step.output) {
  case StepOutput::Tree:
  case StepOutput::Scopes:
  case StepOutput::Types: throw Error("step '" + name + "' starts from Python source: use cutwin compile");
  case StepOutput::Note:
    if (step.id != Step::SimStack)
      throw Error("step '" + name + "' loads code into this process: use cutwin compile");
    steps.out() << sim::describe(sim::threadStack(m));
    return;
  case StepOutput::NvvmIR: gpu::printForNvvm(m, steps); return;
  case StepOutput::Ptx:
    if (opts.codegen == "nvvm")
      gpu::printPtx(gpu::ptxFromNvvm(m, gpu::printForNvvm(m, steps), info, opts, gpu::gpuTarget(info, arch)),
                    steps);
    else
      gpu::printPtx(gpu::emitPtx(m, gpu::gpuTarget(info, arch)), steps);
    return;
  case StepOutput::IR: break;
  }
  if (step.id == Step::Lower)
    throw Error("step '" + name + "' starts from Python source: use cutwin compile");
  switch (step.stage) {
  case StepStage::Frontend: runFrontendModuleSteps(m, info, steps, step.id); return;
  case StepStage::Sim: {
    sim::SimLoweringResult lowered;
    sim::runSimModuleSteps(m, info, opts, steps, lowered, step.id);
    return;
  }
  case StepStage::Nvvm: opts.codegen = "nvvm"; [[fallthrough]];
  case StepStage::Gpu:
  case StepStage::Nvptx: {
    gpu::GpuLoweringResult lowered;
    gpu::runGpuModuleSteps(m, info, opts, gpu::gpuTarget(info, arch), steps, lowered, step.id);
    return;
  }
  }
}

} // namespace cutwin::rt
