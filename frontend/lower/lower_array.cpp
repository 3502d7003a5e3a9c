// Lowering of arrays: the {data, shape, strides} value, element addressing with negative
// index wraparound and bounds checks, sub-array views, shared and local arrays.
#include "frontend/lower/lowerer.h"

#include "frontend/ir/intrinsics.h"

namespace cutwin::ir {

using namespace llvm;

Value *Lowerer::arrayField(Value *arr, unsigned field, unsigned dim) {
  if (field == 0)
    return b_.CreateExtractValue(arr, {0});
  return b_.CreateExtractValue(arr, {field, dim});
}

Value *Lowerer::buildArray(const Type &t, Value *data, ArrayRef<Value *> shape, ArrayRef<Value *> strides) {
  Value *agg = UndefValue::get(llvmType(t));
  agg = b_.CreateInsertValue(agg, data, {0});
  for (unsigned k = 0; k < t.ndim; ++k) {
    agg = b_.CreateInsertValue(agg, shape[k], {1, k});
    agg = b_.CreateInsertValue(agg, strides[k], {2, k});
  }
  return agg;
}

Value *Lowerer::normalizeIndex(Value *idx, Scalar t, Value *extent, unsigned axis, SourceLoc loc) {
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  Value *v = b_.CreateIntCast(idx, i64, fe::isSigned(t));
  Value *w = v;
  if (fe::isSigned(t)) // a[-1] is the last element, as in numba
    w = b_.CreateSelect(b_.CreateICmpSLT(v, ConstantInt::get(i64, 0)), b_.CreateAdd(v, extent), v);
  // Tuples are always checked (numba's tuple getitem raises IndexError regardless of
  // boundscheck): out of range it would read the stack.
  if (opts_.boundscheck || axis == unsigned(-1))
    raiseIf(b_.CreateICmpUGE(w, extent), KernelErrorKind::IndexOutOfBounds, site(loc, "index"), v,
            ConstantInt::get(i64, axis == unsigned(-1) ? uint64_t(-1) : axis), extent);
  return w;
}

Value *Lowerer::elementAddress(Value *arr, const Type &at, ArrayRef<Value *> idx, ArrayRef<Scalar> idxTypes,
                               SourceLoc loc) {
  if (at.pointer) // CPointer: C's p[i], no wraparound, no extent to check
    return b_.CreateGEP(memType(at.scalar), arrayField(arr, 0, 0),
                        b_.CreateIntCast(idx[0], llvm::Type::getInt64Ty(ctx_), fe::isSigned(idxTypes[0])));
  if (idx.empty()) // a 0-d array: its one element
    return arrayField(arr, 0, 0);
  std::vector<Value *> norm;
  for (unsigned k = 0; k < idx.size(); ++k)
    norm.push_back(normalizeIndex(idx[k], idxTypes[k], arrayField(arr, 1, k), k, loc));
  Value *data = arrayField(arr, 0, 0);
  if (at.layout == fe::Layout::C) {
    // Contiguous: the linear index from the shape, so that constant shapes fold.
    Value *linear = norm[0];
    for (unsigned k = 1; k < norm.size(); ++k)
      linear = b_.CreateAdd(b_.CreateMul(linear, arrayField(arr, 1, k)), norm[k]);
    llvm::Type *elem =
        at.isRecordArray() ? ArrayType::get(llvm::Type::getInt8Ty(ctx_), at.itemSize()) : memType(at.scalar);
    return b_.CreateInBoundsGEP(elem, data, linear);
  }
  Value *off = nullptr;
  for (unsigned k = 0; k < norm.size(); ++k) {
    Value *term = b_.CreateMul(norm[k], arrayField(arr, 2, k));
    off = off ? b_.CreateAdd(off, term) : term;
  }
  return b_.CreateInBoundsGEP(llvm::Type::getInt8Ty(ctx_), data, off);
}

Value *Lowerer::subArray(Value *arr, const Type &at, ArrayRef<Value *> idx, ArrayRef<Scalar> idxTypes,
                         const Type &rt, SourceLoc loc) {
  Value *off = nullptr;
  for (unsigned k = 0; k < idx.size(); ++k) {
    Value *i = normalizeIndex(idx[k], idxTypes[k], arrayField(arr, 1, k), k, loc);
    Value *term = b_.CreateMul(i, arrayField(arr, 2, k));
    off = off ? b_.CreateAdd(off, term) : term;
  }
  Value *data = b_.CreateInBoundsGEP(llvm::Type::getInt8Ty(ctx_), arrayField(arr, 0, 0), off);
  std::vector<Value *> shape, strides;
  for (unsigned k = unsigned(idx.size()); k < at.ndim; ++k) {
    shape.push_back(arrayField(arr, 1, k));
    strides.push_back(arrayField(arr, 2, k));
  }
  return buildArray(rt, data, shape, strides);
}

Value *Lowerer::loadElement(Value *addr, Scalar dtype) {
  Value *v = b_.CreateLoad(memType(dtype), addr);
  if (dtype == Scalar::Bool)
    return b_.CreateICmpNE(v, ConstantInt::get(v->getType(), 0));
  return v;
}

void Lowerer::storeElement(Value *addr, Value *v, Scalar dtype) {
  if (dtype == Scalar::Bool)
    v = b_.CreateZExt(v, memType(dtype));
  b_.CreateStore(v, addr);
}

std::vector<Value *> Lowerer::lowerIndices(const fe::SubscriptExpr &s) {
  std::vector<Value *> idx;
  if (info(s).access == fe::Access::TupleIndices) { // a[t]: the tuple's elements index the dimensions
    Value *t = lowerExpr(*s.index);
    for (unsigned k = 0; k < info(*s.index).type.elems.size(); ++k)
      idx.push_back(b_.CreateExtractValue(t, {k}));
    return idx;
  }
  for (const fe::Expr *e : fe::subscriptIndices(s))
    idx.push_back(lowerExpr(*e));
  return idx;
}

Value *Lowerer::subscriptAddress(const fe::SubscriptExpr &s, Type &elemType) {
  Value *arr = lowerExpr(*s.value);
  const Type &at = info(*s.value).type;
  const fe::ExprInfo &si = info(s);
  std::vector<Value *> idx = lowerIndices(s);
  setLoc(s.loc);
  elemType = Type::scalarOf(at.scalar);
  return elementAddress(arr, at, idx, si.operandTypes, s.loc);
}

Value *Lowerer::lowerSubscript(const fe::SubscriptExpr &s) {
  const Type &bt = info(*s.value).type;
  const fe::ExprInfo &si = info(s);
  if (bt.isRecord())
    return recordField(lowerExpr(*s.value), bt, unsigned(si.staticIndex));
  if (bt.isArray()) {
    if (si.type.isRecord()) { // a[i] of an array of records: the element's address
      Type elem;
      return subscriptAddress(s, elem);
    }
    if (si.type.isScalar()) {
      Type elem;
      Value *addr = subscriptAddress(s, elem);
      return loadElement(addr, elem.scalar);
    }
    if (isSliceSubscript(s))
      return sliceView(s);
    Value *arr = lowerExpr(*s.value);
    return subArray(arr, bt, lowerIndices(s), si.operandTypes, si.type, s.loc);
  }
  // Tuples.
  Value *tup = lowerExpr(*s.value);
  if (si.staticIndex >= 0)
    return b_.CreateExtractValue(tup, {unsigned(si.staticIndex)});
  if (si.access == fe::Access::TupleSlice) {
    Value *part = UndefValue::get(llvmType(si.type));
    for (unsigned k = 0; k < si.elementIndices.size(); ++k)
      part = b_.CreateInsertValue(part, b_.CreateExtractValue(tup, {si.elementIndices[k]}), {k});
    return part;
  }
  // A run-time index into a homogeneous tuple: its struct is laid out as an array of the
  // element type. Axis -1 tells the error report it is a tuple.
  AllocaInst *slot = entryAlloca(tup->getType(), "tuple.tmp");
  b_.CreateStore(tup, slot);
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  Value *n = ConstantInt::get(i64, bt.elems.size());
  Value *i = normalizeIndex(lowerExpr(*s.index), si.operandTypes[0], n, unsigned(-1), s.loc);
  llvm::Type *elem = llvmType(si.type);
  Value *p = b_.CreateInBoundsGEP(ArrayType::get(elem, bt.elems.size()), slot, {ConstantInt::get(i64, 0), i});
  return b_.CreateLoad(elem, p);
}

Value *Lowerer::lowerConstArray(const fe::ConstValue &v, SourceLoc loc) {
  constexpr uint64_t kConstantMemory = 64 * 1024; // the GPU's constant bank for kernels
  GlobalVariable *&g = constArrays_[v.bytes.get()];
  if (!g) {
    constBytes_ += v.bytes->size();
    if (constBytes_ > kConstantMemory)
      spec_->file().error(loc, "constant arrays need " + std::to_string(constBytes_) +
                                   " bytes; constant memory holds " + std::to_string(kConstantMemory));
    // Constant data arrays hold integers or floats: a complex array is its parts, an array
    // of records its bytes.
    Scalar elem = v.record ? Scalar::U8 : fe::isComplex(v.dtype) ? fe::partOf(v.dtype) : v.dtype;
    uint64_t item = fe::byteSize(elem);
    StringRef raw(reinterpret_cast<const char *>(v.bytes->data()), v.bytes->size());
    Constant *init = ConstantDataArray::getRaw(raw, v.bytes->size() / item, memType(elem));
    g = new GlobalVariable(mod_, init->getType(), true, GlobalValue::InternalLinkage, init,
                           spec_->def->name + ".const." + std::to_string(constArrays_.size() - 1), nullptr,
                           GlobalValue::NotThreadLocal, 4);
    g->setAlignment(Align(16));
  }
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  std::vector<Value *> shape, strides(v.shape.size());
  uint64_t stride = v.type().itemSize();
  for (size_t k = v.shape.size(); k-- > 0;) {
    strides[k] = ConstantInt::get(i64, stride);
    stride *= uint64_t(v.shape[k]);
  }
  for (int64_t d : v.shape)
    shape.push_back(ConstantInt::get(i64, uint64_t(d)));
  return buildArray(v.type(), g, shape, strides);
}

GlobalVariable *Lowerer::newSharedVariable(llvm::Type *t, const std::string &what) {
  return new GlobalVariable(mod_, t, false, GlobalValue::InternalLinkage, UndefValue::get(t),
                            spec_->def->name + "." + what + "." + std::to_string(sharedCounter_++), nullptr,
                            GlobalValue::NotThreadLocal, 3);
}

llvm::Type *Lowerer::arrayStorageType(const Type &t, uint64_t count) {
  return t.isRecordArray() ? ArrayType::get(llvm::Type::getInt8Ty(ctx_), count * t.itemSize())
                           : ArrayType::get(memType(t.scalar), count);
}

AllocaInst *Lowerer::newLocalArrayStorage(const Type &t, uint64_t count, uint64_t alignment) {
  AllocaInst *a = entryAlloca(arrayStorageType(t, count), "local.array");
  a->setAlignment(Align(std::max<uint64_t>(16, alignment)));
  return a;
}

Value *Lowerer::lowerDynamicShared(const Type &t) {
  // Every dynamic shared array starts at the same place (CUDA's extern __shared__) and
  // covers the launch's dynamic bytes, as many elements as fit.
  auto *storage = ArrayType::get(llvm::Type::getInt8Ty(ctx_), 0);
  auto *g = mod_.getGlobalVariable(ir::kDynamicSharedName);
  if (!g) {
    g = new GlobalVariable(mod_, storage, false, GlobalValue::ExternalLinkage, nullptr,
                           ir::kDynamicSharedName, nullptr, GlobalValue::NotThreadLocal, 3);
    g->setAlignment(Align(16));
  }
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  uint64_t item = t.itemSize();
  Value *bytes = b_.CreateZExt(b_.CreateCall(ir::getIntrinsic(mod_, ir::Intrinsic::DynamicSharedSize)), i64);
  Value *n = b_.CreateUDiv(bytes, ConstantInt::get(i64, item), "dynamic.shared.size");
  return buildArray(t, g, {n}, {ConstantInt::get(i64, item)});
}

} // namespace cutwin::ir
