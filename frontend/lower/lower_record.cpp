// Lowering of records (numba's Record): a record value is the address of its bytes. A field
// lies at its offset: a number is loaded and stored there (at its natural alignment: the typer
// refuses misaligned fields of packed records, as numba does), a nested array is a view of
// those bytes, a nested record their address; a whole record is copied byte for byte.
#include "frontend/lower/lowerer.h"

#include "frontend/sema/record_layout.h"

#include <cstring>

namespace cutwin::ir {

using namespace llvm;

namespace {

/// The code points of UTF-8 text (the source's string literals).
std::vector<uint32_t> codePoints(const std::string &text) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    unsigned extra = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
    uint32_t p = extra ? c & (0x3f >> extra) : c;
    for (unsigned k = 1; k <= extra && i + k < text.size(); ++k)
      p = (p << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3f);
    out.push_back(p);
    i += 1 + extra;
  }
  return out;
}

} // namespace

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

void Lowerer::storeString(const fe::Expr &target, const std::string &text) {
  const fe::RecordLayout &r = *info(target).type.record;
  Value *dst;
  if (auto *sub = fe::dyn<fe::SubscriptExpr>(&target); sub && info(*sub->value).type.isArray()) {
    Type elem;
    dst = subscriptAddress(*sub, elem);
  } else {
    const fe::Expr &base = *fe::accessedObject(target);
    dst = recordField(lowerExpr(base), info(base).type, unsigned(info(target).staticIndex));
  }
  setLoc(target.loc);
  // NumPy's: the text's code units (UTF-32 for 'U', the bytes for 'S'), cut at the
  // length, the rest zeros; one store of the element's bytes
  std::vector<uint8_t> bytes(r.size, 0);
  uint64_t count = uint64_t(r.fields[0].shape[0]);
  if (r.charSequence() == 'S') {
    std::memcpy(bytes.data(), text.data(), std::min<uint64_t>(count, text.size()));
  } else {
    std::vector<uint32_t> points = codePoints(text);
    for (uint64_t k = 0; k < count && k < points.size(); ++k)
      std::memcpy(bytes.data() + 4 * k, &points[k], 4); // little-endian, as NumPy's '<U'
  }
  b_.CreateAlignedStore(ConstantDataArray::get(ctx_, bytes), dst, Align(1));
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
