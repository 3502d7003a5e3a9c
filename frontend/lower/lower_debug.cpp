// Debug kernels' frames and stops (docs/debugging.md): each function keeps a frame record on
// the thread's debug stack (cutwin.debug.enter/leave) with the addresses of its variables,
// so that a debugger sees the calls of a stopped thread and the variables of threads
// waiting elsewhere; a stop (`cutwin.breakpoint`) comes at each statement's start, before
// each function returns, before every error raised (post-mortem) and at breakpoint().
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowerer.h"

#include <algorithm>

namespace cutwin::ir {

using namespace llvm;

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
    if (std::find(addresses.begin(), addresses.end(), slots_.at(name)) != addresses.end())
      continue; // a version of a variable listed already (its slot: lower_function.cpp)
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

} // namespace cutwin::ir
