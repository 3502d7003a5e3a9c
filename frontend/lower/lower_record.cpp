// Lowering of records (numba's Record): a record value is the address of its bytes. A field
// lies at its offset: a number is loaded and stored there (at its natural alignment: the typer
// refuses misaligned fields of packed records, as numba does), a nested array is a view of
// those bytes, a nested record their address; a whole record is copied byte for byte.
#include "frontend/lower/lowerer.h"

#include "frontend/sema/record_layout.h"

namespace cutwin::ir {

using namespace llvm;

Value *Lowerer::recordFieldAddress(Value *rec, const Type &rt, unsigned field) {
  const fe::RecordField &f = rt.record->fields[field];
  return b_.CreateInBoundsGEP(llvm::Type::getInt8Ty(ctx_), rec,
                              ConstantInt::get(llvm::Type::getInt64Ty(ctx_), f.offset), f.name);
}

Value *Lowerer::recordField(Value *rec, const Type &rt, unsigned field) {
  const fe::RecordField &f = rt.record->fields[field];
  Value *addr = recordFieldAddress(rec, rt, field);
  if (f.shape.empty() && f.record)
    return addr; // a nested record: a reference into the same bytes
  if (f.shape.empty()) {
    Value *v = b_.CreateAlignedLoad(memType(f.scalar), addr, Align(f.alignment()));
    return f.scalar == Scalar::Bool ? b_.CreateICmpNE(v, ConstantInt::get(v->getType(), 0)) : v;
  }
  // A nested array: a C-ordered view of the field's bytes.
  Type view = f.record ? Type::recordArray(f.record, unsigned(f.shape.size()), fe::Layout::C, rt.space)
                       : Type::array(f.scalar, unsigned(f.shape.size()), fe::Layout::C, rt.space);
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  std::vector<Value *> shape(f.shape.size()), strides(f.shape.size());
  uint64_t stride = view.itemSize();
  for (size_t k = f.shape.size(); k-- > 0;) {
    shape[k] = ConstantInt::get(i64, uint64_t(f.shape[k]));
    strides[k] = ConstantInt::get(i64, stride);
    stride *= uint64_t(f.shape[k]);
  }
  return buildArray(view, addr, shape, strides);
}

void Lowerer::copyRecord(Value *dst, Value *src, const fe::RecordLayout &r) {
  Align a(r.alignment());
  b_.CreateMemCpy(dst, a, src, a, r.size);
}

Lowerer::ScalarPlace Lowerer::recordFieldPlace(const fe::Expr &target) {
  const fe::Expr &base = *fe::accessedObject(target);
  const Type &rt = info(base).type;
  unsigned field = unsigned(info(target).staticIndex);
  const fe::RecordField &f = rt.record->fields[field];
  return {recordFieldAddress(lowerExpr(base), rt, field), f.scalar, f.alignment()};
}

void Lowerer::storeIntoRecord(const fe::Expr &target, Value *v, const Type &vt, SourceLoc loc) {
  const Type &tt = info(target).type;
  if (auto *sub = fe::dyn<fe::SubscriptExpr>(&target); sub && info(*sub->value).type.isArray()) {
    Type elem; // a[i] = r: the record's bytes copied into the array's element
    Value *dst = subscriptAddress(*sub, elem);
    return copyRecord(dst, v, *tt.record);
  }
  if (tt.isScalar()) {
    ScalarPlace p = recordFieldPlace(target);
    Value *x = convert(v, vt, tt);
    if (p.scalar == Scalar::Bool)
      x = b_.CreateZExt(x, memType(Scalar::Bool));
    b_.CreateAlignedStore(x, p.addr, Align(p.align));
    return;
  }
  const fe::Expr &base = *fe::accessedObject(target);
  Value *field = recordField(lowerExpr(base), info(base).type, unsigned(info(target).staticIndex));
  setLoc(loc);
  if (tt.isRecord())
    return copyRecord(field, v, *tt.record);
  copyIntoView(field, tt, v, vt, loc); // a nested array: filled, or an array copied in
}

} // namespace cutwin::ir
