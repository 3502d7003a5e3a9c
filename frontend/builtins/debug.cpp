// Debugging: breakpoint(), pdb.set_trace() and cuda.breakpoint(cond). In a kernel compiled
// for debugging (debug=True, or CUTWIN_DEBUG=1) each becomes a `cutwin.breakpoint` call
// passing the addresses of the function's variables, so a debugger can show and change
// them where the thread stopped (docs/debugging.md); otherwise it compiles to nothing.
// The stop and the function's frame record it passes are the lowering's
// (frontend/lower/lower_debug.cpp), which makes the same stop at each statement, before
// each return and before every error a debug kernel raises.
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerDebugBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {
enum class DebugOp : unsigned { Breakpoint, SetTrace, CudaBreakpoint };
}

namespace fe {

ExprInfo typeDebugBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                          const Builtin &b);

std::span<const Builtin> debugBuiltins() {
  auto row = [](const char *name, DebugOp op) {
    return Builtin{name, unsigned(op), &typeDebugBuiltin, &ir::lowerDebugBuiltin};
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

Value *lowerDebugBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &) {
  IRBuilder<> &irb = cx.builder();
  if (!cx.kernelInfo().debug)
    return nullptr; // not compiled for debugging: no stop (the runtime warns)
  Value *cond = nullptr;
  if (!c.args.empty())
    cond = cx.truth(cx.lowerExpr(*c.args[0]), cx.info(*c.args[0]).type);
  cx.setLoc(c.loc);
  BasicBlock *after = nullptr;
  if (cond) {
    BasicBlock *stop = BasicBlock::Create(cx.context(), "breakpoint", &cx.function());
    after = BasicBlock::Create(cx.context(), "breakpoint.after", &cx.function());
    irb.CreateCondBr(cond, stop, after);
    irb.SetInsertPoint(stop);
  }
  cx.stopHere(c.loc, "");
  if (cond) {
    irb.CreateBr(after);
    irb.SetInsertPoint(after);
  }
  return nullptr;
}

} // namespace ir
} // namespace cutwin
