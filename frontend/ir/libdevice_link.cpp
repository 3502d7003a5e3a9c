#include "frontend/ir/libdevice_link.h"

#include "cutwin/errors.h"
#include "frontend/ir/file_identity.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstdlib>
#include <mutex>
#include <sys/stat.h>
#include <vector>

#ifndef CUTWIN_LIBDEVICE_PATH
#define CUTWIN_LIBDEVICE_PATH "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
#endif

namespace cutwin::ir {

std::string libdevicePath() {
  if (const char *p = std::getenv("CUTWIN_LIBDEVICE"))
    return p;
  return CUTWIN_LIBDEVICE_PATH;
}

std::string libdeviceIdentity() { return fileIdentity(libdevicePath()); }

const llvm::MemoryBuffer &libdeviceBitcode() {
  static std::once_flag once;
  static std::unique_ptr<llvm::MemoryBuffer> buf;
  static std::string error;
  std::call_once(once, [] {
    auto b = llvm::MemoryBuffer::getFile(libdevicePath());
    if (b)
      buf = std::move(*b);
    else
      error = b.getError().message();
  });
  if (!buf)
    throw Error(
        "cannot read libdevice from '" + libdevicePath() + "' (" + error +
        "); install a CUDA toolkit or NVIDIA's nvidia-nvvm package (pip install cutwin[cu13]), or set "
        "CUTWIN_LIBDEVICE to a toolkit's nvvm/libdevice/libdevice.10.bc");
  return *buf;
}

namespace {

/// Replaces each __nvvm_reflect call in `f` by its answer.
void resolveReflect(llvm::Function &f, const ReflectValues &v) {
  std::vector<llvm::CallInst *> calls;
  for (llvm::BasicBlock &bb : f)
    for (llvm::Instruction &i : bb)
      if (auto *ci = llvm::dyn_cast<llvm::CallInst>(&i))
        if (llvm::Function *callee = ci->getCalledFunction(); callee && callee->getName() == "__nvvm_reflect")
          calls.push_back(ci);
  for (llvm::CallInst *ci : calls) {
    int value = 0;
    llvm::Value *arg = ci->getArgOperand(0)->stripPointerCasts();
    if (auto *gv = llvm::dyn_cast<llvm::GlobalVariable>(arg))
      if (auto *init = llvm::dyn_cast_or_null<llvm::ConstantDataSequential>(gv->getInitializer())) {
        llvm::StringRef key = init->getAsCString();
        if (key == "__CUDA_FTZ")
          value = v.ftz;
        else if (key == "__CUDA_PREC_SQRT")
          value = v.precSqrt;
        else if (key == "__CUDA_ARCH")
          value = int(v.arch);
      }
    ci->replaceAllUsesWith(llvm::ConstantInt::get(ci->getType(), value));
    ci->eraseFromParent();
  }
}

/// PTX's meaning of shifts and nvvm.round (libdevice_link.h).
void givePtxMeaning(llvm::Function &f) {
  using namespace llvm;
  std::vector<CallInst *> rounds;
  std::vector<BinaryOperator *> shifts;
  for (BasicBlock &bb : f)
    for (Instruction &i : bb) {
      if (auto *bo = dyn_cast<BinaryOperator>(&i); bo && bo->isShift() && !isa<Constant>(bo->getOperand(1)))
        shifts.push_back(bo);
      if (auto *ci = dyn_cast<CallInst>(&i))
        if (Function *callee = ci->getCalledFunction();
            callee && callee->getName().startswith("llvm.nvvm.round."))
          rounds.push_back(ci);
    }
  for (BinaryOperator *sh : shifts) {
    IRBuilder<> b(sh->getNextNode());
    Type *t = sh->getType();
    unsigned width = t->getScalarSizeInBits();
    Value *x = sh->getOperand(0), *amt = sh->getOperand(1);
    Value *wide = b.CreateICmpUGE(amt, ConstantInt::get(t, width));
    Value *clamped = sh->getOpcode() == Instruction::AShr ? b.CreateAShr(x, ConstantInt::get(t, width - 1))
                                                          : ConstantInt::get(t, 0);
    auto *sel = cast<Instruction>(b.CreateSelect(wide, clamped, sh));
    sh->replaceUsesWithIf(sel, [&](Use &u) { return u.getUser() != sel; });
    sh->setOperand(1, b.CreateAnd(amt, ConstantInt::get(t, width - 1))); // defined where used
    cast<Instruction>(sh->getOperand(1))->moveBefore(sh);
  }
  for (CallInst *ci : rounds) {
    IRBuilder<> b(ci);
    ci->replaceAllUsesWith(b.CreateUnaryIntrinsic(Intrinsic::rint, ci->getArgOperand(0)));
    ci->eraseFromParent();
  }
}

} // namespace

std::set<std::string> linkLibdevice(llvm::Module &m, const ReflectValues &reflect) {
  bool needed = false;
  std::set<std::string> before;
  for (llvm::Function &f : m) {
    if (f.isDeclaration() && f.getName().startswith("__nv_"))
      needed = true;
    if (!f.isDeclaration())
      before.insert(f.getName().str());
  }
  if (!needed)
    return {};
  auto lib = llvm::getLazyBitcodeModule(libdeviceBitcode().getMemBufferRef(), m.getContext());
  if (!lib)
    throw Error("cannot read libdevice: " + llvm::toString(lib.takeError()));
  (*lib)->setDataLayout(m.getDataLayout());
  (*lib)->setTargetTriple(m.getTargetTriple());
  if (llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded))
    throw Error("linking libdevice failed");
  std::set<std::string> added;
  for (llvm::Function &f : m)
    if (!f.isDeclaration() && !before.count(f.getName().str())) {
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
      added.insert(f.getName().str());
      resolveReflect(f, reflect);
      givePtxMeaning(f);
    }
  for (llvm::GlobalVariable &g : m.globals())
    if (!g.isDeclaration() && g.hasExternalLinkage() && g.getName().startswith("__cudart"))
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
  return added;
}

} // namespace cutwin::ir
