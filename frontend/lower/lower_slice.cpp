// Lowering of basic slicing: `a[i:j]`, `a[::-2, k]` make views (Python's slice rules per
// dimension; integer indices drop their dimension), and `a[i:j] = x` stores a number into
// every element of the view or copies an array of its shape into it.
#include "frontend/lower/lowerer.h"

#include <cstring>

namespace cutwin::ir {

using namespace llvm;

bool Lowerer::isSliceSubscript(const fe::SubscriptExpr &s) const {
  return info(s).access == fe::Access::Slices;
}

Value *Lowerer::sliceView(const fe::SubscriptExpr &s) {
  const fe::ExprInfo &si = info(s);
  const Type &at = info(*s.value).type;
  Value *arr = lowerExpr(*s.value);
  const std::string &kinds = si.sliceKinds;
  std::vector<const fe::Expr *> idx = fe::subscriptIndices(s);
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  auto c64 = [&](int64_t v) { return ConstantInt::get(i64, uint64_t(v)); };
  auto given = [&](const fe::ExprPtr &p) { return p && info(*p).type.kind != fe::TypeKind::None; };
  Value *off = c64(0);
  std::vector<Value *> shape, strides;
  for (unsigned k = 0; k < kinds.size(); ++k) {
    Value *extent = arrayField(arr, 1, k), *stride = arrayField(arr, 2, k);
    if (kinds[k] == 'i') {
      Value *v = lowerExpr(*idx[k]);
      setLoc(idx[k]->loc);
      off = b_.CreateAdd(off, b_.CreateMul(normalizeIndex(v, si.operandTypes[k], extent, k, s.loc), stride));
      continue;
    }
    auto &sl = static_cast<const fe::SliceExpr &>(*idx[k]);
    Value *lo = given(sl.lower) ? lowerAs(*sl.lower, Type::scalarOf(Scalar::I64)) : nullptr;
    Value *hi = given(sl.upper) ? lowerAs(*sl.upper, Type::scalarOf(Scalar::I64)) : nullptr;
    Value *step = given(sl.step) ? lowerAs(*sl.step, Type::scalarOf(Scalar::I64)) : c64(1);
    setLoc(sl.loc);
    if (given(sl.step)) // Python raises for a zero step
      raiseExceptionIf(b_.CreateICmpEQ(step, c64(0)), sl.step->loc, "ValueError: slice step cannot be zero");
    Value *neg = b_.CreateICmpSLT(step, c64(0));
    // A bound: negatives count from the end, then clamped to [0, n] (step > 0) or
    // [-1, n - 1] (step < 0), as PySlice_AdjustIndices does.
    auto bound = [&](Value *v, Value *dflt) -> Value * {
      if (!v)
        return dflt;
      Value *w = b_.CreateSelect(b_.CreateICmpSLT(v, c64(0)), b_.CreateAdd(v, extent), v);
      Value *lowest = b_.CreateSelect(neg, c64(-1), c64(0));
      Value *highest = b_.CreateSelect(neg, b_.CreateSub(extent, c64(1)), extent);
      w = b_.CreateSelect(b_.CreateICmpSLT(w, lowest), lowest, w);
      return b_.CreateSelect(b_.CreateICmpSGT(w, highest), highest, w);
    };
    Value *start = bound(lo, b_.CreateSelect(neg, b_.CreateSub(extent, c64(1)), c64(0)));
    Value *stop = bound(hi, b_.CreateSelect(neg, c64(-1), extent));
    // the number of elements: ceil((stop - start) / step), or 0
    Value *span = b_.CreateSelect(neg, b_.CreateSub(start, stop), b_.CreateSub(stop, start));
    Value *mag = b_.CreateSelect(neg, b_.CreateNeg(step), step);
    Value *len =
        b_.CreateSelect(b_.CreateICmpSGT(span, c64(0)),
                        b_.CreateAdd(b_.CreateSDiv(b_.CreateSub(span, c64(1)), mag), c64(1)), c64(0));
    off = b_.CreateAdd(off,
                       b_.CreateMul(b_.CreateSelect(b_.CreateICmpSGT(len, c64(0)), start, c64(0)), stride));
    shape.push_back(len);
    strides.push_back(b_.CreateMul(stride, step));
  }
  for (unsigned k = unsigned(kinds.size()); k < at.ndim; ++k) {
    shape.push_back(arrayField(arr, 1, k));
    strides.push_back(arrayField(arr, 2, k));
  }
  Value *data = b_.CreateInBoundsGEP(llvm::Type::getInt8Ty(ctx_), arrayField(arr, 0, 0), off);
  return buildArray(si.type, data, shape, strides);
}

std::pair<Value *, Value *> Lowerer::byteSpan(Value *arr, const Type &t) {
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  Value *lo = b_.CreatePtrToInt(arrayField(arr, 0, 0), i64), *hi = lo;
  Value *empty = b_.getFalse();
  for (unsigned d = 0; d < t.ndim; ++d) {
    Value *n = arrayField(arr, 1, d), *st = arrayField(arr, 2, d);
    empty = b_.CreateOr(empty, b_.CreateICmpEQ(n, ConstantInt::get(i64, 0)));
    Value *reach = b_.CreateMul(b_.CreateSub(n, ConstantInt::get(i64, 1)), st);
    Value *pos = b_.CreateICmpSGT(reach, ConstantInt::get(i64, 0));
    hi = b_.CreateAdd(hi, b_.CreateSelect(pos, reach, ConstantInt::get(i64, 0)));
    lo = b_.CreateAdd(lo, b_.CreateSelect(pos, ConstantInt::get(i64, 0), reach));
  }
  hi = b_.CreateAdd(hi, ConstantInt::get(i64, t.itemSize()));
  return {b_.CreateSelect(empty, hi, lo), hi}; // an empty view spans nothing
}

void Lowerer::forEachElement(Value *arr, const Type &t, const std::function<void(ArrayRef<Value *>)> &body) {
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  Value *total = ConstantInt::get(i64, 1);
  for (unsigned d = 0; d < t.ndim; ++d)
    total = b_.CreateMul(total, arrayField(arr, 1, d));
  BasicBlock *pre = b_.GetInsertBlock();
  BasicBlock *loop = BasicBlock::Create(ctx_, "each.body", fn_);
  BasicBlock *done = BasicBlock::Create(ctx_, "each.done", fn_);
  b_.CreateCondBr(b_.CreateICmpSGT(total, ConstantInt::get(i64, 0)), loop, done);
  b_.SetInsertPoint(loop);
  PHINode *k = b_.CreatePHI(i64, 2, "each.k");
  k->addIncoming(ConstantInt::get(i64, 0), pre);
  // k in C order -> (i0, i1, i2) over the shape
  std::vector<Value *> idx(t.ndim);
  Value *rest = k;
  for (unsigned d = t.ndim; d-- > 0;) {
    Value *extent = arrayField(arr, 1, d);
    idx[d] = d == 0 ? rest : b_.CreateURem(rest, extent);
    if (d > 0)
      rest = b_.CreateUDiv(rest, extent);
  }
  body(idx);
  Value *next = b_.CreateAdd(k, ConstantInt::get(i64, 1));
  k->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpSLT(next, total), loop, done);
  b_.SetInsertPoint(done);
}

void Lowerer::storeIntoView(const fe::SubscriptExpr &target, Value *v, const Type &vt, SourceLoc loc) {
  const Type &view = info(target).type;
  Value *dst = isSliceSubscript(target)
                   ? sliceView(target)
                   : subArray(lowerExpr(*target.value), info(*target.value).type, lowerIndices(target),
                              info(target).operandTypes, view, target.loc);
  setLoc(loc);
  copyIntoView(dst, view, v, vt, loc);
}

void Lowerer::copyIntoView(Value *dst, const Type &view, Value *v, const Type &vt, SourceLoc loc) {
  std::vector<Scalar> idxTypes(view.ndim, Scalar::I64);
  if (vt.isArray()) {
    // Shapes must agree (cutwin does not broadcast here), and the source must not overlap
    // the destination unless it is the destination: an element-by-element copy of an
    // overlapping view would read elements it already wrote.
    Value *bad = b_.getFalse();
    for (unsigned d = 0; d < view.ndim; ++d)
      bad = b_.CreateOr(bad, b_.CreateICmpNE(arrayField(dst, 1, d), arrayField(v, 1, d)));
    raiseExceptionIf(bad, loc, "ValueError: cannot assign an array of another shape to this slice");
    auto [dlo, dhi] = byteSpan(dst, view);
    auto [slo, shi] = byteSpan(v, vt);
    Value *same = b_.CreateICmpEQ(dlo, slo);
    for (unsigned d = 0; d < view.ndim; ++d)
      same = b_.CreateAnd(same, b_.CreateICmpEQ(arrayField(dst, 2, d), arrayField(v, 2, d)));
    Value *overlap = b_.CreateAnd(b_.CreateICmpSLT(dlo, shi), b_.CreateICmpSLT(slo, dhi));
    raiseExceptionIf(
        b_.CreateAnd(overlap, b_.CreateNot(same)), loc,
        "ValueError: the array assigned to this slice overlaps it; copy it first (cutwin does not "
        "copy overlapping views in kernels)");
  }
  Value *fill = vt.isArray() ? nullptr : convert(v, vt, Type::scalarOf(view.scalar));
  forEachElement(dst, view, [&](ArrayRef<Value *> idx) {
    Value *x = fill;
    if (!x) {
      Value *src = loadElement(elementAddress(v, vt, idx, idxTypes, loc), vt.scalar);
      x = convertScalar(src, vt.scalar, view.scalar);
    }
    storeElement(elementAddress(dst, view, idx, idxTypes, loc), x, view.scalar);
  });
}

} // namespace cutwin::ir
