#include "frontend/ir/passes.h"

#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/ADCE.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

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

void runCleanup(llvm::Module &m) {
  llvm::PassBuilder pb;
  Analyses a(pb);
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  fpm.addPass(llvm::EarlyCSEPass());
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::SimplifyCFGPass());
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(m, a.mam);
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

void runOptimization(llvm::Module &m, llvm::TargetMachine *tm, int level) {
  llvm::PassBuilder pb(tm);
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
