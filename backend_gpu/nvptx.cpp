#include "backend_gpu/nvptx.h"

#include "cutwin/errors.h"
#include "frontend/ir/passes.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

namespace cutwin::gpu {

namespace {
constexpr const char *kTriple = "nvptx64-nvidia-cuda";

/// LLVM 16's NVPTX backend expands a float64 copysign into abs, neg and a select; on the
/// GPU those change the bits of a NaN, so libdevice's odd functions (asin, sinh, asinh,
/// atanh, erf) returned other NaNs than libNVVM's build, which keeps PTX's copysign (a
/// bit operation, as on the simulator). Emit that instruction.
void keepCopysignF64(llvm::Module &m) {
  std::vector<llvm::IntrinsicInst *> calls;
  for (llvm::Function &f : m)
    for (llvm::BasicBlock &bb : f)
      for (llvm::Instruction &i : bb)
        if (auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(&i))
          if (ii->getIntrinsicID() == llvm::Intrinsic::copysign && ii->getType()->isDoubleTy())
            calls.push_back(ii);
  for (llvm::IntrinsicInst *ii : calls) {
    llvm::IRBuilder<> b(ii);
    auto *d = b.getDoubleTy();
    // PTX: copysign.f64 d, a, b gives b's magnitude with a's sign
    auto *asmFn = llvm::InlineAsm::get(llvm::FunctionType::get(d, {d, d}, false), "copysign.f64 $0, $1, $2;",
                                       "=d,d,d", false);
    llvm::CallInst *r = b.CreateCall(asmFn, {ii->getArgOperand(1), ii->getArgOperand(0)});
    r->setDebugLoc(ii->getDebugLoc());
    ii->replaceAllUsesWith(r);
    ii->eraseFromParent();
  }
}

/// libdevice's __nv_fast_tanhf calls llvm.nvvm.tanh.approx.f32, which LLVM 16's NVPTX
/// backend does not know (it would emit a call to a function of that name): the PTX
/// instruction, as libNVVM emits it.
void lowerTanhApprox(llvm::Module &m) {
  llvm::Function *f = m.getFunction("llvm.nvvm.tanh.approx.f32");
  if (!f)
    return;
  std::vector<llvm::CallInst *> calls;
  for (llvm::User *u : f->users())
    if (auto *ci = llvm::dyn_cast<llvm::CallInst>(u); ci && ci->getCalledFunction() == f)
      calls.push_back(ci);
  for (llvm::CallInst *ci : calls) {
    llvm::IRBuilder<> b(ci);
    auto *t = b.getFloatTy();
    auto *asmFn = llvm::InlineAsm::get(llvm::FunctionType::get(t, {t}, false), "tanh.approx.f32 $0, $1;",
                                       "=f,f", false);
    llvm::CallInst *r = b.CreateCall(asmFn, {ci->getArgOperand(0)});
    r->setDebugLoc(ci->getDebugLoc());
    ci->replaceAllUsesWith(r);
    ci->eraseFromParent();
  }
  if (f->use_empty())
    f->eraseFromParent();
}
} // namespace

llvm::TargetMachine &nvptxTargetMachine(const GpuTarget &t) {
  // One per host thread: concurrent compiles cannot share a TargetMachine (it caches
  // state without a lock).
  thread_local std::map<std::string, std::unique_ptr<llvm::TargetMachine>> machines;
  static std::once_flag init;
  std::call_once(init, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::string key = t.arch + t.features;
  auto &tm = machines[key];
  if (!tm) {
    std::string err;
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(kTriple, err);
    if (!target)
      throw Error("NVPTX target unavailable in this LLVM: " + err);
    llvm::TargetOptions opts;
    opts.AllowFPOpFusion = llvm::FPOpFusion::Strict; // contraction is the frontend's decision
    tm.reset(target->createTargetMachine(kTriple, t.arch, t.features, opts, llvm::Reloc::PIC_, std::nullopt,
                                         llvm::CodeGenOpt::Aggressive));
  }
  return *tm;
}

void prepareModuleForNvptx(llvm::Module &m, const GpuTarget &t) {
  llvm::TargetMachine &tm = nvptxTargetMachine(t);
  m.setTargetTriple(kTriple);
  m.setDataLayout(tm.createDataLayout());
  m.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", t.ftz ? 1 : 0);
}

void optimizeForNvptx(llvm::Module &m, const GpuTarget &t, int level) {
  ir::runOptimization(m, &nvptxTargetMachine(t), level);
}

std::string emitPtx(llvm::Module &m, const GpuTarget &t) {
  llvm::TargetMachine &tm = nvptxTargetMachine(t);
  llvm::SmallString<0> buf;
  llvm::raw_svector_ostream os(buf);
  keepCopysignF64(m);
  lowerTanhApprox(m);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_AssemblyFile))
    throw Error("NVPTX backend cannot emit PTX");
  pm.run(m);
  return std::string(buf.str());
}

} // namespace cutwin::gpu
