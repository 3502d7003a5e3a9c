#include "frontend/ir/passes.h"

#include "frontend/ir/version_split_checks.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/ADCE.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/InductiveRangeCheckElimination.h>
#include <llvm/Transforms/Scalar/LICM.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimpleLoopUnswitch.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

#include <vector>

namespace cutwin::ir {

namespace {
struct Analyses {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  explicit Analyses(llvm::PassBuilder &pb) {
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
  }
};
} // namespace

void runCleanup(llvm::Module &m, bool speculate) {
  llvm::PassBuilder pb;
  Analyses a(pb);
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  fpm.addPass(llvm::EarlyCSEPass());
  fpm.addPass(llvm::InstCombinePass());
  if (speculate) // (after sim-sanitize's calls the optimiser cannot move a block's loads out of it)
    fpm.addPass(llvm::SimplifyCFGPass());
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(m, a.mam);
}

void hoistLoopInvariants(llvm::Module &m) {
  llvm::PassBuilder pb;
  Analyses a(pb);
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::LICMPass(llvm::LICMOptions()), true));
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(m, a.mam);
}

namespace {

/// Rebuilds constant aggregate `agg` (e.g. an array value {ptr @shared, shape, strides}
/// passed to a device function) with insertvalue/insertelement before `before`.
llvm::Value *buildAggregate(llvm::ConstantAggregate *agg, llvm::Instruction *before) {
  llvm::Value *v = llvm::PoisonValue::get(agg->getType());
  auto *i32 = llvm::Type::getInt32Ty(agg->getContext());
  for (unsigned i = 0; i < agg->getNumOperands(); ++i) {
    if (llvm::isa<llvm::VectorType>(agg->getType()))
      v = llvm::InsertElementInst::Create(v, agg->getOperand(i), llvm::ConstantInt::get(i32, i), "", before);
    else
      v = llvm::InsertValueInst::Create(v, agg->getOperand(i), {i}, "", before);
  }
  return v;
}

/// Instruction users of a constant aggregate get it built in place instead.
void expandAggregateUsers(llvm::ConstantAggregate *agg) {
  expandConstantUsers(agg);
  std::vector<llvm::User *> users(agg->user_begin(), agg->user_end());
  for (llvm::User *u : users) {
    auto *inst = llvm::dyn_cast<llvm::Instruction>(u);
    if (!inst)
      continue;
    if (auto *phi = llvm::dyn_cast<llvm::PHINode>(inst)) {
      for (unsigned i = 0; i < phi->getNumIncomingValues(); ++i)
        if (phi->getIncomingValue(i) == agg)
          phi->setIncomingValue(i, buildAggregate(agg, phi->getIncomingBlock(i)->getTerminator()));
      continue;
    }
    inst->replaceUsesOfWith(agg, buildAggregate(agg, inst));
  }
}

} // namespace

void expandConstantUsers(llvm::Constant *c) {
  std::vector<llvm::User *> users(c->user_begin(), c->user_end());
  for (llvm::User *u : users) {
    if (auto *agg = llvm::dyn_cast<llvm::ConstantAggregate>(u)) {
      expandAggregateUsers(agg);
      continue;
    }
    auto *ce = llvm::dyn_cast<llvm::ConstantExpr>(u);
    if (!ce)
      continue;
    expandConstantUsers(ce);
    std::vector<llvm::User *> ceUsers(ce->user_begin(), ce->user_end());
    for (llvm::User *cu : ceUsers) {
      auto *inst = llvm::dyn_cast<llvm::Instruction>(cu);
      if (!inst)
        continue;
      if (auto *phi = llvm::dyn_cast<llvm::PHINode>(inst)) {
        for (unsigned i = 0; i < phi->getNumIncomingValues(); ++i)
          if (phi->getIncomingValue(i) == ce)
            phi->setIncomingValue(i, ce->getAsInstruction(phi->getIncomingBlock(i)->getTerminator()));
        continue;
      }
      inst->replaceUsesOfWith(ce, ce->getAsInstruction(inst));
    }
  }
}

void simplifyFunction(llvm::Function &f) {
  llvm::PassBuilder pb;
  Analyses a(pb);
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::SimplifyCFGPass());
  fpm.addPass(llvm::ADCEPass());
  fpm.run(f, a.fam);
}

namespace {
/// The function a pass is about to run on (a loop's), if it runs on one.
const llvm::Function *functionOf(const llvm::Any &ir) {
  if (const auto *f = llvm::any_cast<const llvm::Function *>(&ir))
    return *f;
  if (const auto *l = llvm::any_cast<const llvm::Loop *>(&ir))
    return (*l)->getHeader()->getParent();
  return nullptr;
}
} // namespace

void runOptimization(llvm::Module &m, llvm::TargetMachine *tm, int level, bool splitRangeChecks,
                     unsigned largeFunction) {
  llvm::PassInstrumentationCallbacks instrumentation;
  instrumentation.registerShouldRunOptionalPassCallback([largeFunction](llvm::StringRef pass, llvm::Any ir) {
    const llvm::Function *f = functionOf(ir);
    if (!f)
      return true;
    // LoopSink sinks only by profile data, which kernels have none of, yet computes
    // block frequencies and MemorySSA for every function with a loop first: 4.5x per
    // doubling of a 100,000-instruction thread loop, for nothing.
    if (pass == "LoopSinkPass")
      return f->hasProfileData();
    // IndVarSimplify proves each exit of a loop against every exit that dominates it
    // (SCEV's isBasicBlockEntryGuardedByCond): quadratic in a loop of thousands of
    // blocks. Such loops keep their induction variables as they are, and are not
    // vectorised (the vectoriser's analysis of a loop of 100,000 instructions grows
    // faster than it: 4.6x per doubling), nor unswitched (which analyses it all).
    if (largeFunction &&
        (pass == "IndVarSimplifyPass" || pass == "LoopVectorizePass" || pass == "SimpleLoopUnswitchPass"))
      return f->getInstructionCount() < largeFunction;
    return true;
  });
  llvm::PipelineTuningOptions tuning;
  tuning.CallGraphProfile = false; // call counts for a linker's section order: none here (and
                                   // superlinear in a function's calls)
  llvm::PassBuilder pb(tm, tuning, std::nullopt, &instrumentation);
  if (tm)
    tm->registerPassBuilderCallbacks(pb); // the target's own IR passes (NVPTX: NVVM reflection)
  if (splitRangeChecks && level >= 2) {
    // IRCE splits only where profile data says the checks pass; kernels have none, and a
    // thread loop's guard passes for all but the last block's extra threads.
    static const bool unconditional = [] {
      auto &options = llvm::cl::getRegisteredOptions();
      auto it = options.find("irce-skip-profitability-checks");
      if (it == options.end())
        return false;
      static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(true);
      return true;
    }();
    if (unconditional)
      pb.registerScalarOptimizerLateEPCallback([](llvm::FunctionPassManager &fpm, llvm::OptimizationLevel) {
        fpm.addPass(llvm::IRCEPass());
        fpm.addPass(VersionSplitChecksPass()); // (the loops IRCE cloned keep their checks)
      });
    // A thread loop whose body branches on a value the same for every thread (a barrier
    // kernel's region: `while stride > 0` around `if t < stride`, sim-regions' leader
    // copies) becomes one loop per side, so that IRCE can split the side it is left with.
    pb.registerLateLoopOptimizationsEPCallback([](llvm::LoopPassManager &lpm, llvm::OptimizationLevel) {
      lpm.addPass(llvm::SimpleLoopUnswitchPass(/*NonTrivial=*/true));
    });
  }
  Analyses a(pb);
  llvm::OptimizationLevel ol = level <= 0   ? llvm::OptimizationLevel::O0
                               : level == 1 ? llvm::OptimizationLevel::O1
                               : level == 2 ? llvm::OptimizationLevel::O2
                                            : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm =
      level <= 0 ? pb.buildO0DefaultPipeline(ol) : pb.buildPerModuleDefaultPipeline(ol);
  mpm.run(m, a.mam);
}

} // namespace cutwin::ir
