// Lowering of NumPy ufuncs in kernels: the scalar operation, and the loop over an output
// array (C order; inputs indexed alike, numbers broadcast) when one is given.
#include "frontend/lower/lowerer.h"

#include "frontend/sema/numpy_ufuncs.h"

#include <llvm/IR/Intrinsics.h>

namespace cutwin::ir {

using namespace llvm;

namespace {
bool isOrdering(fe::CmpOp op) { return op != fe::CmpOp::Eq && op != fe::CmpOp::NotEq; }
} // namespace

/// NumPy's order of complex numbers: by real part, then imaginary part.
Value *Lowerer::complexOrder(fe::CmpOp op, Value *x, Value *y) {
  if (!isOrdering(op))
    return complexCompare(op, x, y);
  Value *xr = realPart(x), *yr = realPart(y), *xi = imagPart(x), *yi = imagPart(y);
  Value *tie = b_.CreateFCmpOEQ(xr, yr);
  fe::CmpOp strict = op == fe::CmpOp::LtE ? fe::CmpOp::Lt : op == fe::CmpOp::GtE ? fe::CmpOp::Gt : op;
  return b_.CreateSelect(tie, compare(op, xi, yi, Scalar::F64), compare(strict, xr, yr, Scalar::F64));
}

/// A comparison of a signed and an unsigned integer by value (NumPy's exact loops).
Value *Lowerer::mixedSignCompare(fe::CmpOp op, Value *a, Scalar at, Value *b, Scalar bt) {
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  Value *sa = convertScalar(a, at, fe::isSigned(at) ? Scalar::I64 : Scalar::U64);
  Value *sb = convertScalar(b, bt, fe::isSigned(bt) ? Scalar::I64 : Scalar::U64);
  Value *zero = ConstantInt::get(i64, 0);
  // the signed operand's negative values are below every unsigned one
  Value *neg = b_.CreateICmpSLT(fe::isSigned(at) ? sa : sb, zero);
  Value *asUnsigned = compare(op, sa, sb, Scalar::U64);
  bool signedLeft = fe::isSigned(at);
  Value *whenNeg = nullptr;
  switch (op) {
  case fe::CmpOp::Eq: whenNeg = b_.getFalse(); break;
  case fe::CmpOp::NotEq: whenNeg = b_.getTrue(); break;
  case fe::CmpOp::Lt:
  case fe::CmpOp::LtE: whenNeg = signedLeft ? b_.getTrue() : b_.getFalse(); break;
  default: whenNeg = signedLeft ? b_.getFalse() : b_.getTrue(); break;
  }
  return b_.CreateSelect(neg, whenNeg, asUnsigned);
}

Value *Lowerer::ufuncScalar(const std::string &name, ArrayRef<Value *> args, ArrayRef<Scalar> argTypes,
                            Scalar out) {
  using K = fe::Ufunc::Kind;
  const fe::Ufunc &u = *fe::numpyUfunc(name);
  Scalar t = argTypes[0];
  bool complexIn = fe::isComplex(t);
  switch (u.kind) {
  case K::Math:
    if (complexIn) {
      std::string m = fe::complexMathCounterpart(u.math);
      Value *re = realPart(args[0]), *im = imagPart(args[0]);
      if (m == "isnan")
        return b_.CreateOr(b_.CreateFCmpUNO(re, re), b_.CreateFCmpUNO(im, im));
      if (m == "isinf" || m == "isfinite") {
        Value *inf = ConstantFP::getInfinity(re->getType());
        Value *reInf = b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(Intrinsic::fabs, re), inf);
        Value *imInf = b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(Intrinsic::fabs, im), inf);
        if (m == "isinf")
          return b_.CreateOr(reInf, imInf);
        Value *reFin = b_.CreateFCmpONE(b_.CreateUnaryIntrinsic(Intrinsic::fabs, re), inf);
        Value *imFin = b_.CreateFCmpONE(b_.CreateUnaryIntrinsic(Intrinsic::fabs, im), inf);
        return b_.CreateAnd(reFin, imFin);
      }
      if (m == "log2") { // log(z) / ln 2
        Value *l = cmathUnary("log", args[0], t);
        Value *ln2 = ConstantFP::get(re->getType(), 0.693147180559945309417232121458176568);
        return makeComplex(fdiv(realPart(l), ln2), fdiv(imagPart(l), ln2), t);
      }
      return cmathUnary(m, args[0], t);
    }
    return mathOp(u.math, args, argTypes, out);
  case K::Operator:
    if (u.op == fe::BinOp::Div && fe::isInteger(t)) // int / int is float64, as in Python
      return fdiv(convertScalar(args[0], t, Scalar::F64), convertScalar(args[1], argTypes[1], Scalar::F64));
    if (complexIn)
      return complexBinary(u.op, args[0], args[1], t);
    if (u.op == fe::BinOp::Div)
      return fdiv(args[0], args[1]);
    if (u.op == fe::BinOp::Pow)
      return power(args[0], args[1], t, argTypes[1], out);
    if (u.op == fe::BinOp::LShift || u.op == fe::BinOp::RShift)
      return shift(u.op, convertScalar(args[0], t, out), convertScalar(args[1], argTypes[1], out), out);
    return binary(u.op, args[0], args[1], t);
  case K::Compare:
    if (argTypes[0] != argTypes[1])
      return mixedSignCompare(u.cmp, args[0], argTypes[0], args[1], argTypes[1]);
    if (complexIn)
      return complexOrder(u.cmp, args[0], args[1]);
    return compare(u.cmp, args[0], args[1], t);
  case K::Logical: {
    std::vector<Value *> truths;
    for (size_t i = 0; i < args.size(); ++i)
      truths.push_back(truth(args[i], Type::scalarOf(argTypes[i])));
    std::string op = u.math;
    if (op == "not")
      return b_.CreateNot(truths[0]);
    if (op == "and")
      return b_.CreateAnd(truths[0], truths[1]);
    if (op == "or")
      return b_.CreateOr(truths[0], truths[1]);
    return b_.CreateXor(truths[0], truths[1]);
  }
  case K::Invert: return b_.CreateNot(args[0]); // an i1 for booleans: logical not
  case K::Negative: return unaryOperation(fe::UnaryOp::Neg, args[0], t);
  case K::Absolute:
    if (complexIn)
      return complexAbs(args[0], t);
    if (fe::isFloat(t))
      return b_.CreateUnaryIntrinsic(Intrinsic::fabs, args[0]);
    if (!fe::isSigned(t))
      return args[0];
    return b_.CreateSelect(b_.CreateICmpSLT(args[0], ConstantInt::get(args[0]->getType(), 0)),
                           b_.CreateNeg(args[0]), args[0]);
  default: {
    bool isMax = u.kind == K::Maximum || u.kind == K::FMax;
    Value *a = args[0], *b = args[1];
    fe::CmpOp op = isMax ? fe::CmpOp::Gt : fe::CmpOp::Lt;
    Value *pick = complexIn ? complexOrder(op, a, b) : compare(op, a, b, t);
    Value *r = b_.CreateSelect(pick, a, b);
    if (!fe::isFloat(t) && !complexIn)
      return r;
    auto hasNan = [&](Value *v) {
      if (!complexIn)
        return b_.CreateFCmpUNO(v, v);
      Value *re = realPart(v), *im = imagPart(v);
      return b_.CreateOr(b_.CreateFCmpUNO(re, re), b_.CreateFCmpUNO(im, im));
    };
    Value *aNan = hasNan(a), *bNan = hasNan(b);
    if (u.kind == K::Maximum || u.kind == K::Minimum) // NaN propagates
      return b_.CreateSelect(aNan, a, b_.CreateSelect(bNan, b, r));
    return b_.CreateSelect(aNan, b, b_.CreateSelect(bNan, a, r)); // fmax/fmin: NaN is ignored
  }
  }
}

Value *Lowerer::lowerUfuncCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  bool withOut = ci.builtin.rfind("numpy.out.", 0) == 0;
  std::string name = ci.builtin.substr(withOut ? 10 : 6);
  std::vector<Scalar> argTypes(ci.operandTypes.begin(), ci.operandTypes.end() - 1);
  Scalar res = ci.operandTypes.back();
  size_t nin = argTypes.size();
  if (!withOut) {
    std::vector<Value *> args;
    for (size_t i = 0; i < nin; ++i)
      args.push_back(lowerAs(*c.args[i], Type::scalarOf(argTypes[i])));
    setLoc(c.loc);
    return ufuncScalar(name, args, argTypes, res);
  }
  // The output array and the inputs, evaluated once; numbers converted once.
  const Type &ot = info(*c.args[nin]).type;
  Value *outArr = lowerExpr(*c.args[nin]);
  std::vector<Value *> inputs;
  std::vector<const Type *> inTypes;
  for (size_t i = 0; i < nin; ++i) {
    const Type &t = info(*c.args[i]).type;
    inTypes.push_back(&t);
    inputs.push_back(t.isArray() ? lowerExpr(*c.args[i]) : lowerAs(*c.args[i], Type::scalarOf(argTypes[i])));
  }
  setLoc(c.loc);
  std::vector<Scalar> idxTypes(ot.ndim, Scalar::I64);
  forEachElement(outArr, ot, [&](ArrayRef<Value *> idx) {
    std::vector<Value *> vals;
    for (size_t i = 0; i < nin; ++i) {
      if (!inTypes[i]->isArray()) {
        vals.push_back(inputs[i]);
        continue;
      }
      Value *v =
          loadElement(elementAddress(inputs[i], *inTypes[i], idx, idxTypes, c.loc), inTypes[i]->scalar);
      vals.push_back(convertScalar(v, inTypes[i]->scalar, argTypes[i]));
    }
    Value *r = ufuncScalar(name, vals, argTypes, res);
    storeElement(elementAddress(outArr, ot, idx, idxTypes, c.loc), convertScalar(r, res, ot.scalar),
                 ot.scalar);
  });
  return outArr;
}

} // namespace cutwin::ir
