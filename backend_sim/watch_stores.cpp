#include "backend_sim/watch_stores.h"

#include "backend_sim/breakpoints.h"
#include "backend_sim/host_callbacks.h"
#include "backend_sim/thread_context.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

namespace cutwin::sim {

using namespace llvm;

namespace {

/// The address and byte count `inst` writes, if it writes memory a watch may cover: not a
/// variable's slot (a scalar or tuple alloca; local arrays are array allocas), not the
/// thread context.
std::optional<std::pair<Value *, Value *>> watchedWrite(Instruction &inst, Value *ctx, const DataLayout &dl) {
  auto *i64 = Type::getInt64Ty(inst.getContext());
  Value *ptr = nullptr, *size = nullptr;
  if (auto *st = dyn_cast<StoreInst>(&inst)) {
    ptr = st->getPointerOperand();
    size = ConstantInt::get(i64, dl.getTypeStoreSize(st->getValueOperand()->getType()));
  } else if (auto *rmw = dyn_cast<AtomicRMWInst>(&inst)) {
    ptr = rmw->getPointerOperand();
    size = ConstantInt::get(i64, dl.getTypeStoreSize(rmw->getValOperand()->getType()));
  } else if (auto *cx = dyn_cast<AtomicCmpXchgInst>(&inst)) {
    ptr = cx->getPointerOperand();
    size = ConstantInt::get(i64, dl.getTypeStoreSize(cx->getNewValOperand()->getType()));
  } else if (auto *mi = dyn_cast<MemIntrinsic>(&inst)) {
    ptr = mi->getRawDest();
    size = mi->getLength();
  }
  if (!ptr)
    return std::nullopt;
  const Value *base = getUnderlyingObject(ptr);
  if (auto *a = dyn_cast<AllocaInst>(base); (a && !a->getAllocatedType()->isArrayTy()) || base == ctx)
    return std::nullopt;
  return std::make_pair(ptr, size);
}

} // namespace

void instrumentStoresForWatches(Module &m) {
  LLVMContext &c = m.getContext();
  auto *i8 = Type::getInt8Ty(c);
  auto *p = PointerType::get(c, 0);
  auto *i64 = Type::getInt64Ty(c);
  Function *report = declareHostCallback(m, HostCallback::WatchStore);
  auto *armed = cast<GlobalVariable>(m.getOrInsertGlobal(kDebugArmedSymbol, i8));
  for (Function &f : m) {
    if (f.isDeclaration() || f.getName() == kThreadEntry || f.getName() == kBlockEntry || f.arg_empty())
      continue;
    Value *ctx = f.getArg(0);
    std::vector<std::tuple<Instruction *, Value *, Value *>> writes;
    for (BasicBlock &bb : f) {
      if (&bb == &f.getEntryBlock())
        continue; // the slots' zero values and the debugger's frame record
      for (Instruction &inst : bb)
        if (auto w = watchedWrite(inst, ctx, m.getDataLayout()))
          writes.emplace_back(&inst, w->first, w->second);
    }
    for (auto &[inst, ptr, size] : writes) {
      IRBuilder<> b(inst->getNextNode());
      LoadInst *on = b.CreateLoad(i8, armed);
      on->setAtomic(AtomicOrdering::Monotonic);
      on->setAlignment(Align(1));
      Value *watching = b.CreateIsNotNull(b.CreateAnd(on, b.getInt8(kArmedWatches)));
      Instruction *then = SplitBlockAndInsertIfThen(watching, &*b.GetInsertPoint(), false);
      b.SetInsertPoint(then);
      b.CreateCall(report, {ctx, b.CreateAddrSpaceCast(ptr, p), b.CreateZExtOrTrunc(size, i64)})
          ->setDebugLoc(inst->getDebugLoc());
    }
  }
}

} // namespace cutwin::sim
