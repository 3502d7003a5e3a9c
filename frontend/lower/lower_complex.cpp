// Complex numbers: complex64/complex128 values are {real, imag} structs of float/double.
// Arithmetic follows numba's implementations (which follow CPython): the textbook
// product, Smith's scaled quotient, abs as hypot. The cmath functions are in
// frontend/builtins/cmath.cpp.
#include "frontend/builtins/math.h"
#include "frontend/lower/lowerer.h"

namespace cutwin::ir {

using namespace llvm;

Value *Lowerer::makeComplex(Value *re, Value *im, Scalar c) {
  Value *v = UndefValue::get(scalarType(c));
  v = b_.CreateInsertValue(v, re, {0});
  return b_.CreateInsertValue(v, im, {1});
}

Value *Lowerer::realPart(Value *z) { return b_.CreateExtractValue(z, {0}); }
Value *Lowerer::imagPart(Value *z) { return b_.CreateExtractValue(z, {1}); }

Value *Lowerer::convertComplex(Value *v, Scalar from, Scalar to) {
  Scalar pt = fe::partOf(to);
  if (fe::isComplex(from)) {
    if (to == Scalar::Bool) // true unless both parts are zero
      return b_.CreateOr(convertScalar(realPart(v), fe::partOf(from), Scalar::Bool),
                         convertScalar(imagPart(v), fe::partOf(from), Scalar::Bool));
    if (!fe::isComplex(to))
      throw Error(std::string("internal error: complex converted to ") + fe::scalarName(to));
    return makeComplex(convertScalar(realPart(v), fe::partOf(from), pt),
                       convertScalar(imagPart(v), fe::partOf(from), pt), to);
  }
  return makeComplex(convertScalar(v, from, pt), ConstantFP::get(scalarType(pt), 0.0), to);
}

Value *Lowerer::complexBinary(fe::BinOp op, Value *x, Value *y, Scalar t) {
  Scalar p = fe::partOf(t);
  Value *a = realPart(x), *b = imagPart(x), *c = realPart(y), *d = imagPart(y);
  switch (op) {
  case fe::BinOp::Add: return makeComplex(b_.CreateFAdd(a, c), b_.CreateFAdd(b, d), t);
  case fe::BinOp::Sub: return makeComplex(b_.CreateFSub(a, c), b_.CreateFSub(b, d), t);
  case fe::BinOp::Mul:
    return makeComplex(b_.CreateFSub(b_.CreateFMul(a, c), b_.CreateFMul(b, d)),
                       b_.CreateFAdd(b_.CreateFMul(a, d), b_.CreateFMul(b, c)), t);
  case fe::BinOp::Div: {
    // Smith's algorithm, as CPython and numba: scale by the larger part of the divisor.
    // A zero divisor gives (nan, nan) (numba raises ZeroDivisionError on the CPU only).
    Value *absC = b_.CreateUnaryIntrinsic(Intrinsic::fabs, c);
    Value *absD = b_.CreateUnaryIntrinsic(Intrinsic::fabs, d);
    Value *zero = ConstantFP::get(scalarType(p), 0.0);
    Value *nan = ConstantFP::getNaN(scalarType(p));
    // |c| >= |d|: ratio = d / c, denom = c + d * ratio
    Value *r1 = fdiv(d, c);
    Value *den1 = b_.CreateFAdd(c, b_.CreateFMul(d, r1));
    Value *re1 = fdiv(b_.CreateFAdd(a, b_.CreateFMul(b, r1)), den1);
    Value *im1 = fdiv(b_.CreateFSub(b, b_.CreateFMul(a, r1)), den1);
    Value *cZero = b_.CreateFCmpOEQ(c, zero);
    re1 = b_.CreateSelect(cZero, nan, re1);
    im1 = b_.CreateSelect(cZero, nan, im1);
    // otherwise: ratio = c / d, denom = c * ratio + d
    Value *r2 = fdiv(c, d);
    Value *den2 = b_.CreateFAdd(b_.CreateFMul(c, r2), d);
    Value *re2 = fdiv(b_.CreateFAdd(b_.CreateFMul(a, r2), b), den2);
    Value *im2 = fdiv(b_.CreateFSub(b_.CreateFMul(b, r2), a), den2);
    Value *dZero = b_.CreateFCmpOEQ(d, zero);
    re2 = b_.CreateSelect(dZero, nan, re2);
    im2 = b_.CreateSelect(dZero, nan, im2);
    Value *first = b_.CreateFCmpOGE(absC, absD);
    return makeComplex(b_.CreateSelect(first, re1, re2), b_.CreateSelect(first, im1, im2), t);
  }
  default: break;
  }
  throw Error(std::string("internal error: operator ") + fe::binOpSymbol(op) + " not lowered for complex");
}

Value *Lowerer::complexCompare(fe::CmpOp op, Value *x, Value *y) {
  if (op == fe::CmpOp::Eq)
    return b_.CreateAnd(b_.CreateFCmpOEQ(realPart(x), realPart(y)),
                        b_.CreateFCmpOEQ(imagPart(x), imagPart(y)));
  return b_.CreateOr(b_.CreateFCmpUNE(realPart(x), realPart(y)), b_.CreateFCmpUNE(imagPart(x), imagPart(y)));
}

Value *Lowerer::complexAbs(Value *z, Scalar t) {
  return libdeviceCall("hypot", fe::partOf(t), {realPart(z), imagPart(z)});
}

Value *Lowerer::complexPower(Value *zv, Value *w, Scalar t) {
  Scalar p = fe::partOf(t);
  Value *zero = ConstantFP::get(scalarType(p), 0.0), *one = ConstantFP::get(scalarType(p), 1.0);
  Value *general =
      cmathUnary(*this, "exp", complexBinary(fe::BinOp::Mul, w, cmathUnary(*this, "log", zv, t), t), t);
  auto isZero = [&](Value *x) {
    return b_.CreateAnd(b_.CreateFCmpOEQ(realPart(x), zero), b_.CreateFCmpOEQ(imagPart(x), zero));
  };
  Value *zeroBase = b_.CreateSelect(isZero(w), makeComplex(one, zero, t), makeComplex(zero, zero, t));
  return b_.CreateSelect(isZero(zv), zeroBase, general);
}

} // namespace cutwin::ir
