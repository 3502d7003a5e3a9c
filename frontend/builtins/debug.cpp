// Debugging: breakpoint(), pdb.set_trace() and cuda.breakpoint(cond). In a kernel compiled
// for debugging (debug=True, or CUTWIN_DEBUG=1) each becomes a `cutwin.breakpoint` call
// passing the addresses of the function's variables, so a debugger can show and change
// them where the thread stopped (docs/debugging.md); otherwise it compiles to nothing.
// The same stop comes before every error a debug kernel raises (post-mortem: raiseNow); at
// each statement's start one stops a thread being stepped or at a line breakpoint, and one
// before each function returns. Each function of a debug kernel keeps a frame record on
// the thread's debug stack (cutwin.debug.enter/leave), so that a debugger sees the calls
// of a stopped thread and the variables of threads waiting elsewhere.
#include "frontend/builtins/builtin.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowerer.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace {
enum class DebugOp : unsigned { Breakpoint, SetTrace, CudaBreakpoint };
}

namespace fe {

ExprInfo typeDebugBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                          const Builtin &b);

std::span<const Builtin> debugBuiltins() {
  auto row = [](const char *name, DebugOp op) {
    return Builtin{name, unsigned(op), &typeDebugBuiltin, &ir::Lowerer::lowerDebugBuiltin};
  };
  static const Builtin table[] = {
      row("builtins.breakpoint", DebugOp::Breakpoint),
      row("pdb.set_trace", DebugOp::SetTrace),
      row("cuda.breakpoint", DebugOp::CudaBreakpoint),
  };
  return table;
}

ExprInfo typeDebugBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                          const Builtin &b) {
  switch (DebugOp(b.op)) {
  case DebugOp::Breakpoint:
  case DebugOp::SetTrace: cx.checkArity(c, b.name, args.size(), 0, 0); break;
  case DebugOp::CudaBreakpoint: // cuda.breakpoint(cond): stops where cond is true
    cx.checkArity(c, b.name, args.size(), 0, 1);
    if (!args.empty())
      cx.checkTruthTestable(args[0].type, c.args[0]->loc);
    break;
  }
  ExprInfo info;
  info.type = Type::none();
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *Lowerer::lowerDebugBuiltin(const fe::CallExpr &c, const fe::ExprInfo &) {
  if (!out_.info.debug)
    return nullptr; // not compiled for debugging: no stop (the runtime warns)
  Value *cond = nullptr;
  if (!c.args.empty())
    cond = truth(lowerExpr(*c.args[0]), info(*c.args[0]).type);
  setLoc(c.loc);
  BasicBlock *after = nullptr;
  if (cond) {
    BasicBlock *stop = BasicBlock::Create(ctx_, "breakpoint", fn_);
    after = BasicBlock::Create(ctx_, "breakpoint.after", fn_);
    b_.CreateCondBr(cond, stop, after);
    b_.SetInsertPoint(stop);
  }
  stopHere(c.loc, "");
  if (cond) {
    b_.CreateBr(after);
    b_.SetInsertPoint(after);
  }
  return nullptr;
}

void Lowerer::stopHere(SourceLoc loc, const std::string &reason, StopKind kind) {
  if (!debugFrame_)
    throw Error("internal error: a debugger stop outside a debug function's body");
  out_.info.breakpoints.push_back({loc, spec_->file().path(), spec_->def->name, debugLocals_, reason, kind});
  unsigned index = unsigned(out_.info.breakpoints.size() - 1);
  b_.CreateCall(getIntrinsic(mod_, Intrinsic::Breakpoint), {b_.getInt32(index), debugFrame_});
}

void Lowerer::lineEvent(SourceLoc loc) {
  // Each statement starts a block of its own: at -O0 the code generator puts the constants
  // a block uses at its top, and this statement's would land amid the previous one's lines
  // (gdb's breakpoint on this line would then stop before the previous line ran).
  if (!terminated()) {
    auto *line = BasicBlock::Create(ctx_, "line", fn_);
    b_.CreateBr(line);
    b_.SetInsertPoint(line);
  }
  // The frame's current site, then the event: a thread waiting elsewhere shows this line,
  // and callers' frames show the line of their call.
  b_.CreateStore(b_.getInt32(unsigned(out_.info.breakpoints.size())),
                 b_.CreateStructGEP(debugFrame_->getAllocatedType(), debugFrame_, 2));
  stopHere(loc, "", StopKind::Line);
}

void Lowerer::enterDebugFrame() {
  // Every variable of this function with a value in memory (its slots exist from the start),
  // and the return value as `__return__`; their addresses, filled once at entry.
  auto locals = std::make_shared<std::vector<DebugLocal>>();
  std::vector<Value *> addresses;
  auto shown = [](const fe::Type &t) { return t.isScalar() || (t.isArray() && !t.isRecordArray()); };
  for (const auto &[name, type] : spec_->locals) {
    if (!shown(type) || !slots_.count(name))
      continue;
    locals->push_back({name, type});
    addresses.push_back(slots_.at(name));
  }
  if (retSlot_ && shown(spec_->returnType)) {
    locals->push_back({"__return__", spec_->returnType});
    addresses.push_back(retSlot_);
  }
  debugLocals_ = std::move(locals);
  auto *ptr = PointerType::get(ctx_, 0);
  auto *i32 = llvm::Type::getInt32Ty(ctx_);
  AllocaInst *variables =
      entryAlloca(ArrayType::get(ptr, std::max<size_t>(addresses.size(), 1)), "debug.variables");
  debugFrame_ = entryAlloca(StructType::get(ctx_, {ptr, ptr, i32}), "debug.frame");
  IRBuilder<> eb(allocaBlock_);
  for (size_t k = 0; k < addresses.size(); ++k)
    eb.CreateStore(eb.CreateAddrSpaceCast(addresses[k], ptr),
                   eb.CreateConstInBoundsGEP2_32(variables->getAllocatedType(), variables, 0, unsigned(k)));
  auto *frameTy = debugFrame_->getAllocatedType();
  eb.CreateStore(ConstantPointerNull::get(ptr), eb.CreateStructGEP(frameTy, debugFrame_, 0));
  eb.CreateStore(variables, eb.CreateStructGEP(frameTy, debugFrame_, 1));
  eb.CreateStore(eb.getInt32(UINT32_MAX), eb.CreateStructGEP(frameTy, debugFrame_, 2)); // no statement yet
  b_.CreateCall(getIntrinsic(mod_, Intrinsic::DebugEnter), {debugFrame_});
}

void Lowerer::leaveDebugFrame() {
  stopHere(spec_->def->loc, "", StopKind::Return); // `finish` and steps past the last line stop here
  b_.CreateCall(getIntrinsic(mod_, Intrinsic::DebugLeave), {debugFrame_});
}

} // namespace ir
} // namespace cutwin
