// Complex numbers: complex64/complex128 values are {real, imag} structs of float/double.
// Arithmetic follows numba's implementations (which follow CPython): the textbook
// product, Smith's scaled quotient, abs as hypot; the cmath functions are written from
// the math functions (libdevice on both backends, so simulator and GPU agree to the bit).
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
    return b_.CreateAnd(b_.CreateFCmpOEQ(realPart(x), realPart(y)), b_.CreateFCmpOEQ(imagPart(x), imagPart(y)));
  return b_.CreateOr(b_.CreateFCmpUNE(realPart(x), realPart(y)), b_.CreateFCmpUNE(imagPart(x), imagPart(y)));
}

Value *Lowerer::complexAbs(Value *z, Scalar t) {
  return libdeviceCall("hypot", fe::partOf(t), {realPart(z), imagPart(z)});
}

Value *Lowerer::lowerCmathCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  const std::string fn = ci.builtin.substr(6);
  std::vector<Value *> args;
  for (size_t i = 0; i < c.args.size(); ++i)
    args.push_back(lowerAs(*c.args[i], Type::scalarOf(ci.operandTypes[i])));
  setLoc(c.loc);
  Scalar z = ci.operandTypes[0], p = fe::partOf(z);
  auto math = [&](const char *name, std::vector<Value *> a) { return libdeviceCall(name, p, a); };
  Value *inf = ConstantFP::getInfinity(scalarType(p));
  auto isNan = [&](Value *v) { return b_.CreateFCmpUNO(v, v); };
  auto isInf = [&](Value *v) { return b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(Intrinsic::fabs, v), inf); };
  auto isFinite = [&](Value *v) { return b_.CreateFCmpOLT(b_.CreateUnaryIntrinsic(Intrinsic::fabs, v), inf); };
  if (fn == "rect") { // r * (cos(phi) + i sin(phi)); p is the arguments' float type
    Value *r = args[0], *phi = args[1];
    return makeComplex(b_.CreateFMul(r, math("cos", {phi})), b_.CreateFMul(r, math("sin", {phi})),
                       fe::complexOf(p));
  }
  Value *a = realPart(args[0]), *b = imagPart(args[0]);
  if (fn == "isnan")
    return b_.CreateOr(isNan(a), isNan(b));
  if (fn == "isinf")
    return b_.CreateOr(isInf(a), isInf(b));
  if (fn == "isfinite")
    return b_.CreateAnd(isFinite(a), isFinite(b));
  if (fn == "phase")
    return math("atan2", {b, a});
  if (fn == "polar") {
    Value *t = UndefValue::get(llvmType(ci.type));
    t = b_.CreateInsertValue(t, complexAbs(args[0], z), {0});
    return b_.CreateInsertValue(t, math("atan2", {b, a}), {1});
  }
  return cmathUnary(fn, args[0], z);
}

Value *Lowerer::cmathUnary(const std::string &fn, Value *zv, Scalar z) {
  Scalar p = fe::partOf(z);
  auto math = [&](const char *name, std::vector<Value *> a) { return libdeviceCall(name, p, a); };
  Value *fzero = ConstantFP::get(scalarType(p), 0.0);
  Value *a = realPart(zv), *b = imagPart(zv);
  std::vector<Value *> args = {zv};
  if (fn == "exp") { // e^a (cos b + i sin b)
    Value *ea = math("exp", {a});
    return makeComplex(b_.CreateFMul(ea, math("cos", {b})), b_.CreateFMul(ea, math("sin", {b})), z);
  }
  if (fn == "log" || fn == "log10") { // log|z| + i arg z
    Value *re = math("log", {complexAbs(args[0], z)}), *im = math("atan2", {b, a});
    if (fn == "log10") {
      Value *ln10 = ConstantFP::get(scalarType(p), 2.302585092994045684017991454684364208);
      re = fdiv(re, ln10);
      im = fdiv(im, ln10);
    }
    return makeComplex(re, im, z);
  }
  if (fn == "sqrt") {
    // t = sqrt((|a| + |z|) / 2); a >= 0: (t, b / 2t); a < 0: (|b| / 2t, copysign(t, b)).
    Value *half = ConstantFP::get(scalarType(p), 0.5), *two = ConstantFP::get(scalarType(p), 2.0);
    Value *absA = b_.CreateUnaryIntrinsic(Intrinsic::fabs, a);
    Value *t = math("sqrt", {b_.CreateFMul(b_.CreateFAdd(absA, complexAbs(args[0], z)), half)});
    Value *twoT = b_.CreateFMul(two, t);
    Value *other = fdiv(b, twoT);
    Value *absOther = fdiv(b_.CreateUnaryIntrinsic(Intrinsic::fabs, b), twoT);
    Value *nonNeg = b_.CreateFCmpOGE(a, fzero);
    Value *re = b_.CreateSelect(nonNeg, t, absOther);
    Value *im = b_.CreateSelect(nonNeg, other, b_.CreateBinaryIntrinsic(Intrinsic::copysign, t, b));
    Value *isZero = b_.CreateAnd(b_.CreateFCmpOEQ(a, fzero), b_.CreateFCmpOEQ(b, fzero));
    return makeComplex(b_.CreateSelect(isZero, fzero, re), b_.CreateSelect(isZero, b, im), z);
  }
  Value *sa = nullptr, *ca = nullptr, *shb = nullptr, *chb = nullptr;
  auto trig = [&] { // sin a, cos a, sinh b, cosh b
    sa = math("sin", {a}), ca = math("cos", {a}), shb = math("sinh", {b}), chb = math("cosh", {b});
  };
  if (fn == "sin") { // sin a cosh b + i cos a sinh b
    trig();
    return makeComplex(b_.CreateFMul(sa, chb), b_.CreateFMul(ca, shb), z);
  }
  if (fn == "cos") { // cos a cosh b - i sin a sinh b
    trig();
    return makeComplex(b_.CreateFMul(ca, chb), b_.CreateFNeg(b_.CreateFMul(sa, shb)), z);
  }
  if (fn == "sinh") { // sinh a cos b + i cosh a sin b
    Value *sha = math("sinh", {a}), *cha = math("cosh", {a});
    return makeComplex(b_.CreateFMul(sha, math("cos", {b})), b_.CreateFMul(cha, math("sin", {b})), z);
  }
  if (fn == "cosh") { // cosh a cos b + i sinh a sin b
    Value *sha = math("sinh", {a}), *cha = math("cosh", {a});
    return makeComplex(b_.CreateFMul(cha, math("cos", {b})), b_.CreateFMul(sha, math("sin", {b})), z);
  }
  if (fn == "tan" || fn == "tanh") {
    // tan z = (sin 2a + i sinh 2b) / (cos 2a + cosh 2b); tanh z = -i tan(iz).
    Value *two = ConstantFP::get(scalarType(p), 2.0);
    Value *x = fn == "tan" ? a : b, *y = fn == "tan" ? b : a;
    Value *x2 = b_.CreateFMul(two, x), *y2 = b_.CreateFMul(two, y);
    Value *den = b_.CreateFAdd(math("cos", {x2}), math("cosh", {y2}));
    Value *re = fdiv(math("sin", {x2}), den), *im = fdiv(math("sinh", {y2}), den);
    return fn == "tan" ? makeComplex(re, im, z) : makeComplex(im, re, z);
  }
  // The inverse functions: Kahan's formulas for asin, acos and acosh, as CPython's cmath
  // uses them (sqrt of 1 -+ z keeps the principal branches), the rest by identities.
  auto cst = [&](double v) { return ConstantFP::get(scalarType(p), v); };
  auto op = [&](fe::BinOp o, Value *x, Value *y) { return complexBinary(o, x, y, z); };
  auto timesI = [&](Value *w) { return makeComplex(b_.CreateFNeg(imagPart(w)), realPart(w), z); };
  auto timesMinusI = [&](Value *w) { return makeComplex(imagPart(w), b_.CreateFNeg(realPart(w)), z); };
  // 1 - z is (1 - a, -b), not (1 + 0i) - z: the sign of a zero imaginary part picks the
  // side of a branch cut (asin(2 + 0i) = pi/2 + 1.317i, asin(2 - 0i) = pi/2 - 1.317i).
  auto oneMinusZ = [&] { return makeComplex(b_.CreateFSub(cst(1.0), a), b_.CreateFNeg(b), z); };
  auto onePlusZ = [&] { return makeComplex(b_.CreateFAdd(cst(1.0), a), b, z); };
  auto zMinusOne = [&] { return makeComplex(b_.CreateFSub(a, cst(1.0)), b, z); };
  if (fn == "asin" || fn == "acos") {
    Value *s1 = cmathUnary("sqrt", oneMinusZ(), z);
    Value *s2 = cmathUnary("sqrt", onePlusZ(), z);
    Value *r1 = realPart(s1), *i1 = imagPart(s1), *r2 = realPart(s2), *i2 = imagPart(s2);
    if (fn == "asin") // (atan2(a, Re(s1 s2)), asinh(Im(conj(s1) s2)))
      return makeComplex(math("atan2", {a, b_.CreateFSub(b_.CreateFMul(r1, r2), b_.CreateFMul(i1, i2))}),
                         math("asinh", {b_.CreateFSub(b_.CreateFMul(r1, i2), b_.CreateFMul(i1, r2))}), z);
    // acos: (2 atan2(Re s1, Re s2), asinh(Im(conj(s2) s1)))
    return makeComplex(b_.CreateFMul(cst(2.0), math("atan2", {r1, r2})),
                       math("asinh", {b_.CreateFSub(b_.CreateFMul(r2, i1), b_.CreateFMul(i2, r1))}), z);
  }
  if (fn == "acosh") { // s1 = sqrt(z - 1), s2 = sqrt(z + 1): (asinh(Re(conj(s1) s2)), 2 atan2(Im s1, Re s2))
    Value *s1 = cmathUnary("sqrt", zMinusOne(), z);
    Value *s2 = cmathUnary("sqrt", onePlusZ(), z);
    Value *r1 = realPart(s1), *i1 = imagPart(s1), *r2 = realPart(s2), *i2 = imagPart(s2);
    return makeComplex(math("asinh", {b_.CreateFAdd(b_.CreateFMul(r1, r2), b_.CreateFMul(i1, i2))}),
                       b_.CreateFMul(cst(2.0), math("atan2", {i1, r2})), z);
  }
  if (fn == "asinh") // -i asin(iz)
    return timesMinusI(cmathUnary("asin", timesI(zv), z));
  if (fn == "atanh") { // (log(1 + z) - log(1 - z)) / 2
    Value *d = op(fe::BinOp::Sub, cmathUnary("log", onePlusZ(), z), cmathUnary("log", oneMinusZ(), z));
    return makeComplex(b_.CreateFMul(cst(0.5), realPart(d)), b_.CreateFMul(cst(0.5), imagPart(d)), z);
  }
  if (fn == "atan") // -i atanh(iz)
    return timesMinusI(cmathUnary("atanh", timesI(zv), z));
  throw Error("internal error: cmath." + fn + " not lowered");
}

Value *Lowerer::complexPower(Value *zv, Value *w, Scalar t) {
  Scalar p = fe::partOf(t);
  Value *zero = ConstantFP::get(scalarType(p), 0.0), *one = ConstantFP::get(scalarType(p), 1.0);
  Value *general = cmathUnary("exp", complexBinary(fe::BinOp::Mul, w, cmathUnary("log", zv, t), t), t);
  auto isZero = [&](Value *x) {
    return b_.CreateAnd(b_.CreateFCmpOEQ(realPart(x), zero), b_.CreateFCmpOEQ(imagPart(x), zero));
  };
  Value *zeroBase = b_.CreateSelect(isZero(w), makeComplex(one, zero, t), makeComplex(zero, zero, t));
  return b_.CreateSelect(isZero(zv), zeroBase, general);
}

} // namespace cutwin::ir
