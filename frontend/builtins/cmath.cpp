// The cmath module: its functions on complex64/complex128 (real and integer arguments
// become complex128, complex64 stays, as in numba), with numba-cuda's algorithms (CPython's
// cmathmodule.c and NumPy's csqrt): their special cases for infinities, NaNs and signed
// zeros (C99 Annex G's values), written from the math functions (libdevice on both
// backends, so the simulator and the GPU agree to the bit). Special cases are selected
// after the general formula, without branches.
#include "frontend/builtins/builtin.h"
#include "frontend/builtins/math.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

#include <cfloat>
#include <cmath>

namespace cutwin {

namespace ir {
llvm::Value *lowerCmathBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace fe {

ExprInfo typeCmathBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                          const Builtin &b);

using S = Scalar;

namespace {
const char *const kCmath[] = {"isnan", "isinf", "isfinite", "phase", "polar", "rect", "exp",  "log",
                              "log10", "sqrt",  "sin",      "cos",   "tan",   "sinh", "cosh", "tanh",
                              "asin",  "acos",  "atan",     "asinh", "acosh", "atanh"};
} // namespace

std::span<const Builtin> cmathBuiltins() {
  static const BuiltinRows rows([](BuiltinRows &r) {
    for (unsigned i = 0; i < std::size(kCmath); ++i)
      r.add(std::string("cmath.") + kCmath[i], i, &typeCmathBuiltin, &ir::lowerCmathBuiltin);
  });
  return rows.rows();
}

ExprInfo typeCmathBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                          const Builtin &b) {
  const std::string fn = kCmath[b.op];
  // Real and integer arguments become complex128 (complex64 stays), as in numba.
  size_t arity = fn == "rect" || (fn == "log" && args.size() == 2) ? 2 : 1; // log(z, base)
  if (args.size() != arity)
    cx.error(c.loc, "cmath." + fn + "() takes " + std::to_string(arity) + " argument" +
                        (arity == 1 ? "" : "s") + ", " + std::to_string(args.size()) + " given");
  auto actual = cx.scalarArgs(c, args, ("cmath." + fn).c_str());
  ExprInfo info;
  if (fn == "rect") { // rect(r, phi): floats in, complex out
    S part = actual[0] == S::F32 && actual[1] == S::F32 ? S::F32 : S::F64;
    for (S a : actual)
      if (isComplex(a))
        cx.error(c.loc, "cmath.rect() takes real numbers");
    info.operandTypes = {part, part};
    info.type = Type::scalarOf(complexOf(part));
    return info;
  }
  S z = actual[0] == S::C64 && (arity == 1 || actual[1] == S::C64 || actual[1] == S::F32) ? S::C64 : S::C128;
  info.operandTypes = std::vector<S>(arity, z);
  if (fn == "isnan" || fn == "isinf" || fn == "isfinite")
    info.type = Type::scalarOf(S::Bool);
  else if (fn == "phase")
    info.type = Type::scalarOf(partOf(z));
  else if (fn == "polar")
    info.type = Type::uniTuple(Type::scalarOf(partOf(z)), 2);
  else
    info.type = Type::scalarOf(z);
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

static Value *cmathRect(LoweringContext &cx, Value *r, Value *phi, Scalar p);

namespace {
/// numba-cuda's thresholds, the same for both precisions: above kLarge the inverse
/// functions use their asymptotic forms; atanh's are its own.
constexpr double kLarge = FLT_MAX / 4;
const double kAtanhLarge = std::sqrt(FLT_MAX / 4);
const double kAtanhSmall = std::sqrt(FLT_MIN);
constexpr double kLn4 = 1.386294361119890618834464242916353136;
constexpr double kLn10 = 2.302585092994045684017991454684364208;
} // namespace

/// Helpers over one precision's parts (scalars of `p`).
struct CmathParts {
  LoweringContext &l;
  Scalar p, z;
  IRBuilder<> &b;
  Value *cst(double v) const { return ConstantFP::get(l.scalarType(p), v); }
  Value *fabs(Value *v) const { return b.CreateUnaryIntrinsic(Intrinsic::fabs, v); }
  Value *copysign(Value *m, Value *s) const { return b.CreateBinaryIntrinsic(Intrinsic::copysign, m, s); }
  Value *isNan(Value *v) const { return b.CreateFCmpUNO(v, v); }
  Value *isInf(Value *v) const { return b.CreateFCmpOEQ(fabs(v), ConstantFP::getInfinity(v->getType())); }
  Value *isFinite(Value *v) const { return b.CreateFCmpOLT(fabs(v), ConstantFP::getInfinity(v->getType())); }
  Value *math(const char *name, std::vector<Value *> a) const { return l.libdeviceCall(name, p, a); }
  Value *sel(Value *c, Value *x, Value *y) const { return b.CreateSelect(c, x, y); }
  Value *mul(Value *x, Value *y) const { return b.CreateFMul(x, y); }
  Value *add(Value *x, Value *y) const { return b.CreateFAdd(x, y); }
  Value *sub(Value *x, Value *y) const { return b.CreateFSub(x, y); }
  Value *neg(Value *x) const { return b.CreateFNeg(x); }
  Value *cplx(Value *re, Value *im) const { return l.makeComplex(re, im, z); }
  Value *re(Value *w) const { return l.realPart(w); }
  Value *im(Value *w) const { return l.imagPart(w); }
  /// w where `c`, else v (complex values).
  Value *pick(Value *c, Value *w, Value *v) const { return b.CreateSelect(c, w, v); }
};

Value *lowerCmathBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  const std::string fn = fe::kCmath[ci.function->op];
  std::vector<Value *> args;
  for (size_t i = 0; i < c.args.size(); ++i)
    args.push_back(cx.lowerAs(*c.args[i], Type::scalarOf(ci.operandTypes[i])));
  cx.setLoc(c.loc);
  Scalar z = ci.operandTypes[0], p = fe::partOf(z);
  if (fn == "rect")
    return cmathRect(cx, args[0], args[1], p);
  CmathParts m{cx, p, z, irb};
  Value *a = cx.realPart(args[0]), *b = cx.imagPart(args[0]);
  if (fn == "isnan")
    return irb.CreateOr(m.isNan(a), m.isNan(b));
  if (fn == "isinf")
    return irb.CreateOr(m.isInf(a), m.isInf(b));
  if (fn == "isfinite")
    return irb.CreateAnd(m.isFinite(a), m.isFinite(b));
  if (fn == "phase")
    return m.math("atan2", {b, a});
  if (fn == "polar") {
    Value *t = UndefValue::get(cx.llvmType(ci.type));
    t = irb.CreateInsertValue(t, cx.complexAbs(args[0], z), {0});
    return irb.CreateInsertValue(t, m.math("atan2", {b, a}), {1});
  }
  if (fn == "log" && args.size() == 2) // log(z, base) = log z / log base
    return cx.complexBinary(fe::BinOp::Div, cmathUnary(cx, "log", args[0], z),
                            cmathUnary(cx, "log", args[1], z), z);
  return cmathUnary(cx, fn, args[0], z);
}

/// rect(r, phi) = r (cos phi + i sin phi), keeping zeros where r is infinite and phi's
/// cosine or sine is zero, and rect(0, inf/nan) = 0, rect(inf, inf/nan) = inf + i phi.
static Value *cmathRect(LoweringContext &cx, Value *r, Value *phi, Scalar p) {
  IRBuilder<> &irb = cx.builder();
  CmathParts m{cx, p, fe::complexOf(p), irb};
  Value *c = m.math("cos", {phi}), *s = m.math("sin", {phi});
  Value *rInf = m.isInf(r), *zero = m.cst(0.0);
  Value *re = m.sel(irb.CreateAnd(irb.CreateFCmpOEQ(c, zero), rInf), cx.fdiv(c, r), m.mul(c, r));
  Value *im = m.sel(irb.CreateAnd(irb.CreateFCmpOEQ(s, zero), rInf), cx.fdiv(s, r), m.mul(s, r));
  Value *general = m.cplx(re, im);
  Value *phiOdd = irb.CreateNot(m.isFinite(phi));
  Value *rZero = irb.CreateFCmpOEQ(r, zero);
  Value *out = m.pick(irb.CreateAnd(phiOdd, rInf), m.cplx(r, phi), general);
  return m.pick(irb.CreateAnd(phiOdd, rZero), m.cplx(m.fabs(r), zero), out);
}

Value *cmathUnary(LoweringContext &cx, const std::string &fn, Value *zv, Scalar z) {
  IRBuilder<> &irb = cx.builder();
  Scalar p = fe::partOf(z);
  CmathParts m{cx, p, z, irb};
  Value *x = cx.realPart(zv), *y = cx.imagPart(zv);
  Value *zero = m.cst(0.0), *one = m.cst(1.0), *nan = ConstantFP::getNaN(cx.scalarType(p));
  auto timesI = [&](Value *w) { return m.cplx(m.neg(m.im(w)), m.re(w)); };      // i w
  auto minusITimes = [&](Value *w) { return m.cplx(m.im(w), m.neg(m.re(w))); }; // -i w
  if (fn == "exp") {
    Value *xf = m.isFinite(x), *yf = m.isFinite(y);
    Value *r = m.math("exp", {x}), *c = m.math("cos", {y}), *s = m.math("sin", {y});
    Value *out = m.cplx(m.mul(r, c), m.mul(r, s)); // finite x, or x = -inf with finite y
    Value *posInf = irb.CreateFCmpOEQ(x, ConstantFP::getInfinity(cx.scalarType(p)));
    Value *negInf = irb.CreateFCmpOEQ(x, ConstantFP::getInfinity(cx.scalarType(p), true));
    // x = +inf, finite y: inf times cos/sin where they are non-zero (exp(inf + 0i) = inf + 0i)
    Value *infRe = m.sel(irb.CreateFCmpUNE(c, zero), m.mul(c, x), c);
    Value *infIm = m.sel(irb.CreateFCmpUNE(s, zero), m.mul(s, x), s);
    Value *yOdd = irb.CreateNot(yf);
    out = m.pick(irb.CreateAnd(xf, yOdd), m.cplx(nan, nan), out);
    out = m.pick(m.isNan(x), m.pick(irb.CreateFCmpUNE(y, zero), m.cplx(x, x), m.cplx(x, y)), out);
    out = m.pick(posInf, m.pick(yf, m.cplx(infRe, infIm), m.cplx(x, nan)), out);
    return m.pick(irb.CreateAnd(negInf, yOdd), m.cplx(zero, zero), out);
  }
  if (fn == "log" || fn == "log10") { // log|z| + i arg z
    Value *re = m.math("log", {m.math("hypot", {x, y})}), *im = m.math("atan2", {y, x});
    if (fn == "log10") {
      re = cx.fdiv(re, m.cst(kLn10));
      im = cx.fdiv(im, m.cst(kLn10));
    }
    return m.cplx(re, im);
  }
  if (fn == "sqrt") {
    // NumPy's csqrt (FreeBSD's): scaled by 1/4 near overflow, Algorithm 312 (CACM 10).
    double maxv = p == Scalar::F32 ? double(FLT_MAX) : DBL_MAX;
    Value *thres = m.cst(maxv / (1.0 + 1.414213562373095048801688724209698079));
    Value *scale = irb.CreateOr(irb.CreateFCmpOGE(m.fabs(x), thres), irb.CreateFCmpOGE(m.fabs(y), thres));
    Value *quarter = m.cst(0.25), *half = m.cst(0.5), *two = m.cst(2.0);
    Value *a = m.sel(scale, m.mul(x, quarter), x), *bb = m.sel(scale, m.mul(y, quarter), y);
    Value *h = m.math("hypot", {a, bb});
    Value *nonNeg = irb.CreateFCmpOGE(a, zero);
    Value *t = m.math("sqrt", {m.mul(m.add(m.sel(nonNeg, a, m.neg(a)), h), half)});
    Value *twoT = m.mul(two, t);
    Value *re = m.sel(nonNeg, t, cx.fdiv(m.fabs(bb), twoT));
    Value *im = m.sel(nonNeg, cx.fdiv(bb, twoT), m.copysign(t, bb));
    Value *out = m.cplx(m.sel(scale, m.mul(re, two), re), m.sel(scale, m.mul(im, two), im));
    // special values, last to first in precedence
    Value *bMinusB = m.sub(y, y);
    Value *xInf = m.pick(irb.CreateFCmpOLT(x, zero), m.cplx(m.fabs(bMinusB), m.copysign(x, y)),
                         m.cplx(x, m.copysign(bMinusB, y)));
    out = m.pick(m.isInf(x), xInf, out);
    out = m.pick(m.isNan(x), m.cplx(x, x), out);
    out = m.pick(m.isInf(y), m.cplx(m.fabs(y), y), out);
    Value *bothZero = irb.CreateAnd(irb.CreateFCmpOEQ(x, zero), irb.CreateFCmpOEQ(y, zero));
    return m.pick(bothZero, m.cplx(m.fabs(y), y), out);
  }
  if (fn == "cosh" || fn == "cos") {
    if (fn == "cos") // cos z = cosh(i z)
      return cmathUnary(cx, "cosh", timesI(zv), z);
    Value *c = m.math("cos", {y}), *s = m.math("sin", {y});
    Value *out = m.cplx(m.mul(c, m.math("cosh", {x})), m.mul(s, m.math("sinh", {x})));
    // x = +-inf: inf + i y where y is NaN or 0, else inf with the signs of cos y and sin y;
    // the imaginary part negated for -inf
    Value *keepY = irb.CreateOr(m.isNan(y), irb.CreateFCmpOEQ(y, zero));
    Value *infRe = m.sel(keepY, m.fabs(x), m.copysign(x, c));
    Value *infIm = m.sel(keepY, y, m.copysign(x, s));
    infIm = m.sel(irb.CreateFCmpOLT(x, zero), m.neg(infIm), infIm);
    return m.pick(m.isInf(x), m.cplx(infRe, infIm), out);
  }
  if (fn == "sinh" || fn == "sin") {
    if (fn == "sin") // sin z = -i sinh(i z)
      return minusITimes(cmathUnary(cx, "sinh", timesI(zv), z));
    Value *c = m.math("cos", {y}), *s = m.math("sin", {y});
    Value *out = m.cplx(m.mul(c, m.math("sinh", {x})), m.mul(s, m.math("cosh", {x})));
    // x = +-inf: x + i NaN for a NaN y, else inf times cos/sin where they are non-zero
    Value *infRe = m.sel(irb.CreateFCmpUNE(c, zero), m.mul(c, x), c);
    Value *infIm = m.sel(irb.CreateFCmpUNE(s, zero), m.mul(s, m.fabs(x)), s);
    Value *inf = m.pick(m.isNan(y), m.cplx(x, y), m.cplx(infRe, infIm));
    return m.pick(m.isInf(x), inf, out);
  }
  if (fn == "tanh" || fn == "tan") {
    if (fn == "tan") // tan z = -i tanh(i z)
      return minusITimes(cmathUnary(cx, "tanh", timesI(zv), z));
    // CPython's c_tanh: tanh x (1 + tan^2 y) / d + i (tan y / d) sech^2 x, d = 1 + (tanh x tan y)^2
    Value *tx = m.math("tanh", {x}), *ty = m.math("tan", {y});
    Value *sech = cx.fdiv(one, m.math("cosh", {x}));
    Value *txty = m.mul(tx, ty);
    Value *den = m.add(one, m.mul(txty, txty));
    Value *out = m.cplx(cx.fdiv(m.mul(tx, m.add(one, m.mul(ty, ty))), den),
                        m.mul(m.mul(cx.fdiv(ty, den), sech), sech));
    Value *infIm = m.sel(m.isInf(y), zero, m.copysign(zero, m.math("sin", {m.mul(m.cst(2.0), y)})));
    return m.pick(m.isInf(x), m.cplx(m.copysign(one, x), infIm), out);
  }
  Value *large =
      irb.CreateOr(irb.CreateFCmpOGT(m.fabs(x), m.cst(kLarge)), irb.CreateFCmpOGT(m.fabs(y), m.cst(kLarge)));
  // log|z/2| + log 4 (= log|z| without overflow) for the large forms
  auto logHalfAbs = [&] {
    Value *half = m.cst(0.5);
    return m.add(m.math("log", {m.math("hypot", {m.mul(x, half), m.mul(y, half)})}), m.cst(kLn4));
  };
  auto sqrtOf = [&](Value *re, Value *im) { return cmathUnary(cx, "sqrt", m.cplx(re, im), z); };
  if (fn == "acos") {
    // s1 = sqrt(1 - z), s2 = sqrt(1 + z), the parts written out so that the sign of a zero
    // imaginary part picks the side of a branch cut
    Value *s1 = sqrtOf(m.sub(one, x), m.neg(y)), *s2 = sqrtOf(m.add(one, x), y);
    Value *out = m.cplx(m.mul(m.cst(2.0), m.math("atan2", {m.re(s1), m.re(s2)})),
                        m.math("asinh", {m.sub(m.mul(m.re(s2), m.im(s1)), m.mul(m.im(s2), m.re(s1)))}));
    Value *big = m.cplx(m.math("atan2", {m.fabs(y), x}), m.copysign(logHalfAbs(), m.neg(y)));
    return m.pick(large, big, out);
  }
  if (fn == "acosh") {
    Value *s1 = sqrtOf(m.sub(x, one), y), *s2 = sqrtOf(m.add(x, one), y);
    Value *out = m.cplx(m.math("asinh", {m.add(m.mul(m.re(s1), m.re(s2)), m.mul(m.im(s1), m.im(s2)))}),
                        m.mul(m.cst(2.0), m.math("atan2", {m.im(s1), m.re(s2)})));
    Value *big = m.cplx(logHalfAbs(), m.math("atan2", {y, x}));
    return m.pick(large, big, out);
  }
  if (fn == "asinh" || fn == "asin") {
    if (fn == "asin") // asin z = -i asinh(i z)
      return minusITimes(cmathUnary(cx, "asinh", timesI(zv), z));
    Value *s1 = sqrtOf(m.add(one, y), m.neg(x)), *s2 = sqrtOf(m.sub(one, y), x);
    Value *out = m.cplx(m.math("asinh", {m.sub(m.mul(m.re(s1), m.im(s2)), m.mul(m.re(s2), m.im(s1)))}),
                        m.math("atan2", {y, m.sub(m.mul(m.re(s1), m.re(s2)), m.mul(m.im(s1), m.im(s2)))}));
    Value *big = m.cplx(m.copysign(logHalfAbs(), x), m.math("atan2", {y, m.fabs(x)}));
    return m.pick(large, big, out);
  }
  if (fn == "atan") { // -i atanh(i z), except atan(+-inf + nan i) = +-pi/2 - 0i (CPython's value,
    // which numba-cuda reaches through the sign of a negated NaN: the GPU does not keep it)
    Value *r = cmathUnary(cx, "atanh", timesI(zv), z);
    Value *odd = irb.CreateAnd(m.isInf(x), m.isNan(y));
    return m.pick(odd, m.cplx(m.copysign(m.cst(M_PI / 2), x), m.cst(-0.0)), minusITimes(r));
  }
  if (fn == "atanh") {
    // CPython's c_atanh on the half plane x >= 0 (atanh(-z) = -atanh(z))
    Value *negate = irb.CreateFCmpOLT(x, zero);
    Value *a = m.sel(negate, m.neg(x), x), *bb = m.sel(negate, m.neg(y), y);
    Value *ay = m.fabs(bb);
    // general
    Value *zr1 = m.sub(one, a);
    Value *re = m.mul(m.math("log1p", {cx.fdiv(m.mul(m.cst(4.0), a), m.add(m.mul(zr1, zr1), m.mul(ay, ay)))}),
                      m.cst(0.25));
    Value *im = m.mul(
        m.neg(m.math("atan2", {m.mul(m.cst(-2.0), bb), m.sub(m.mul(zr1, m.add(one, a)), m.mul(ay, ay))})),
        m.cst(0.5));
    // near 1: atanh(1 +- 0i) = inf +- 0i
    Value *nearOne = irb.CreateAnd(irb.CreateFCmpOEQ(a, one), irb.CreateFCmpOLT(ay, m.cst(kAtanhSmall)));
    Value *oneRe = m.neg(
        m.math("log", {cx.fdiv(m.math("sqrt", {ay}), m.math("sqrt", {m.math("hypot", {ay, m.cst(2.0)})}))}));
    Value *oneIm = m.copysign(cx.fdiv(m.math("atan2", {m.cst(2.0), m.neg(ay)}), m.cst(2.0)), bb);
    Value *ayZero = irb.CreateFCmpOEQ(ay, zero);
    oneRe = m.sel(ayZero, ConstantFP::getInfinity(cx.scalarType(p)), oneRe);
    oneIm = m.sel(ayZero, bb, oneIm);
    re = m.sel(nearOne, oneRe, re);
    im = m.sel(nearOne, oneIm, im);
    // large or NaN real part
    Value *far = irb.CreateOr(irb.CreateOr(m.isNan(a), irb.CreateFCmpOGT(a, m.cst(kAtanhLarge))),
                              irb.CreateFCmpOGT(ay, m.cst(kAtanhLarge)));
    Value *half = m.cst(0.5);
    Value *h = m.math("hypot", {m.mul(a, half), m.mul(bb, half)});
    Value *farRe = cx.fdiv(cx.fdiv(cx.fdiv(a, m.cst(4.0)), h), h);
    farRe = m.sel(m.isInf(a), zero, farRe);
    farRe = m.sel(m.isInf(bb), m.copysign(zero, a), farRe);
    Value *farIm = m.neg(m.copysign(m.cst(M_PI / 2), m.neg(bb)));
    re = m.sel(far, farRe, re);
    im = m.sel(far, farIm, im);
    im = m.sel(m.isNan(bb), nan, im);
    return m.cplx(m.sel(negate, m.neg(re), re), m.sel(negate, m.neg(im), im));
  }
  throw Error("internal error: cmath." + fn + " not lowered");
}

} // namespace ir
} // namespace cutwin
