// Lowering of expressions with Python/numba semantics: conversions, arithmetic (floor
// division and modulo, power, shifts), comparisons, boolean operators.
#include "frontend/builtins/array_methods.h"
#include "frontend/builtins/half.h"
#include "frontend/lower/bfloat16.h"
#include "frontend/lower/datetime.h"
#include "frontend/lower/fp8.h"
#include "frontend/lower/lowerer.h"

#include "frontend/ir/intrinsics.h"
#include "frontend/sema/builtins.h"

#include <algorithm>
#include <llvm/IR/Intrinsics.h>

namespace cutwin::ir {

using namespace llvm;
using fe::TypeKind;

Value *Lowerer::lowerAs(const fe::Expr &e, const Type &to) { return convert(lowerExpr(e), info(e).type, to); }

Value *Lowerer::lowerExpr(const fe::Expr &e) {
  const fe::ExprInfo &ei = info(e);
  if (ei.unwrapsOptional)
    return unwrapOptional(lowerValue(e), ei.type, e.loc);
  return lowerValue(e);
}

Value *Lowerer::unwrapOptional(Value *optional, const Type &value, SourceLoc loc) {
  // Checked as array bounds are (the simulator by default, the GPU with debug=True); unchecked,
  // None gives the value's zero.
  if (opts_.boundscheck)
    raiseExceptionIf(b_.CreateNot(b_.CreateExtractValue(optional, {1})), loc,
                     "TypeError: expected " + value.str() + ", got None");
  return b_.CreateExtractValue(optional, {0});
}

Value *Lowerer::lowerValue(const fe::Expr &e) {
  const fe::ExprInfo &ei = info(e);
  if (ei.constant && (ei.type.isScalar() || ei.type.isTuple()) && e.kind != fe::ExprKind::Call)
    return constant(*ei.constant, ei.type);
  if (ei.constant && ei.constant->kind == fe::ConstValue::Kind::Array)
    return lowerConstArray(*ei.constant, e.loc);
  if (ei.constant && ei.constant->kind == fe::ConstValue::Kind::DeviceArray) {
    // a captured device array: its address, shape and strides are constants of the kernel
    const fe::ConstValue &c = *ei.constant;
    auto *i64 = llvm::Type::getInt64Ty(ctx_);
    std::vector<Value *> shape, strides;
    for (size_t k = 0; k < c.shape.size(); ++k) {
      shape.push_back(ConstantInt::get(i64, uint64_t(c.shape[k])));
      strides.push_back(ConstantInt::get(i64, uint64_t(c.strides[k])));
    }
    auto *st = cast<StructType>(llvmType(ei.type));
    Value *data = b_.CreateIntToPtr(ConstantInt::get(i64, c.address), st->getElementType(0));
    return buildArray(ei.type, data, shape, strides);
  }
  if (fe::isStaticType(ei.type) && e.kind != fe::ExprKind::Call)
    return nullptr; // a type or function as a value: calls through it were resolved when typed
  switch (e.kind) {
  case fe::ExprKind::Name: {
    auto &n = static_cast<const fe::NameExpr &>(e);
    if (auto it = slots_.find(n.id); it != slots_.end())
      return b_.CreateLoad(it->second->getAllocatedType(), it->second, n.id);
    return nullptr; // a module, function or type object: used only through attributes/calls
  }
  case fe::ExprKind::BinOp: return lowerBinOp(static_cast<const fe::BinOpExpr &>(e));
  case fe::ExprKind::UnaryOp: return lowerUnary(static_cast<const fe::UnaryOpExpr &>(e));
  case fe::ExprKind::BoolOp: return lowerBoolOp(static_cast<const fe::BoolOpExpr &>(e));
  case fe::ExprKind::Compare: return lowerCompare(static_cast<const fe::CompareExpr &>(e));
  case fe::ExprKind::IfExp: return lowerIfExp(static_cast<const fe::IfExpExpr &>(e));
  case fe::ExprKind::Call: return lowerCall(static_cast<const fe::CallExpr &>(e));
  case fe::ExprKind::Attribute: return lowerAttribute(static_cast<const fe::AttributeExpr &>(e));
  case fe::ExprKind::Subscript: return lowerSubscript(static_cast<const fe::SubscriptExpr &>(e));
  case fe::ExprKind::Tuple: return lowerTuple(static_cast<const fe::TupleExpr &>(e));
  case fe::ExprKind::StarElement: { // the tuple is evaluated at its first element's use
    auto &s = static_cast<const fe::StarElementExpr &>(e);
    Value *&tuple = unpackedTuples_[s.tuple];
    if (!tuple)
      tuple = lowerExpr(*s.tuple);
    return b_.CreateExtractValue(tuple, {s.index});
  }
  case fe::ExprKind::Constant: {
    auto &c = static_cast<const fe::ConstantExpr &>(e);
    if (c.type == fe::ConstantExpr::Type::Imag)
      return makeComplex(ConstantFP::get(llvm::Type::getDoubleTy(ctx_), 0.0),
                         ConstantFP::get(llvm::Type::getDoubleTy(ctx_), c.floatValue), Scalar::C128);
    return nullptr; // None
  }
  case fe::ExprKind::Slice: // (parts of subscripts, assignment targets and calls: lowered there)
  case fe::ExprKind::List:
  case fe::ExprKind::Starred: break;
  }
  throw Error("internal error: expression kind not lowered");
}

Value *Lowerer::constant(const fe::ConstValue &v, const Type &t) {
  if (t.isTuple()) {
    std::vector<Constant *> el;
    for (size_t i = 0; i < t.elems.size(); ++i)
      el.push_back(cast<Constant>(constant(v.elems[i], t.elems[i])));
    return ConstantStruct::get(cast<StructType>(llvmType(t)), el);
  }
  llvm::Type *lt = scalarType(t.scalar);
  if (t.scalar == Scalar::BF16)
    return ConstantInt::get(lt, bfloat16Bits(v.asDouble()));
  if (fe::isFloat(t.scalar))
    return ConstantFP::get(lt, v.asDouble());
  if (t.isBool())
    return ConstantInt::get(lt, v.kind == fe::ConstValue::Kind::Bool ? v.b : v.i != 0);
  int64_t iv = v.kind == fe::ConstValue::Kind::Bool ? v.b : v.i;
  return ConstantInt::get(lt, uint64_t(iv), fe::isSigned(t.scalar));
}

Value *Lowerer::convertScalar(Value *v, Scalar from, Scalar to) {
  if (from == to)
    return v;
  if (fe::isTime(from) || fe::isTime(to))
    return convertTime(b_, v, from, to); // another unit (datetime.h)
  if (fe::isFp8(from) || fe::isFp8(to))  // CUDA's 8-bit floats (fp8.h)
    return convertFp8(b_, v, from, to,
                      [this](Value *x, Scalar f, Scalar t) { return convertScalar(x, f, t); });
  if (from == Scalar::BF16) { // from its float32, which holds it exactly
    v = bfloat16ToFloat(b_, v);
    from = Scalar::F32;
    if (to == from)
      return v;
  }
  if (to == Scalar::BF16) { // rounded once, to nearest
    if (from == Scalar::F64)
      return doubleToBfloat16(b_, v);
    if (fe::isFloat(from))
      return floatToBfloat16(b_, convertScalar(v, from, Scalar::F32));
    if (fe::isInteger(from))
      return integerToBfloat16(b_, v, fe::isSigned(from));
    if (from == Scalar::Bool)
      return floatToBfloat16(b_, b_.CreateUIToFP(v, b_.getFloatTy()));
    throw Error(std::string("internal error: no conversion of ") + fe::scalarName(from) + " to bfloat16");
  }
  if (fe::isComplex(from) || fe::isComplex(to))
    return convertComplex(v, from, to);
  llvm::Type *lt = scalarType(to);
  bool fromF = fe::isFloat(from), toF = fe::isFloat(to);
  if (to == Scalar::Bool)
    return fromF ? b_.CreateFCmpUNE(v, ConstantFP::get(v->getType(), 0.0))
                 : b_.CreateICmpNE(v, ConstantInt::get(v->getType(), 0));
  if (fromF && toF)
    return fe::bitWidth(to) > fe::bitWidth(from) ? b_.CreateFPExt(v, lt) : b_.CreateFPTrunc(v, lt);
  if (fromF) {
    // numba-cuda converts float16 with cvt.rni: to the nearest integer, not toward zero
    if (from == Scalar::F16)
      v = b_.CreateUnaryIntrinsic(llvm::Intrinsic::rint, v);
    // Saturating, NaN -> 0: what the GPU's cvt.rzi does, and defined on every target.
    auto id = fe::isSigned(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b_.CreateIntrinsic(id, {lt, v->getType()}, {v});
  }
  if (toF)
    return fe::isSigned(from) ? b_.CreateSIToFP(v, lt) : b_.CreateUIToFP(v, lt);
  return b_.CreateIntCast(v, lt, fe::isSigned(from));
}

Value *Lowerer::convert(Value *v, const Type &from, const Type &to) {
  if (from == to || to.isUnknown())
    return v;
  if (to.isOptional()) { // {value, present}: None is all zeros
    if (from.kind == TypeKind::None)
      return Constant::getNullValue(llvmType(to));
    if (from.isOptional())
      return b_.CreateInsertValue(
          b_.CreateInsertValue(UndefValue::get(llvmType(to)),
                               convert(b_.CreateExtractValue(v, {0}), from.elems[0], to.elems[0]), {0}),
          b_.CreateExtractValue(v, {1}), {1});
    return b_.CreateInsertValue(
        b_.CreateInsertValue(UndefValue::get(llvmType(to)), convert(v, from, to.elems[0]), {0}),
        ConstantInt::getTrue(ctx_), {1});
  }
  if (from.isScalar() && to.isScalar())
    return convertScalar(v, from.scalar, to.scalar);
  if (from.isTuple() && to.isTuple()) {
    Value *agg = UndefValue::get(llvmType(to));
    for (unsigned i = 0; i < to.elems.size(); ++i)
      agg =
          b_.CreateInsertValue(agg, convert(b_.CreateExtractValue(v, {i}), from.elems[i], to.elems[i]), {i});
    return agg;
  }
  if (from.isArray() && to.isArray()) {
    Value *data = arrayField(v, 0, 0);
    if (addrSpace(from.space) != addrSpace(to.space))
      data = b_.CreateAddrSpaceCast(data, PointerType::get(ctx_, addrSpace(to.space)));
    Value *agg = UndefValue::get(llvmType(to));
    agg = b_.CreateInsertValue(agg, data, {0});
    agg = b_.CreateInsertValue(agg, b_.CreateExtractValue(v, {1}), {1});
    return b_.CreateInsertValue(agg, b_.CreateExtractValue(v, {2}), {2});
  }
  if (from.isRecord() && to.isRecord() && from.record == to.record) // the same bytes, another address space
    return b_.CreateAddrSpaceCast(v, PointerType::get(ctx_, addrSpace(to.space)));
  throw Error("internal error: cannot convert " + from.str() + " to " + to.str());
}

Value *Lowerer::truth(Value *v, const Type &t) {
  if (t.kind == TypeKind::None)
    return ConstantInt::getFalse(ctx_);
  return convertScalar(v, t.scalar, Scalar::Bool);
}

Value *Lowerer::fdiv(Value *a, Value *b) {
  if (a->getType()->isHalfTy()) // numba-cuda's float16 division is CUDA's __hdiv
    return halfDivide(*this, a, b);
  if (out_.info.fastmath && a->getType()->isFloatTy())
    return libdeviceCall("fast_fdivide", Scalar::F32, {a, b});
  return b_.CreateFDiv(a, b);
}

Value *Lowerer::fsqrt(Value *x) {
  if (out_.info.fastmath && x->getType()->isFloatTy())
    return libdeviceCall("sqrt", Scalar::F32, {x});
  return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
}

Value *Lowerer::libdeviceCall(const std::string &stem, Scalar t, ArrayRef<Value *> args, llvm::Type *ret) {
  std::string name = "__nv_" + stem + (t == Scalar::F32 ? "f" : "");
  std::vector<llvm::Type *> params;
  for (Value *a : args)
    params.push_back(a->getType());
  FunctionCallee f =
      mod_.getOrInsertFunction(name, FunctionType::get(ret ? ret : scalarType(t), params, false));
  if (auto *fn = dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setWillReturn();
    fn->setDoesNotAccessMemory();
  }
  return b_.CreateCall(f, args);
}

// ---- arithmetic --------------------------------------------------------------------------------

Value *Lowerer::intFloorDivMod(bool wantMod, Value *a, Value *b, Scalar t) {
  llvm::Type *lt = a->getType();
  Value *zero = ConstantInt::get(lt, 0), *one = ConstantInt::get(lt, 1);
  Value *isZero = b_.CreateICmpEQ(b, zero);
  // numba's numpy error model: x // 0 == x % 0 == 0. Divisors that trap on x86 (0, and -1
  // for signed) are replaced before dividing.
  if (!fe::isSigned(t)) {
    Value *bs = b_.CreateSelect(isZero, one, b);
    Value *r = wantMod ? b_.CreateURem(a, bs) : b_.CreateUDiv(a, bs);
    return b_.CreateSelect(isZero, zero, r);
  }
  Value *allOnes = ConstantInt::get(lt, -1, true);
  Value *isNegOne = b_.CreateICmpEQ(b, allOnes);
  Value *bs = b_.CreateSelect(b_.CreateOr(isZero, isNegOne), one, b);
  Value *q = b_.CreateSDiv(a, bs);
  Value *r = b_.CreateSRem(a, bs);
  // x // -1 is -x, but MIN // -1 (which overflows) is 0, as numba-cuda defines it (its
  // int_divmod_signed: "we return 0, 0 instead").
  Value *isMin = b_.CreateICmpEQ(a, ConstantInt::get(lt, APInt::getSignedMinValue(lt->getIntegerBitWidth())));
  q = b_.CreateSelect(isNegOne, b_.CreateSelect(isMin, zero, b_.CreateSub(zero, a)), q);
  r = b_.CreateSelect(isNegOne, zero, r);
  // Floor: adjust when the remainder is non-zero and its sign differs from the divisor's.
  Value *adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpSLT(b_.CreateXor(r, b), zero));
  Value *res = wantMod ? b_.CreateSelect(adjust, b_.CreateAdd(r, b), r)
                       : b_.CreateSelect(adjust, b_.CreateSub(q, one), q);
  return b_.CreateSelect(isZero, zero, res);
}

Value *Lowerer::floatFloorDivMod(bool wantMod, Value *a, Value *b, Scalar t) {
  // numba's real_divmod (CPython's float floor division), with fmod from libdevice.
  llvm::Type *lt = a->getType();
  Value *zero = ConstantFP::get(lt, 0.0);
  Value *mod = libdeviceCall("fmod", t, {a, b});
  Value *div = fdiv(b_.CreateFSub(a, mod), b);
  Value *modNZ = b_.CreateFCmpUNE(mod, zero);
  Value *fix = b_.CreateAnd(modNZ, b_.CreateICmpNE(b_.CreateFCmpOLT(b, zero), b_.CreateFCmpOLT(mod, zero)));
  Value *copysignB = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, b);
  Value *mod1 = b_.CreateSelect(fix, b_.CreateFAdd(mod, b), mod);
  Value *modRes = b_.CreateSelect(modNZ, mod1, copysignB);
  Value *isZero = b_.CreateFCmpOEQ(b, zero);
  if (wantMod)
    return b_.CreateSelect(isZero, mod, modRes); // x % 0.0: fmod's NaN
  Value *div1 = b_.CreateSelect(fix, b_.CreateFSub(div, ConstantFP::get(lt, 1.0)), div);
  Value *fl = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, div1);
  Value *fl2 = b_.CreateSelect(b_.CreateFCmpOGT(b_.CreateFSub(div1, fl), ConstantFP::get(lt, 0.5)),
                               b_.CreateFAdd(fl, ConstantFP::get(lt, 1.0)), fl);
  Value *quot = fdiv(a, b);
  Value *res = b_.CreateSelect(b_.CreateFCmpUNE(div1, zero), fl2,
                               b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, quot));
  return b_.CreateSelect(isZero, quot, res); // x // 0.0: inf or nan
}

Value *Lowerer::shift(fe::BinOp op, Value *a, Value *b, Scalar t) {
  // Amounts of the width or more (or negative) are clamped as PTX's shl/shr do, instead of
  // LLVM's poison: shl and logical shr give 0, arithmetic shr gives the sign.
  llvm::Type *lt = a->getType();
  unsigned w = fe::bitWidth(t);
  Value *big = b_.CreateICmpUGE(b, ConstantInt::get(lt, w));
  Value *amt = b_.CreateSelect(big, ConstantInt::get(lt, w - 1), b);
  if (op == fe::BinOp::LShift)
    return b_.CreateSelect(big, ConstantInt::get(lt, 0), b_.CreateShl(a, amt));
  if (fe::isSigned(t))
    return b_.CreateAShr(a, amt);
  return b_.CreateSelect(big, ConstantInt::get(lt, 0), b_.CreateLShr(a, amt));
}

Value *Lowerer::power(Value *a, Value *b, Scalar ta, Scalar tb, Scalar result) {
  if (fe::isComplex(result))
    return complexPower(convertScalar(a, ta, result), convertScalar(b, tb, result), result);
  llvm::Type *rt = scalarType(result);
  if (fe::isFloat(tb)) // float ** float
    return libdeviceCall("pow", result, {a, b});
  // Base ** integer: numba's int_power, square-and-multiply in the result type.
  Value *base = convertScalar(a, ta, result);
  llvm::Type *et = b->getType();
  bool expSigned = fe::isSigned(tb);
  Value *zeroE = ConstantInt::get(et, 0);
  Value *neg = expSigned ? b_.CreateICmpSLT(b, zeroE) : ConstantInt::getFalse(ctx_);
  Value *exp = b_.CreateSelect(neg, b_.CreateSub(zeroE, b), b);
  bool isInt = fe::isInteger(result);

  BasicBlock *pre = b_.GetInsertBlock();
  auto *bigB = BasicBlock::Create(ctx_, "pow.big", fn_);
  auto *loopB = BasicBlock::Create(ctx_, "pow.loop", fn_);
  auto *doneB = BasicBlock::Create(ctx_, "pow.done", fn_);
  auto *endB = BasicBlock::Create(ctx_, "pow.end", fn_);
  Value *isBig = b_.CreateICmpUGT(exp, ConstantInt::get(et, 0x10000));
  b_.CreateCondBr(isBig, bigB, loopB);

  // Cutoff: math.pow(a, float(b)) in double, converted back.
  b_.SetInsertPoint(bigB);
  Value *pw = libdeviceCall("pow", Scalar::F64,
                            {convertScalar(base, result, Scalar::F64), convertScalar(b, tb, Scalar::F64)});
  Value *bigRes = convertScalar(pw, Scalar::F64, result);
  b_.CreateBr(endB);

  b_.SetInsertPoint(loopB);
  PHINode *r = b_.CreatePHI(rt, 2, "pow.r");
  PHINode *x = b_.CreatePHI(rt, 2, "pow.x");
  PHINode *e = b_.CreatePHI(et, 2, "pow.e");
  Value *oneR = isInt ? (Value *)ConstantInt::get(rt, 1) : ConstantFP::get(rt, 1.0);
  r->addIncoming(oneR, pre);
  x->addIncoming(base, pre);
  e->addIncoming(exp, pre);
  Value *eZero = b_.CreateICmpEQ(e, zeroE);
  auto *bodyB = BasicBlock::Create(ctx_, "pow.body", fn_);
  b_.CreateCondBr(eZero, doneB, bodyB);
  b_.SetInsertPoint(bodyB);
  Value *odd = b_.CreateTrunc(e, llvm::Type::getInt1Ty(ctx_));
  Value *mulR = isInt ? b_.CreateMul(r, x) : b_.CreateFMul(r, x);
  Value *r2 = b_.CreateSelect(odd, mulR, r);
  Value *x2 = isInt ? b_.CreateMul(x, x) : b_.CreateFMul(x, x);
  Value *e2 = b_.CreateLShr(e, 1);
  r->addIncoming(r2, bodyB);
  x->addIncoming(x2, bodyB);
  e->addIncoming(e2, bodyB);
  b_.CreateBr(loopB);

  b_.SetInsertPoint(doneB);
  Value *res = r;
  if (isInt) {
    // Negative exponents: 0 ** -n gives the type's minimum (numpy error model), +-1 ** -n
    // gives +-1 ** n, anything else truncates to 0.
    Value *isZeroBase = b_.CreateICmpEQ(base, ConstantInt::get(rt, 0));
    Value *isUnit = b_.CreateOr(b_.CreateICmpEQ(base, ConstantInt::get(rt, 1)),
                                b_.CreateICmpEQ(base, ConstantInt::get(rt, -1, true)));
    Value *minV = ConstantInt::get(rt, APInt::getSignMask(fe::bitWidth(result)));
    Value *negRes = b_.CreateSelect(isZeroBase, minV, b_.CreateSelect(isUnit, r, ConstantInt::get(rt, 0)));
    res = b_.CreateSelect(neg, negRes, r);
  } else {
    res = b_.CreateSelect(neg, fdiv(ConstantFP::get(rt, 1.0), r), r);
  }
  BasicBlock *doneEnd = b_.GetInsertBlock();
  b_.CreateBr(endB);
  b_.SetInsertPoint(endB);
  PHINode *out = b_.CreatePHI(rt, 2, "pow");
  out->addIncoming(bigRes, bigB);
  out->addIncoming(res, doneEnd);
  return out;
}

Value *Lowerer::binary(fe::BinOp op, Value *a, Value *b, Scalar t) {
  using fe::BinOp;
  if (fe::isComplex(t))
    return complexBinary(op, a, b, t);
  if (t == Scalar::BF16) { // + - * / in float32, rounded once (bfloat16.h); exact division
    Value *x = bfloat16ToFloat(b_, a), *y = bfloat16ToFloat(b_, b);
    return floatToBfloat16(b_, op == fe::BinOp::Div ? b_.CreateFDiv(x, y) : binary(op, x, y, Scalar::F32));
  }
  if (fe::isFloat(t)) {
    switch (op) {
    case BinOp::Add: return b_.CreateFAdd(a, b);
    case BinOp::Sub: return b_.CreateFSub(a, b);
    case BinOp::Mul: return b_.CreateFMul(a, b);
    case BinOp::Div: return fdiv(a, b);
    case BinOp::FloorDiv: return floatFloorDivMod(false, a, b, t);
    case BinOp::Mod: return floatFloorDivMod(true, a, b, t);
    default: break;
    }
  } else {
    switch (op) {
    case BinOp::Add: return b_.CreateAdd(a, b);
    case BinOp::Sub: return b_.CreateSub(a, b);
    case BinOp::Mul: return b_.CreateMul(a, b);
    case BinOp::FloorDiv: return intFloorDivMod(false, a, b, t);
    case BinOp::Mod: return intFloorDivMod(true, a, b, t);
    case BinOp::BitAnd: return b_.CreateAnd(a, b);
    case BinOp::BitOr: return b_.CreateOr(a, b);
    case BinOp::BitXor: return b_.CreateXor(a, b);
    default: break;
    }
  }
  throw Error(std::string("internal error: operator ") + fe::binOpSymbol(op) + " not lowered for " +
              fe::scalarName(t));
}

void Lowerer::raiseOnZeroDivisor(fe::BinOp op, Value *divisor, Scalar t, SourceLoc loc) {
  // numba's error model: "python" with debug=True (ZeroDivisionError, its messages),
  // "numpy" otherwise (a result without an exception, lowered in intFloorDivMod & co.).
  if (!out_.info.debug || fe::isComplex(t) ||
      (op != fe::BinOp::Div && op != fe::BinOp::FloorDiv && op != fe::BinOp::Mod))
    return;
  if (out_.info.fastmath && op == fe::BinOp::Div && t == Scalar::F32)
    return; // numba-cuda's fastmath float32 `/` is __nv_fast_fdividef, with no zero check

  bool integer = fe::isInteger(t);
  const char *what = op == fe::BinOp::Div        ? "division by zero"
                     : op == fe::BinOp::FloorDiv ? (integer ? "integer division by zero" : "division by zero")
                                                 : (integer ? "integer modulo by zero" : "modulo by zero");
  Value *zero = integer ? ConstantInt::get(divisor->getType(), 0) : ConstantFP::get(divisor->getType(), 0.0);
  Value *isZero = integer ? b_.CreateICmpEQ(divisor, zero) : b_.CreateFCmpOEQ(divisor, zero);
  raiseExceptionIf(isZero, loc, std::string("ZeroDivisionError: ") + what);
}

Value *Lowerer::lowerBinOp(const fe::BinOpExpr &be) {
  const fe::ExprInfo &ei = info(be);
  Scalar la = ei.operandTypes[0], rb = ei.operandTypes[1], res = ei.type.scalar;
  Value *l = lowerAs(*be.lhs, Type::scalarOf(la));
  Value *r = lowerAs(*be.rhs, Type::scalarOf(rb));
  setLoc(be.loc);
  raiseOnZeroDivisor(be.op, r, rb, be.loc);
  return binaryOperation(be.op, l, r, la, rb, res);
}

Value *Lowerer::binaryOperation(fe::BinOp op, Value *l, Value *r, Scalar la, Scalar rb, Scalar res) {
  if (fe::isTime(la) || fe::isTime(rb))
    return timeBinary(b_, op, l, r, la, rb, res); // NaT-propagating (datetime.h)
  switch (op) {
  case fe::BinOp::Div:
    if (la == Scalar::BF16)
      return binary(op, l, r, la);
    if (fe::isInteger(la)) // int / int: both to float64 (numba's int_truediv)
      return fdiv(convertScalar(l, la, Scalar::F64), convertScalar(r, rb, Scalar::F64));
    if (fe::isComplex(la))
      return complexBinary(op, l, r, la);
    return fdiv(l, r);
  case fe::BinOp::Pow: return power(l, r, la, rb, res);
  case fe::BinOp::LShift:
  case fe::BinOp::RShift: return shift(op, convertScalar(l, la, res), convertScalar(r, rb, res), res);
  default: return binary(op, l, r, la);
  }
}

Value *Lowerer::unaryOperation(fe::UnaryOp op, Value *v, Scalar t) {
  switch (op) {
  case fe::UnaryOp::Neg:
    if (fe::isComplex(t))
      return makeComplex(b_.CreateFNeg(realPart(v)), b_.CreateFNeg(imagPart(v)), t);
    if (t == Scalar::BF16) // the sign bit, as neg.bf16
      return b_.CreateXor(v, b_.getInt16(0x8000));
    return fe::isFloat(t) ? b_.CreateFNeg(v) : b_.CreateNeg(v);
  case fe::UnaryOp::Invert: return b_.CreateNot(v);
  default: return v; // +x
  }
}

Value *Lowerer::lowerUnary(const fe::UnaryOpExpr &u) {
  const fe::ExprInfo &ei = info(u);
  if (u.op == fe::UnaryOp::Not)
    return b_.CreateNot(truth(lowerExpr(*u.operand), info(*u.operand).type));
  Scalar t = ei.operandTypes[0];
  Value *v = lowerAs(*u.operand, Type::scalarOf(t));
  return unaryOperation(u.op, convertScalar(v, t, ei.type.scalar), ei.type.scalar);
}

Value *Lowerer::lowerBoolOp(const fe::BoolOpExpr &bo) {
  // Python semantics: the value of the first operand that decides the result.
  const Type &rt = info(bo).type;
  AllocaInst *slot = entryAlloca(llvmType(rt), bo.isAnd ? "and" : "or");
  auto *end = BasicBlock::Create(ctx_, bo.isAnd ? "and.end" : "or.end", fn_);
  for (size_t i = 0; i < bo.values.size(); ++i) {
    const fe::Expr &v = *bo.values[i];
    Value *val = lowerExpr(v);
    b_.CreateStore(convert(val, info(v).type, rt), slot);
    if (i + 1 == bo.values.size()) {
      b_.CreateBr(end);
      break;
    }
    Value *t = truth(val, info(v).type);
    auto *next = BasicBlock::Create(ctx_, "bool.next", fn_);
    if (bo.isAnd)
      b_.CreateCondBr(t, next, end);
    else
      b_.CreateCondBr(t, end, next);
    b_.SetInsertPoint(next);
  }
  b_.SetInsertPoint(end);
  return b_.CreateLoad(llvmType(rt), slot);
}

Value *Lowerer::compare(fe::CmpOp op, Value *a, Value *b, Scalar t) {
  using fe::CmpOp;
  if (fe::isTime(t))
    return timeCompare(b_, op, a, b);
  if (fe::isComplex(t))
    return complexCompare(op, a, b);
  if (t == Scalar::BF16) // as their float32 values (exact)
    return compare(op, bfloat16ToFloat(b_, a), bfloat16ToFloat(b_, b), Scalar::F32);
  if (fe::isFloat(t)) {
    switch (op) {
    case CmpOp::Eq: return b_.CreateFCmpOEQ(a, b);
    case CmpOp::NotEq: return b_.CreateFCmpUNE(a, b); // NaN != NaN is True
    case CmpOp::Lt: return b_.CreateFCmpOLT(a, b);
    case CmpOp::LtE: return b_.CreateFCmpOLE(a, b);
    case CmpOp::Gt: return b_.CreateFCmpOGT(a, b);
    case CmpOp::GtE: return b_.CreateFCmpOGE(a, b);
    default: break;
    }
  } else {
    bool s = fe::isSigned(t);
    switch (op) {
    case CmpOp::Eq: return b_.CreateICmpEQ(a, b);
    case CmpOp::NotEq: return b_.CreateICmpNE(a, b);
    case CmpOp::Lt: return s ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
    case CmpOp::LtE: return s ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
    case CmpOp::Gt: return s ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b);
    case CmpOp::GtE: return s ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
    default: break;
    }
  }
  throw Error("internal error: comparison not lowered");
}

void Lowerer::tupleLeaves(Value *tuple, const Type &t, std::vector<std::pair<Value *, Type>> &out) {
  for (unsigned k = 0; k < t.elems.size(); ++k) {
    Value *e = b_.CreateExtractValue(tuple, {k});
    if (t.elems[k].isTuple())
      tupleLeaves(e, t.elems[k], out);
    else
      out.push_back({e, t.elems[k]});
  }
}

Value *Lowerer::lowerCompare(const fe::CompareExpr &c) {
  const fe::ExprInfo &ei = info(c);
  Value *left = lowerExpr(*c.left);
  Type leftT = info(*c.left).type;
  if (c.ops.size() == 1 && ei.operandTypes.empty()) { // an Optional `is` / `is not` None
    const Type &rightT = info(*c.comparators[0]).type;
    Value *optional = leftT.isOptional() ? left : lowerExpr(*c.comparators[0]);
    if (!leftT.isOptional() && !rightT.isOptional())
      throw Error("internal error: an identity comparison without an Optional operand");
    Value *present = b_.CreateExtractValue(optional, {1});
    return c.ops[0] == fe::CmpOp::Is ? b_.CreateNot(present) : present;
  }
  if (c.ops.size() == 1 && leftT.isTuple()) { // tuples (and tuple-valued enum members): element by element
    std::vector<std::pair<Value *, Type>> xs, ys;
    tupleLeaves(left, leftT, xs);
    tupleLeaves(lowerExpr(*c.comparators[0]), info(*c.comparators[0]).type, ys);
    Value *all = ConstantInt::getTrue(ctx_);
    for (size_t k = 0; k < xs.size(); ++k) {
      Scalar a = ei.operandTypes[2 * k], b = ei.operandTypes[2 * k + 1];
      all = b_.CreateAnd(all, compare(fe::CmpOp::Eq, convert(xs[k].first, xs[k].second, Type::scalarOf(a)),
                                      convert(ys[k].first, ys[k].second, Type::scalarOf(b)), a));
    }
    bool equal = c.ops[0] == fe::CmpOp::Eq || c.ops[0] == fe::CmpOp::Is;
    return equal ? all : b_.CreateNot(all);
  }
  if (c.ops.size() == 1) {
    Scalar a = ei.operandTypes[0], b = ei.operandTypes[1];
    Value *r = lowerExpr(*c.comparators[0]);
    fe::CmpOp op = c.ops[0] == fe::CmpOp::Is      ? fe::CmpOp::Eq
                   : c.ops[0] == fe::CmpOp::IsNot ? fe::CmpOp::NotEq
                                                  : c.ops[0];
    return compare(op, convert(left, leftT, Type::scalarOf(a)),
                   convert(r, info(*c.comparators[0]).type, Type::scalarOf(b)), a);
  }
  // a < b < c: each middle operand evaluated once; stop at the first false link.
  AllocaInst *slot = entryAlloca(llvm::Type::getInt1Ty(ctx_), "cmp");
  b_.CreateStore(ConstantInt::getFalse(ctx_), slot);
  auto *end = BasicBlock::Create(ctx_, "cmp.end", fn_);
  for (size_t i = 0; i < c.ops.size(); ++i) {
    Scalar a = ei.operandTypes[2 * i], b = ei.operandTypes[2 * i + 1];
    Value *right = lowerExpr(*c.comparators[i]);
    const Type &rightT = info(*c.comparators[i]).type;
    Value *ok = compare(c.ops[i], convert(left, leftT, Type::scalarOf(a)),
                        convert(right, rightT, Type::scalarOf(b)), a);
    if (i + 1 == c.ops.size()) {
      b_.CreateStore(ok, slot);
      b_.CreateBr(end);
      break;
    }
    auto *next = BasicBlock::Create(ctx_, "cmp.next", fn_);
    b_.CreateCondBr(ok, next, end);
    b_.SetInsertPoint(next);
    left = right;
    leftT = rightT;
  }
  b_.SetInsertPoint(end);
  return b_.CreateLoad(llvm::Type::getInt1Ty(ctx_), slot);
}

Value *Lowerer::lowerIfExp(const fe::IfExpExpr &ie) {
  const Type &rt = info(ie).type;
  AllocaInst *slot = entryAlloca(llvmType(rt), "ifexp");
  Value *c = truth(lowerExpr(*ie.test), info(*ie.test).type);
  auto *thenB = BasicBlock::Create(ctx_, "ifexp.then", fn_);
  auto *elseB = BasicBlock::Create(ctx_, "ifexp.else", fn_);
  auto *end = BasicBlock::Create(ctx_, "ifexp.end", fn_);
  b_.CreateCondBr(c, thenB, elseB);
  b_.SetInsertPoint(thenB);
  b_.CreateStore(lowerAs(*ie.body, rt), slot);
  b_.CreateBr(end);
  b_.SetInsertPoint(elseB);
  b_.CreateStore(lowerAs(*ie.orelse, rt), slot);
  b_.CreateBr(end);
  b_.SetInsertPoint(end);
  return b_.CreateLoad(llvmType(rt), slot);
}

Value *Lowerer::laneId() {
  // The thread's position in its warp: its linear index in the block modulo 32, which is
  // how the GPU forms warps (and what %laneid reads).
  Value *linear =
      b_.CreateAdd(specialRegister(fe::Access::ThreadIdx, 0),
                   b_.CreateMul(specialRegister(fe::Access::BlockDim, 0),
                                b_.CreateAdd(specialRegister(fe::Access::ThreadIdx, 1),
                                             b_.CreateMul(specialRegister(fe::Access::BlockDim, 1),
                                                          specialRegister(fe::Access::ThreadIdx, 2)))));
  return b_.CreateAnd(linear, b_.getInt32(31));
}

Value *Lowerer::specialRegister(fe::Access reg, unsigned dim) {
  auto read = [&](Intrinsic id) { return b_.CreateCall(getIntrinsic(mod_, id)); };
  switch (reg) {
  case fe::Access::ThreadIdx: return read(threadIdxIntrinsic(dim));
  case fe::Access::BlockIdx: return read(blockIdxIntrinsic(dim));
  case fe::Access::BlockDim: return read(blockDimIntrinsic(dim));
  case fe::Access::GridDim: return read(gridDimIntrinsic(dim));
  case fe::Access::None:
  case fe::Access::LaneId:
  case fe::Access::TupleField:
  case fe::Access::ArrayShape:
  case fe::Access::ArrayStrides:
  case fe::Access::ArraySize:
  case fe::Access::RealPart:
  case fe::Access::ImagPart:
  case fe::Access::TupleIndices:
  case fe::Access::Slices:
  case fe::Access::TupleStatic:
  case fe::Access::TupleDynamic:
  case fe::Access::RecordField:
  case fe::Access::Transpose:
  case fe::Access::EnumValue:
  case fe::Access::TupleSlice: break;
  }
  throw Error("internal error: not a special register");
}

Value *Lowerer::lowerAttribute(const fe::AttributeExpr &a) {
  const fe::ExprInfo &ei = info(a);
  using A = fe::Access;
  switch (ei.access) {
  case A::TupleField: return b_.CreateExtractValue(lowerExpr(*a.value), {unsigned(ei.staticIndex)});
  case A::LaneId: return laneId();
  case A::EnumValue: return lowerExpr(*a.value); // (a member is its value)
  case A::ThreadIdx:
  case A::BlockIdx:
  case A::BlockDim:
  case A::GridDim: return specialRegister(ei.access, unsigned(ei.staticIndex));
  case A::ArraySize: {
    Value *arr = lowerExpr(*a.value);
    const Type &at = info(*a.value).type;
    Value *n = ConstantInt::get(llvm::Type::getInt64Ty(ctx_), 1);
    for (unsigned k = 0; k < at.ndim; ++k)
      n = b_.CreateMul(n, arrayField(arr, 1, k));
    return n;
  }
  case A::ArrayShape:
  case A::ArrayStrides: {
    Value *arr = lowerExpr(*a.value);
    const Type &at = info(*a.value).type;
    unsigned field = ei.access == A::ArrayShape ? 1 : 2;
    Value *agg = UndefValue::get(llvmType(ei.type));
    for (unsigned k = 0; k < at.ndim; ++k)
      agg = b_.CreateInsertValue(agg, arrayField(arr, field, k), {k});
    return agg;
  }
  case A::RealPart:
  case A::ImagPart: {
    const Type &vt = info(*a.value).type;
    Scalar t = vt.scalar;
    Value *v = lowerExpr(*a.value);
    bool real = ei.access == A::RealPart;
    if (vt.isArray()) { // a view of the parts: the same shape and byte strides
      if (!fe::isComplex(t))
        return v;
      Value *data = arrayField(v, 0, 0);
      if (!real)
        data = b_.CreateInBoundsGEP(b_.getInt8Ty(), data, b_.getInt64(fe::byteSize(fe::partOf(t))));
      std::vector<Value *> shape, strides;
      for (unsigned k = 0; k < vt.ndim; ++k) {
        shape.push_back(arrayField(v, 1, k));
        strides.push_back(arrayField(v, 2, k));
      }
      return buildArray(ei.type, data, shape, strides);
    }
    if (fe::isComplex(t))
      return real ? realPart(v) : imagPart(v);
    return real ? v : Constant::getNullValue(v->getType()); // a real number
  }
  case A::RecordField: return recordField(lowerExpr(*a.value), info(*a.value).type, unsigned(ei.staticIndex));
  case A::Transpose: {
    std::vector<unsigned> reversed;
    for (unsigned k = ei.type.ndim; k-- > 0;)
      reversed.push_back(k);
    return permutedView(*this, lowerExpr(*a.value), ei.type, reversed);
  }
  case A::None:
  case A::TupleIndices:
  case A::Slices:
  case A::TupleStatic:
  case A::TupleSlice:
  case A::TupleDynamic: return nullptr; // modules, type objects: compile-time only
  }
  return nullptr;
}

Value *Lowerer::lowerTuple(const fe::TupleExpr &t) {
  const Type &tt = info(t).type;
  Value *agg = UndefValue::get(llvmType(tt));
  for (unsigned i = 0; i < t.elts.size(); ++i) {
    Value *v = lowerExpr(*t.elts[i]);
    if (!v) // a module, function or type (`(math.sin, x)`): its place holds nothing
      v = UndefValue::get(llvmType(tt.elems[i]));
    agg = b_.CreateInsertValue(agg, v, {i});
  }
  return agg;
}

} // namespace cutwin::ir
