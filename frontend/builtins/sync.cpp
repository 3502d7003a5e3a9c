// Synchronisation: block barriers and block votes, grid groups, memory fences, nanosleep.
#include "frontend/builtins/builtin.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerSyncBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {
enum class SyncOp : unsigned {
  Syncthreads,
  SyncthreadsCount,
  SyncthreadsAnd,
  SyncthreadsOr,
  ThisGrid,
  GridSync,
  FenceBlock,
  FenceDevice,
  FenceSystem,
  Nanosleep,
};
} // namespace

namespace fe {

ExprInfo typeSyncBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                         const Builtin &b);

std::span<const Builtin> syncBuiltins() {
  auto row = [](const char *name, SyncOp op) {
    return Builtin{name, unsigned(op), &typeSyncBuiltin, &ir::lowerSyncBuiltin};
  };
  static const Builtin table[] = {
      row("cuda.syncthreads", SyncOp::Syncthreads),
      row("cuda.syncthreads_count", SyncOp::SyncthreadsCount),
      row("cuda.syncthreads_and", SyncOp::SyncthreadsAnd),
      row("cuda.syncthreads_or", SyncOp::SyncthreadsOr),
      row("cuda.cg.this_grid", SyncOp::ThisGrid),
      row("cuda.cg.grid_group.sync", SyncOp::GridSync),
      row("cuda.threadfence_block", SyncOp::FenceBlock),
      row("cuda.threadfence", SyncOp::FenceDevice),
      row("cuda.threadfence_system", SyncOp::FenceSystem),
      row("cuda.nanosleep", SyncOp::Nanosleep),
  };
  return table;
}

ExprInfo typeSyncBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                         const Builtin &b) {
  ExprInfo info;
  info.type = Type::none();
  switch (SyncOp(b.op)) {
  case SyncOp::Syncthreads:
  case SyncOp::GridSync:
  case SyncOp::FenceBlock:
  case SyncOp::FenceDevice:
  case SyncOp::FenceSystem: cx.checkArity(c, b.name, args.size(), 0, 0); return info;
  case SyncOp::ThisGrid:
    cx.checkArity(c, b.name, args.size(), 0, 0);
    info.type = Type::named(TypeKind::Module, "cuda.cg.grid_group");
    return info;
  case SyncOp::SyncthreadsCount:
  case SyncOp::SyncthreadsAnd:
  case SyncOp::SyncthreadsOr: {
    // numba: the block's count of true predicates (int32), or whether all / any are true
    // (int32 0 or 1, as CUDA's __syncthreads_and/or).
    cx.checkArity(c, b.name, args.size(), 1, 1);
    auto actual = cx.scalarArgs(c, args, b.name);
    if (isComplex(actual[0]))
      cx.error(c.loc, std::string(b.name) + "() takes a number as its predicate");
    info.type = Type::scalarOf(Scalar::I32);
    info.operandTypes = {actual[0]};
    return info;
  }
  case SyncOp::Nanosleep: {
    cx.checkArity(c, b.name, args.size(), 1, 1);
    auto actual = cx.scalarArgs(c, args, b.name);
    if (!isInteger(actual[0]) && actual[0] != Scalar::Bool)
      cx.error(c.loc, "cuda.nanosleep() takes an integer number of nanoseconds");
    info.operandTypes = {Scalar::U32};
    return info;
  }
  }
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *lowerSyncBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  auto *i32 = llvm::Type::getInt32Ty(cx.context());
  SyncOp op = SyncOp(ci.function->op);
  switch (op) {
  case SyncOp::Syncthreads:
    irb.CreateCall(getIntrinsic(cx.module(), Intrinsic::Barrier),
                   {ConstantInt::get(i32, cx.site(c.loc, "barrier"))});
    return nullptr;
  case SyncOp::ThisGrid:
    return ConstantStruct::get(StructType::get(cx.context())); // a grid group carries nothing
  case SyncOp::GridSync:
    irb.CreateCall(getIntrinsic(cx.module(), Intrinsic::GridSync),
                   {ConstantInt::get(i32, cx.site(c.loc, "grid barrier"))});
    return nullptr;
  case SyncOp::SyncthreadsCount:
  case SyncOp::SyncthreadsAnd:
  case SyncOp::SyncthreadsOr: {
    // Three barriers around a shared counter of this call site: thread (0,0,0) clears it,
    // every thread adds its predicate, every thread reads the sum. Exact on both backends
    // (the next such call clears only after every thread has passed its own first barrier).
    Value *pred = cx.truth(cx.lowerExpr(*c.args[0]), cx.info(*c.args[0]).type);
    GlobalVariable *counter = cx.newSharedVariable(i32, "block_vote");
    counter->setAlignment(Align(4));
    unsigned id = cx.site(c.loc, "barrier");
    auto barrier = [&] {
      irb.CreateCall(getIntrinsic(cx.module(), Intrinsic::Barrier), {ConstantInt::get(i32, id)});
    };
    cx.setLoc(c.loc);
    barrier();
    Value *first = irb.CreateIsNull(irb.CreateOr(irb.CreateOr(cx.specialRegister(fe::Access::ThreadIdx, 0),
                                                              cx.specialRegister(fe::Access::ThreadIdx, 1)),
                                                 cx.specialRegister(fe::Access::ThreadIdx, 2)));
    auto *clear = BasicBlock::Create(cx.context(), "vote.clear", &cx.function());
    auto *cont = BasicBlock::Create(cx.context(), "vote.add", &cx.function());
    irb.CreateCondBr(first, clear, cont);
    irb.SetInsertPoint(clear);
    irb.CreateStore(ConstantInt::get(i32, 0), counter);
    irb.CreateBr(cont);
    irb.SetInsertPoint(cont);
    barrier();
    irb.CreateAtomicRMW(AtomicRMWInst::Add, counter, irb.CreateZExt(pred, i32), MaybeAlign(4),
                        AtomicOrdering::Monotonic);
    barrier();
    Value *count = irb.CreateLoad(i32, counter);
    if (op == SyncOp::SyncthreadsCount)
      return count;
    if (op == SyncOp::SyncthreadsOr)
      return irb.CreateZExt(irb.CreateICmpNE(count, ConstantInt::get(i32, 0)), i32);
    Value *threads = irb.CreateMul(irb.CreateMul(cx.specialRegister(fe::Access::BlockDim, 0),
                                                 cx.specialRegister(fe::Access::BlockDim, 1)),
                                   cx.specialRegister(fe::Access::BlockDim, 2));
    return irb.CreateZExt(irb.CreateICmpEQ(count, threads), i32);
  }
  case SyncOp::FenceBlock:
  case SyncOp::FenceDevice:
  case SyncOp::FenceSystem: {
    // The scope travels as the fence's sync scope ("block", "device", "system"); the GPU
    // backend turns it into membar.cta/gl/sys, the CPU into its ordinary fence.
    const char *scope = op == SyncOp::FenceBlock ? "block" : op == SyncOp::FenceDevice ? "device" : "system";
    irb.CreateFence(AtomicOrdering::SequentiallyConsistent, cx.context().getOrInsertSyncScopeID(scope));
    return nullptr;
  }
  case SyncOp::Nanosleep:
    irb.CreateCall(getIntrinsic(cx.module(), Intrinsic::Nanosleep),
                   {cx.lowerAs(*c.args[0], Type::scalarOf(Scalar::U32))});
    return nullptr;
  }
  return nullptr;
}

} // namespace ir
} // namespace cutwin
