// Lowering of for loops over arrays, tuples, enumerate(...) and zip(...): each iterable is a
// length and an element function of a counter; the loop counts from 0 to the length.
#include "frontend/lower/lowerer.h"

#include "frontend/ir/error_record.h"

namespace cutwin::ir {

using namespace llvm;
using fe::TypeKind;

Lowerer::Iteration Lowerer::iteration(const fe::Expr &e) {
  const fe::ExprInfo &ei = info(e);
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  const Type &t = ei.type;
  if (t.kind == TypeKind::Range) { // range(...) inside enumerate/zip
    auto &call = static_cast<const fe::CallExpr &>(e);
    Scalar rt = t.scalar;
    std::vector<Value *> a;
    for (auto &arg : call.args)
      a.push_back(b_.CreateIntCast(lowerAs(*arg, Type::scalarOf(rt)), i64, fe::isSigned(rt)));
    Value *start = a.size() == 1 ? ConstantInt::get(i64, 0) : a[0];
    Value *stop = a.size() == 1 ? a[0] : a[1];
    Value *step = a.size() == 3 ? a[2] : ConstantInt::get(i64, 1);
    if (a.size() == 3)
      raiseExceptionIf(b_.CreateICmpEQ(step, ConstantInt::get(i64, 0)), call.args[2]->loc,
                       "ValueError: range() arg 3 must not be zero");
    // len(range(start, stop, step)) = max(0, ceil((stop - start) / step))
    Value *zero = ConstantInt::get(i64, 0), *one = ConstantInt::get(i64, 1);
    Value *up = b_.CreateICmpSGT(step, zero);
    Value *span = b_.CreateSelect(up, b_.CreateSub(stop, start), b_.CreateSub(start, stop));
    Value *mag = b_.CreateSelect(up, step, b_.CreateNeg(step));
    Value *n = b_.CreateSDiv(b_.CreateAdd(span, b_.CreateSub(mag, one)), mag);
    n = b_.CreateSelect(b_.CreateICmpSGT(span, zero), n, zero);
    llvm::Type *et = scalarType(rt);
    return {n,
            [=, this](Value *k) { return b_.CreateTrunc(b_.CreateAdd(start, b_.CreateMul(k, step)), et); }};
  }
  if (t.kind == TypeKind::Iterator) {
    auto &call = static_cast<const fe::CallExpr &>(e);
    std::vector<Iteration> parts;
    for (size_t i = 0; i < t.elems.size(); ++i)
      parts.push_back(iteration(*call.args[i]));
    Value *n = parts[0].length;
    for (size_t i = 1; i < parts.size(); ++i) // zip stops with its shortest iterable
      n = b_.CreateSelect(b_.CreateICmpSLT(parts[i].length, n), parts[i].length, n);
    Value *start = nullptr;
    if (t.path == "enumerate")
      start = call.args.size() == 2 ? lowerAs(*call.args[1], Type::scalarOf(Scalar::I64))
                                    : ConstantInt::get(i64, 0);
    return {n, [=, this](Value *k) -> Value * {
              std::vector<Value *> vals;
              if (start)
                vals.push_back(b_.CreateAdd(start, k));
              for (auto &p : parts)
                vals.push_back(p.element(k));
              std::vector<llvm::Type *> fields;
              for (Value *v : vals)
                fields.push_back(v->getType());
              Value *agg = UndefValue::get(StructType::get(ctx_, fields)); // as llvmType builds tuples
              for (unsigned i = 0; i < vals.size(); ++i)
                agg = b_.CreateInsertValue(agg, vals[i], {i});
              return agg;
            }};
  }
  Value *v = lowerExpr(e); // evaluated once, before the loop
  if (t.isArray()) {
    Value *n = arrayField(v, 1, 0);
    if (t.ndim == 1)
      return {n, [=, this](Value *k) {
                Value *addr = elementAddress(v, t, {k}, {Scalar::I64}, e.loc);
                return loadElement(addr, t.scalar);
              }};
    Type row = Type::array(t.scalar, t.ndim - 1u, t.layout == fe::Layout::C ? fe::Layout::C : fe::Layout::A,
                           t.space);
    return {n, [=, this](Value *k) { return subArray(v, t, {k}, {Scalar::I64}, row, e.loc); }};
  }
  // A uniform tuple: its elements in memory, read at the counter.
  AllocaInst *slot = entryAlloca(v->getType(), "iter.tuple");
  b_.CreateStore(v, slot);
  llvm::Type *elem = llvmType(t.elems[0]);
  auto *arrT = ArrayType::get(elem, t.elems.size());
  return {ConstantInt::get(i64, t.elems.size()), [=, this](Value *k) {
            Value *p = b_.CreateInBoundsGEP(arrT, slot, {ConstantInt::get(i64, 0), k});
            return b_.CreateLoad(elem, p);
          }};
}

void Lowerer::lowerForEach(const fe::ForStmt &s) {
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  Iteration it = iteration(*s.iter);
  AllocaInst *counter = entryAlloca(i64, "for.k");
  b_.CreateStore(ConstantInt::get(i64, 0), counter);
  lowerLoop(
      s, [&] { return b_.CreateICmpSLT(b_.CreateLoad(i64, counter, "k"), it.length); },
      [&] {
        lowerAssign(*s.target, it.element(b_.CreateLoad(i64, counter, "k")), spec_->loopElements.at(&s));
      },
      [&] { b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64, counter), ConstantInt::get(i64, 1)), counter); });
}

} // namespace cutwin::ir
