#include "backend_sim/sim_pipeline.h"
#include "backend_sim/sim_image.h"

#include "backend_sim/address_spaces.h"
#include "backend_sim/canonical_nan.h"
#include "backend_sim/half_ops.h"
#include "backend_sim/half_to_int.h"
#include "backend_sim/jit.h"
#include "backend_sim/libdevice_cpu.h"
#include "backend_sim/sanitizer.h"
#include "backend_sim/shared_atomics.h"
#include "backend_sim/shared_raise.h"
#include "backend_sim/spin_poll.h"
#include "backend_sim/thread_context.h"
#include "backend_sim/vector_variants.h"
#include "backend_sim/watch_stores.h"
#include "cutwin/errors.h"
#include "frontend/ir/libdevice_link.h"
#include "frontend/ir/passes.h"
#include "frontend/ir/sanitize_checks.h"

#include <llvm/IR/Instructions.h>

#include <algorithm>
#include <ostream>

namespace cutwin::sim {

bool takesThreadContext(const llvm::Function &f) { return f.hasFnAttribute(kKernelCodeAttribute); }

ThreadStack threadStack(const llvm::Module &m) {
  ThreadStack s;
  for (const llvm::Function &f : m)
    for (const llvm::BasicBlock &bb : f)
      for (const llvm::Instruction &i : bb)
        if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&i))
          if (auto size = a->getAllocationSize(m.getDataLayout()))
            s.localBytes += size->getFixedValue();
  s.fiberBytes = size_t((32 * 1024 + s.localBytes + 4095) / 4096 * 4096);
  return s;
}

std::string describe(const ThreadStack &s) {
  return "# *** sim-stack: " + std::to_string(s.fiberBytes) + " bytes per fiber, " +
         std::to_string(s.localBytes) + " bytes of local arrays ***\n";
}

/// A function this large (instructions) compiles without the passes whose time grows faster
/// than its size (passes.h): a kernel of thousands of statements compiles in time linear in
/// them, its code a little less optimised.
constexpr unsigned kLargeFunction = 4000;

void runSimModuleSteps(llvm::Module &m, const ir::KernelInfo &info, const ir::PipelineOptions &opts,
                       ir::StepRunner &steps, SimLoweringResult &lowered, std::optional<ir::Step> only) {
  Jit &jit = Jit::get();
  steps.run(ir::Step::SimSpin, only, m, [](llvm::Module &m) { insertSpinPolls(m); });
  steps.run(ir::Step::SimLower, only, m, [&](llvm::Module &m) {
    lowered = lowerIntrinsicsForSim(m, info);
    m.setDataLayout(jit.dataLayout());
    m.setTargetTriple(jit.triple());
  });
  steps.run(ir::Step::SimSanitize, only, m, [&](llvm::Module &m) {
    if (info.sanitize || only == ir::Step::SimSanitize) // (alone: every check)
      lowered.accessSites =
          instrumentAccessesForSanitizer(m, info.sanitize ? info.sanitize : ir::kSanitizeAll);
  });
  steps.run(ir::Step::SimWatch, only, m, [&](llvm::Module &m) {
    if (info.debug || only == ir::Step::SimWatch) // (alone, in `cutwin opt`: whatever it is given)
      instrumentStoresForWatches(m);
  });
  steps.run(ir::Step::SimRegions, only, m, [&](llvm::Module &m) {
    if ((lowered.usesBarrier && opts.simRegions) || only == ir::Step::SimRegions) {
      lowered.regions = splitAtBarriers(m, info);
      if (steps.dumps(ir::Step::SimRegions))
        steps.out() << describe(lowered.regions);
    }
  });
  steps.run(ir::Step::SimLibdevice, only, m,
            [&](llvm::Module &m) { linkLibdeviceForCpu(m, ir::ReflectValues::forKernel(info.fastmath)); });
  steps.run(ir::Step::SimHalf, only, m, [](llvm::Module &m) { roundHalfFmaOnce(m); });
  steps.run(ir::Step::SimHalfToInt, only, m, [](llvm::Module &m) { convertHalfToIntThroughFloat(m); });
  steps.run(ir::Step::SimNan, only, m, [](llvm::Module &m) { applyGpuNanRules(m); });
  steps.run(ir::Step::SimStackProbes, only, m, [](llvm::Module &m) {
    for (llvm::Function &f : m)
      if (!f.isDeclaration())
        f.addFnAttr("probe-stack", "inline-asm");
  });
  steps.run(ir::Step::SimSharedRaise, only, m, [&](llvm::Module &m) {
    if (!info.debug || only == ir::Step::SimSharedRaise)
      shareRaiseCalls(m);
  });
  steps.run(ir::Step::SimSharedAtomics, only, m, [](llvm::Module &m) { plainSharedAtomics(m); });
  steps.run(ir::Step::SimAddressSpaces, only, m, [](llvm::Module &m) { markAddressSpaces(m); });
  // Without bounds checks (whose error exits keep a thread loop scalar) the loop may
  // vectorise through the host helpers' vector variants, its guard (`if i < n:`) split off
  // so that the vectorised loop needs no masks; with them, offering the variants only
  // lengthened compilation (other loops vectorised, +15-20 ms of JIT), and splitting the
  // loop copied its body thrice (+30 ms for a kernel calling four math functions).
  bool vectorVariants = !info.boundscheck;
  steps.run(ir::Step::SimVectorVariants, only, m, [&](llvm::Module &m) {
    if (vectorVariants)
      declareVectorVariants(m);
  });
  steps.run(ir::Step::SimOptimize, only, m, [&](llvm::Module &m) {
    ir::runOptimization(m, &jit.targetMachine(), std::min(opts.optLevel, info.opt),
                        /*splitRangeChecks=*/vectorVariants, kLargeFunction);
    // Under gdb the code generator keeps each line's instructions together, in order (at
    // -O0 code speed; the prompt's stepping needs no such thing: it steps by line events).
    if (info.debuggerView)
      for (llvm::Function &f : m)
        if (!f.isDeclaration() && f.getSubprogram()) {
          f.removeFnAttr(llvm::Attribute::AlwaysInline);
          f.addFnAttr(llvm::Attribute::NoInline);
          f.addFnAttr(llvm::Attribute::OptimizeNone);
        }
  });
  steps.run(ir::Step::SimVectorBodies, only, m, [&](llvm::Module &m) {
    if (vectorVariants)
      defineVectorVariants(m);
  });
}

SimProgram compileSimProgram(ir::KernelIR ir, const ForeignRequest &foreign, const ir::PipelineOptions &opts,
                             ir::StepRunner &steps, std::string *object) {
  using ir::Step;
  llvm::Module &m = *ir.module;
  SimLoweringResult lowered;
  runSimModuleSteps(m, ir.info, opts, steps, lowered);
  SimProgram out;
  out.fibers = lowered.usesBarrier;
  out.cooperative = lowered.usesGridSync;
  out.staticSharedBytes = lowered.staticSharedBytes;
  if (ir.info.sanitize) {
    auto s = std::make_shared<SanitizerProgram>();
    s->checks = ir.info.sanitize;
    s->sites = std::move(lowered.accessSites);
    s->sharedArrays = std::move(lowered.sharedArrays);
    s->staticSharedBytes = lowered.staticSharedBytes;
    s->foreignCode = !ir.info.foreign.empty() || !ir.info.link.empty();
    s->argNames = ir.info.argNames;
    s->layout = ir.info.layout;
    s->argTypes = ir.info.argTypes;
    out.sanitizer = std::move(s);
  }
  for (const llvm::GlobalVariable &g : m.globals())
    if (g.isConstant() && g.getName().contains(".const."))
      out.constBytes += m.getDataLayout().getTypeAllocSize(g.getValueType());

  ThreadStack stack = threadStack(m);
  out.localBytes = stack.localBytes + lowered.regions.localBytes;
  out.stackBytes = stack.fiberBytes;
  if (steps.dumps(Step::SimStack))
    steps.out() << describe(stack);
  steps.finished(Step::SimStack);

  std::map<std::string, uint64_t> externals;
  if (!foreign.functions.empty())
    externals = foreignFunctionsForCpu(foreign);
  if (steps.dumps(Step::SimForeign))
    steps.out() << "# *** sim-foreign: " << externals.size() << " foreign functions ***\n";
  steps.finished(Step::SimForeign);

  auto addrs = Jit::get().load(llvm::orc::ThreadSafeModule(std::move(ir.module), std::move(ir.context)),
                               entrySymbols(out.fibers, lowered.regions.split), externals, object);
  out.entry = addrs[0];
  if (lowered.regions.split) {
    out.regionsEntry = addrs[1];
    out.frameBytes = lowered.regions.frameBytes;
    out.regionSites = lowered.regions.sites;
    out.regionWarp = lowered.regions.warp;
  }
  if (!out.entry || (lowered.regions.split && !out.regionsEntry))
    throw Error("simulator JIT: entry point of '" + ir.info.name + "' not found");
  if (steps.dumps(Step::SimJit))
    steps.out() << "# *** sim-jit: " << ir.info.name << " loaded, entry at 0x" << std::hex << out.entry
                << std::dec << ", " << out.staticSharedBytes << " bytes static shared, "
                << (out.regionsEntry ? "regions between barriers"
                    : out.fibers     ? "fibers"
                                     : "thread loop")
                << " ***\n";
  steps.finished(Step::SimJit);
  return out;
}

std::vector<std::string> entrySymbols(bool fibers, bool split) {
  std::vector<std::string> out = {fibers ? kThreadEntry : kBlockEntry};
  if (split)
    out.push_back(kRegionsEntry);
  return out;
}

SimCompiled compiledFor(const ir::KernelInfo &info) {
  SimCompiled out;
  out.name = info.name;
  out.debug = info.debug;
  out.maxThreadsPerBlock = info.launchBounds.empty() ? 0 : unsigned(info.launchBounds[0]);
  out.breakpoints = info.breakpoints;
  out.sites = info.sites;
  return out;
}

SimCompiled compileForSim(ir::KernelIR ir, const ir::PipelineOptions &opts, std::string *image) {
  ir::StepRunner steps(opts);
  ForeignRequest foreign = foreignRequestOf(ir.info);
  SimCompiled out = compiledFor(ir.info);
  // Kept on disk: not debug kernels (the debugger's sites, gdb's view) nor sanitized ones
  // (the sanitizer's program is built with the code).
  bool keep = image && !ir.info.debug && !ir.info.sanitize;
  std::string object;
  SimProgram p = compileSimProgram(std::move(ir), foreign, opts, steps, keep ? &object : nullptr);
  (p.fibers ? out.threadEntry : out.blockEntry) = p.entry;
  out.staticSharedBytes = p.staticSharedBytes;
  out.constBytes = p.constBytes;
  out.stackBytes = p.stackBytes;
  out.localBytes = p.localBytes;
  out.cooperative = p.cooperative;
  out.regionsEntry = p.regionsEntry;
  out.frameBytes = p.frameBytes;
  out.regionSites = std::move(p.regionSites);
  out.regionWarp = std::move(p.regionWarp);
  out.sanitizer = std::move(p.sanitizer);
  if (keep && !object.empty())
    *image = simImage(out, object);
  return out;
}

} // namespace cutwin::sim
