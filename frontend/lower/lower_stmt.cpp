// Lowering of statements (assignments, if, while, for, return, assert, raise) and of the
// errors a kernel raises: a cold block that records the error and ends the thread.
#include "frontend/lower/lowerer.h"

#include "frontend/ir/intrinsics.h"

#include <llvm/IR/MDBuilder.h>

#include <functional>

namespace cutwin::ir {

using namespace llvm;
using fe::TypeKind;

void Lowerer::lowerBlock(const fe::Block &blk) {
  for (auto &s : blk) {
    ensureInsertable();
    lowerStmt(*s);
    if (auto k = spec_->constantBranches.find(s.get()); k != spec_->constantBranches.end() && terminated())
      return; // a pruned if that returned: the rest is unreachable (and not typed)
  }
}

void Lowerer::lowerStmt(const fe::Stmt &s) {
  setLoc(s.loc);
  if (out_.info.debug && !terminated()) // a line event: stepping and line breakpoints stop here
    lineEvent(s.loc);
  switch (s.kind) {
  case fe::StmtKind::Expr: {
    auto &e = static_cast<const fe::ExprStmt &>(s);
    if (auto *c = fe::dyn<fe::ConstantExpr>(e.value.get()); c && c->type == fe::ConstantExpr::Type::Str)
      return;
    lowerExpr(*e.value);
    return;
  }
  case fe::StmtKind::Assign: {
    auto &a = static_cast<const fe::AssignStmt &>(s);
    const Type &vt = info(*a.value).type;
    if (vt.kind == fe::TypeKind::String && info(*a.value).constant) { // into NumPy strings (records)
      for (auto &t : a.targets)
        if (t->kind != fe::ExprKind::Name)
          storeString(*t, info(*a.value).constant->s);
      return;
    }
    Value *v = lowerExpr(*a.value);
    for (auto &t : a.targets)
      lowerAssign(*t, v, vt);
    return;
  }
  case fe::StmtKind::AnnAssign: {
    auto &a = static_cast<const fe::AnnAssignStmt &>(s);
    if (a.value)
      lowerAssign(*a.target, lowerExpr(*a.value), info(*a.value).type);
    return;
  }
  case fe::StmtKind::AugAssign: return lowerAugAssign(static_cast<const fe::AugAssignStmt &>(s));
  case fe::StmtKind::If: return lowerIf(static_cast<const fe::IfStmt &>(s));
  case fe::StmtKind::While: return lowerWhile(static_cast<const fe::WhileStmt &>(s));
  case fe::StmtKind::For: return lowerFor(static_cast<const fe::ForStmt &>(s));
  case fe::StmtKind::Break: b_.CreateBr(loops_.back().breakTo); return;
  case fe::StmtKind::Continue: b_.CreateBr(loops_.back().continueTo); return;
  case fe::StmtKind::Return: return lowerReturn(static_cast<const fe::ReturnStmt &>(s));
  case fe::StmtKind::Assert: return lowerAssert(static_cast<const fe::AssertStmt &>(s));
  case fe::StmtKind::Raise: return lowerRaise(static_cast<const fe::RaiseStmt &>(s));
  case fe::StmtKind::Pass:
  case fe::StmtKind::Global: return;
  case fe::StmtKind::FunctionDef: // (module level only: the typer refuses them in kernels)
  case fe::StmtKind::Import:
  case fe::StmtKind::ImportFrom:
  case fe::StmtKind::Unsupported: break;
  }
  throw Error("internal error: statement kind not lowered");
}

void Lowerer::lowerAssign(const fe::Expr &target, Value *v, const Type &vt) {
  if (auto *n = fe::dyn<fe::NameExpr>(&target)) {
    const Type &lt = spec_->locals.at(n->id);
    if (fe::isStaticType(lt))
      return; // `f = cuda.atomic.add`: calls through f are resolved when typed
    b_.CreateStore(convert(v, vt, lt), localSlot(n->id));
    return;
  }
  if (auto *t = fe::asTupleLike(&target)) {
    for (unsigned i = 0; i < t->elts.size(); ++i)
      lowerAssign(*t->elts[i], b_.CreateExtractValue(v, {i}), vt.elems[i]);
    return;
  }
  if (info(*fe::accessedObject(target)).type.isRecord() || info(target).type.isRecord())
    return storeIntoRecord(target, v, vt, target.loc);
  auto &sub = static_cast<const fe::SubscriptExpr &>(target);
  if (info(sub).type.isArray())
    return storeIntoView(sub, v, vt, sub.loc);
  Type elem;
  Value *addr = subscriptAddress(sub, elem);
  storeElement(addr, convert(v, vt, elem), elem.scalar);
}

void Lowerer::lowerAugAssign(const fe::AugAssignStmt &a) {
  const fe::ExprInfo &op = spec_->augOps.at(&a);
  Value *addr = nullptr;
  uint64_t fieldAlign = 0; // a record's field: the alignment its accesses may assume
  Type cur;
  Value *curVal;
  if (auto *n = fe::dyn<fe::NameExpr>(a.target.get())) {
    cur = spec_->locals.at(n->id);
    curVal = b_.CreateLoad(llvmType(cur), localSlot(n->id));
  } else if (info(*fe::accessedObject(*a.target)).type.isRecord()) {
    ScalarPlace p = recordFieldPlace(*a.target); // r.x += v
    addr = p.addr;
    fieldAlign = p.align;
    cur = Type::scalarOf(p.scalar);
    curVal = b_.CreateAlignedLoad(memType(p.scalar), addr, Align(p.align));
    if (p.scalar == Scalar::Bool)
      curVal = b_.CreateICmpNE(curVal, ConstantInt::get(curVal->getType(), 0));
  } else {
    addr = subscriptAddress(static_cast<const fe::SubscriptExpr &>(*a.target), cur);
    curVal = loadElement(addr, cur.scalar);
  }
  Value *rhs = lowerExpr(*a.value);
  const Type &rt = info(*a.value).type;
  // Same operand handling as a BinOpExpr (see lowerBinOp).
  Value *l = convertScalar(curVal, cur.scalar, op.operandTypes[0]);
  Value *r = convertScalar(rhs, rt.scalar, op.operandTypes[1]);
  raiseOnZeroDivisor(a.op, r, op.operandTypes[1], a.loc);
  Value *res;
  if (a.op == fe::BinOp::Div && fe::isInteger(op.operandTypes[0])) {
    res = binary(a.op, convertScalar(l, op.operandTypes[0], Scalar::F64),
                 convertScalar(r, op.operandTypes[1], Scalar::F64), Scalar::F64);
  } else if (a.op == fe::BinOp::Pow) {
    res = power(l, r, op.operandTypes[0], op.operandTypes[1], op.type.scalar);
  } else if (a.op == fe::BinOp::LShift || a.op == fe::BinOp::RShift) {
    res = shift(a.op, convertScalar(l, op.operandTypes[0], op.type.scalar),
                convertScalar(r, op.operandTypes[1], op.type.scalar), op.type.scalar);
  } else {
    res = binary(a.op, l, r, op.operandTypes[0]);
  }
  if (addr && fieldAlign) {
    Value *x = convertScalar(res, op.type.scalar, cur.scalar);
    if (cur.scalar == Scalar::Bool)
      x = b_.CreateZExt(x, memType(Scalar::Bool));
    b_.CreateAlignedStore(x, addr, Align(fieldAlign));
  } else if (addr) {
    storeElement(addr, convertScalar(res, op.type.scalar, cur.scalar), cur.scalar);
  } else {
    auto &n = static_cast<const fe::NameExpr &>(*a.target);
    b_.CreateStore(convert(res, op.type, spec_->locals.at(n.id)), localSlot(n.id));
  }
}

void Lowerer::lowerBlockThenBranch(const fe::Block &b, BasicBlock *next) {
  lowerBlock(b);
  if (!terminated())
    b_.CreateBr(next);
}

void Lowerer::lowerIf(const fe::IfStmt &s) {
  if (auto k = spec_->constantBranches.find(&s); k != spec_->constantBranches.end()) {
    lowerBlock(k->second ? s.body : s.orelse); // the condition is a compile-time constant
    return;
  }
  Value *c = truth(lowerExpr(*s.test), info(*s.test).type);
  auto *thenB = BasicBlock::Create(ctx_, "if.then", fn_);
  auto *elseB = s.orelse.empty() ? nullptr : BasicBlock::Create(ctx_, "if.else", fn_);
  auto *merge = BasicBlock::Create(ctx_, "if.end", fn_);
  b_.CreateCondBr(c, thenB, elseB ? elseB : merge);
  b_.SetInsertPoint(thenB);
  lowerBlockThenBranch(s.body, merge);
  if (elseB) {
    b_.SetInsertPoint(elseB);
    lowerBlockThenBranch(s.orelse, merge);
  }
  b_.SetInsertPoint(merge);
  setGlueLoc();
}

void Lowerer::lowerWhile(const fe::WhileStmt &s) {
  auto *header = BasicBlock::Create(ctx_, "while.cond", fn_);
  auto *body = BasicBlock::Create(ctx_, "while.body", fn_);
  auto *elseB = BasicBlock::Create(ctx_, "while.else", fn_);
  auto *exit = BasicBlock::Create(ctx_, "while.end", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  setLoc(s.test->loc);
  b_.CreateCondBr(truth(lowerExpr(*s.test), info(*s.test).type), body, elseB);
  b_.SetInsertPoint(body);
  loops_.push_back({exit, header});
  lowerBlockThenBranch(s.body, header);
  loops_.pop_back();
  b_.SetInsertPoint(elseB);
  lowerBlockThenBranch(s.orelse, exit);
  b_.SetInsertPoint(exit);
  setGlueLoc();
}

void Lowerer::lowerFor(const fe::ForStmt &s) {
  if (info(*s.iter).type.kind != TypeKind::Range || s.iter->kind != fe::ExprKind::Call)
    return lowerForEach(s);
  auto &call = static_cast<const fe::CallExpr &>(*s.iter);
  const fe::ExprInfo &ri = info(call);
  Scalar t = ri.type.scalar;
  llvm::Type *lt = scalarType(t);
  std::vector<Value *> a;
  for (size_t i = 0; i < call.args.size(); ++i)
    a.push_back(lowerAs(*call.args[i], Type::scalarOf(t)));
  Value *start = a.size() == 1 ? ConstantInt::get(lt, 0) : a[0];
  Value *stop = a.size() == 1 ? a[0] : a[1];
  Value *step = a.size() == 3 ? a[2] : ConstantInt::get(lt, 1);
  bool sgn = fe::isSigned(t);
  if (a.size() == 3) // Python raises for a zero step (it would loop forever)
    raiseExceptionIf(b_.CreateICmpEQ(step, ConstantInt::get(lt, 0)), call.args[2]->loc,
                     "ValueError: range() arg 3 must not be zero");

  AllocaInst *iv = entryAlloca(lt, "for.iv");
  b_.CreateStore(start, iv);
  lowerLoop(
      s,
      [&] {
        Value *i = b_.CreateLoad(lt, iv, "i");
        if (auto *cs = dyn_cast<ConstantInt>(step)) {
          bool up = !sgn || !cs->isNegative();
          return up ? (sgn ? b_.CreateICmpSLT(i, stop) : b_.CreateICmpULT(i, stop))
                    : b_.CreateICmpSGT(i, stop);
        }
        if (sgn) {
          Value *up = b_.CreateICmpSGT(step, ConstantInt::get(lt, 0));
          return b_.CreateSelect(up, b_.CreateICmpSLT(i, stop), b_.CreateICmpSGT(i, stop));
        }
        return b_.CreateICmpULT(i, stop);
      },
      [&] { lowerAssign(*s.target, b_.CreateLoad(lt, iv, "i"), Type::scalarOf(t)); },
      [&] { b_.CreateStore(b_.CreateAdd(b_.CreateLoad(lt, iv), step), iv); });
}

void Lowerer::lowerLoop(const fe::ForStmt &s, const std::function<Value *()> &cond,
                        const std::function<void()> &bind, const std::function<void()> &advance) {
  auto *header = BasicBlock::Create(ctx_, "for.cond", fn_);
  auto *body = BasicBlock::Create(ctx_, "for.body", fn_);
  auto *latch = BasicBlock::Create(ctx_, "for.inc", fn_);
  auto *elseB = BasicBlock::Create(ctx_, "for.else", fn_);
  auto *exit = BasicBlock::Create(ctx_, "for.end", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  b_.CreateCondBr(cond(), body, elseB);
  b_.SetInsertPoint(body);
  bind();
  loops_.push_back({exit, latch});
  lowerBlockThenBranch(s.body, latch);
  loops_.pop_back();
  b_.SetInsertPoint(latch);
  setLoc(s.loc);
  advance();
  b_.CreateBr(header);
  b_.SetInsertPoint(elseB);
  lowerBlockThenBranch(s.orelse, exit);
  b_.SetInsertPoint(exit);
  setGlueLoc();
}

void Lowerer::lowerReturn(const fe::ReturnStmt &s) {
  if (s.value && retSlot_)
    b_.CreateStore(lowerAs(*s.value, spec_->returnType), retSlot_);
  else if (s.value)
    lowerExpr(*s.value); // `return None` style expressions still run
  b_.CreateBr(exitBlock_);
}

void Lowerer::lowerAssert(const fe::AssertStmt &s) {
  // numba-cuda compiles assertions only with debug=True.
  if (!spec_->options().debug)
    return;
  Value *ok = truth(lowerExpr(*s.test), info(*s.test).type);
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  unsigned id = site(s.loc, "assert");
  if (s.msg)
    out_.info.sites[id].detail = static_cast<const fe::ConstantExpr &>(*s.msg).strValue;
  raiseIf(b_.CreateNot(ok), KernelErrorKind::Assertion, id, ConstantInt::get(i64, 0),
          ConstantInt::get(i64, 0), ConstantInt::get(i64, 0));
}

void Lowerer::lowerRaise(const fe::RaiseStmt &s) {
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  int64_t payload = 0;
  unsigned id = site(s.loc, "raise");
  const fe::Expr *cls = s.exc.get();
  std::string text;
  if (auto *c = fe::dyn<fe::CallExpr>(cls)) {
    cls = c->func.get();
    if (!c->args.empty()) {
      const fe::ConstValue &k = *info(*c->args[0]).constant;
      if (k.kind == fe::ConstValue::Kind::Int) {
        payload = k.i;
        text = std::to_string(k.i);
      } else
        text = k.s;
    }
  }
  out_.info.sites[id].detail = static_cast<const fe::NameExpr &>(*cls).id + (text.empty() ? "" : ": " + text);
  raiseNow(KernelErrorKind::Exception, id, ConstantInt::get(i64, payload), ConstantInt::get(i64, 0),
           ConstantInt::get(i64, 0));
}

void Lowerer::raiseNow(KernelErrorKind kind, unsigned siteId, Value *a, Value *b, Value *c) {
  auto *i32 = llvm::Type::getInt32Ty(ctx_);
  auto inBody = spec_ ? functions_.find(spec_) : functions_.end();
  if (out_.info.debug && inBody != functions_.end() && inBody->second == fn_) {
    // post-mortem: the debugger sees the thread before the error ends it
    const Site &s = out_.info.sites[siteId];
    std::string reason = kind == KernelErrorKind::IndexOutOfBounds ? "IndexError: index out of bounds"
                         : kind == KernelErrorKind::Assertion
                             ? "AssertionError" + (s.detail.empty() ? std::string() : ": " + s.detail)
                         : s.detail.empty() ? std::string("exception")
                                            : s.detail;
    stopHere(s.loc, reason);
  }
  b_.CreateCall(getIntrinsic(mod_, Intrinsic::RaiseError),
                {errRecord_, ConstantInt::get(i32, uint32_t(kind)), ConstantInt::get(i32, siteId), a, b, c});
  b_.CreateUnreachable();
}

void Lowerer::raiseExceptionIf(Value *cond, SourceLoc loc, const std::string &detail) {
  unsigned id = site(loc, "raise");
  out_.info.sites[id].detail = detail;
  Value *zero = ConstantInt::get(llvm::Type::getInt64Ty(ctx_), 0);
  raiseIf(cond, KernelErrorKind::Exception, id, zero, zero, zero);
}

void Lowerer::raiseIf(Value *cond, KernelErrorKind kind, unsigned siteId, Value *a, Value *b, Value *c) {
  auto *fail = BasicBlock::Create(ctx_, "raise", fn_);
  auto *cont = BasicBlock::Create(ctx_, "ok", fn_);
  MDBuilder md(ctx_);
  b_.CreateCondBr(cond, fail, cont, md.createBranchWeights(1, 1u << 20));
  b_.SetInsertPoint(fail);
  raiseNow(kind, siteId, a, b, c);
  b_.SetInsertPoint(cont);
}

} // namespace cutwin::ir
