// NumPy ufuncs in kernels, as numba-cuda allows them: on scalars (`np.sin(v)`), or on
// arrays with the output array given positionally (`np.sin(x, out)`), which every calling
// thread computes over the whole output. Their loops (types) are NumPy's; lowered as the
// scalar operation, and the loop over an output array (C order; inputs indexed alike,
// numbers broadcast) when one is given.
#include "frontend/builtins/builtin.h"
#include "frontend/builtins/math.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/sema/typing_context.h"

#include <llvm/IR/Intrinsics.h>

#include <map>

namespace cutwin {

namespace ir {
llvm::Value *lowerUfuncBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace fe {

ExprInfo typeUfuncBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                          const Builtin &b);

struct Ufunc {
  enum class Kind {
    Math,     ///< a math function (cmath's for complex inputs where it has one)
    Operator, ///< a Python binary operator
    Compare,  ///< a comparison; signed/unsigned integer pairs compare exactly (NumPy >= 1.25)
    Logical,  ///< logical_and/or/xor/not: of the operands' truth
    Invert,   ///< ~ (logical not on booleans)
    Maximum,
    Minimum,
    FMax,
    FMin,
    Negative,
    Absolute,
  };
  const char *name;
  unsigned nin; ///< inputs (1 or 2); the output array, if given, comes after them
  Kind kind;
  const char *math = ""; ///< Math: the math-module function; Logical: "and", "or", "xor", "not"
  BinOp op = BinOp::Add; ///< Operator: the Python operator computing it
  CmpOp cmp = CmpOp::Eq; ///< Compare: the comparison
};

namespace {

using K = Ufunc::Kind;

const std::vector<Ufunc> &ufuncTable() {
  static const std::vector<Ufunc> t = {
      {"sin", 1, K::Math, "sin"},
      {"cos", 1, K::Math, "cos"},
      {"tan", 1, K::Math, "tan"},
      {"arcsin", 1, K::Math, "asin"},
      {"arccos", 1, K::Math, "acos"},
      {"arctan", 1, K::Math, "atan"},
      {"sinh", 1, K::Math, "sinh"},
      {"cosh", 1, K::Math, "cosh"},
      {"tanh", 1, K::Math, "tanh"},
      {"arcsinh", 1, K::Math, "asinh"},
      {"arccosh", 1, K::Math, "acosh"},
      {"arctanh", 1, K::Math, "atanh"},
      {"exp", 1, K::Math, "exp"},
      {"expm1", 1, K::Math, "expm1"},
      {"log", 1, K::Math, "log"},
      {"log2", 1, K::Math, "log2"},
      {"log10", 1, K::Math, "log10"},
      {"log1p", 1, K::Math, "log1p"},
      {"sqrt", 1, K::Math, "sqrt"},
      {"fabs", 1, K::Math, "fabs"},
      {"floor", 1, K::Math, "floor"},
      {"ceil", 1, K::Math, "ceil"},
      {"trunc", 1, K::Math, "trunc"},
      {"degrees", 1, K::Math, "degrees"},
      {"rad2deg", 1, K::Math, "degrees"},
      {"radians", 1, K::Math, "radians"},
      {"deg2rad", 1, K::Math, "radians"},
      {"isnan", 1, K::Math, "isnan"},
      {"isinf", 1, K::Math, "isinf"},
      {"isfinite", 1, K::Math, "isfinite"},
      {"arctan2", 2, K::Math, "atan2"},
      {"hypot", 2, K::Math, "hypot"},
      {"copysign", 2, K::Math, "copysign"},
      {"fmod", 2, K::Math, "fmod"},
      {"exp2", 1, K::Math, "exp2"},
      {"cbrt", 1, K::Math, "cbrt"},
      {"rint", 1, K::Math, "rint"},
      {"nextafter", 2, K::Math, "nextafter"},
      {"add", 2, K::Operator, "", BinOp::Add},
      {"subtract", 2, K::Operator, "", BinOp::Sub},
      {"multiply", 2, K::Operator, "", BinOp::Mul},
      {"divide", 2, K::Operator, "", BinOp::Div},
      {"true_divide", 2, K::Operator, "", BinOp::Div},
      {"floor_divide", 2, K::Operator, "", BinOp::FloorDiv},
      {"remainder", 2, K::Operator, "", BinOp::Mod},
      {"mod", 2, K::Operator, "", BinOp::Mod},
      {"power", 2, K::Operator, "", BinOp::Pow},
      {"maximum", 2, K::Maximum},
      {"minimum", 2, K::Minimum},
      {"fmax", 2, K::FMax},
      {"fmin", 2, K::FMin},
      {"negative", 1, K::Negative},
      {"absolute", 1, K::Absolute},
      {"abs", 1, K::Absolute},
      {"bitwise_and", 2, K::Operator, "", BinOp::BitAnd},
      {"bitwise_or", 2, K::Operator, "", BinOp::BitOr},
      {"bitwise_xor", 2, K::Operator, "", BinOp::BitXor},
      {"left_shift", 2, K::Operator, "", BinOp::LShift},
      {"right_shift", 2, K::Operator, "", BinOp::RShift},
      {"invert", 1, K::Invert},
      {"bitwise_not", 1, K::Invert},
      {"equal", 2, K::Compare, "", BinOp::Add, CmpOp::Eq},
      {"not_equal", 2, K::Compare, "", BinOp::Add, CmpOp::NotEq},
      {"less", 2, K::Compare, "", BinOp::Add, CmpOp::Lt},
      {"less_equal", 2, K::Compare, "", BinOp::Add, CmpOp::LtE},
      {"greater", 2, K::Compare, "", BinOp::Add, CmpOp::Gt},
      {"greater_equal", 2, K::Compare, "", BinOp::Add, CmpOp::GtE},
      {"logical_and", 2, K::Logical, "and"},
      {"logical_or", 2, K::Logical, "or"},
      {"logical_xor", 2, K::Logical, "xor"},
      {"logical_not", 1, K::Logical, "not"},
  };
  return t;
}

} // namespace

/// The cmath function computing math function `math` on complex numbers ("" if none).
std::string complexMathCounterpart(const std::string &math) {
  static const std::map<std::string, std::string> m = {
      {"sin", "sin"},   {"cos", "cos"},     {"tan", "tan"},     {"asin", "asin"},
      {"acos", "acos"}, {"atan", "atan"},   {"sinh", "sinh"},   {"cosh", "cosh"},
      {"tanh", "tanh"}, {"asinh", "asinh"}, {"acosh", "acosh"}, {"atanh", "atanh"},
      {"exp", "exp"},   {"log", "log"},     {"log10", "log10"}, {"log2", "log2"},
      {"sqrt", "sqrt"}, {"isnan", "isnan"}, {"isinf", "isinf"}, {"isfinite", "isfinite"},
  };
  auto it = m.find(math);
  return it == m.end() ? "" : it->second;
}

/// Argument and result scalars of the ufunc's loop for these input scalars, or nullopt.
std::optional<ScalarCase> ufuncCase(const Ufunc &u, const std::vector<Scalar> &in) {
  if (in.size() != u.nin)
    return std::nullopt;
  bool complexIn = false;
  for (Scalar s : in)
    complexIn |= isComplex(s);
  switch (u.kind) {
  case K::Math:
    if (complexIn) { // NumPy's complex loops: cmath's functions
      std::string m = complexMathCounterpart(u.math);
      if (u.nin != 1 || m.empty())
        return std::nullopt;
      bool predicate = m == "isnan" || m == "isinf" || m == "isfinite";
      return ScalarCase{{in[0]}, predicate ? Scalar::Bool : in[0]};
    }
    return mathCase(u.math, in);
  case K::Operator:
    if (complexIn && (u.op == BinOp::BitAnd || u.op == BinOp::BitOr || u.op == BinOp::BitXor ||
                      u.op == BinOp::LShift || u.op == BinOp::RShift))
      return std::nullopt;
    return typeBinOp(u.op, in[0], in[1]);
  case K::Compare: {
    Scalar t = npPromote(in[0], in[1]);
    if (isInteger(in[0]) && isInteger(in[1]) && isSigned(in[0]) != isSigned(in[1]) && !isInteger(t))
      return ScalarCase{{in[0], in[1]}, Scalar::Bool}; // int64 vs uint64: compared exactly
    return ScalarCase{{t, t}, Scalar::Bool};
  }
  case K::Logical: return ScalarCase{in, Scalar::Bool};
  case K::Invert:
    if (!isInteger(in[0]) && in[0] != Scalar::Bool)
      return std::nullopt;
    return ScalarCase{{in[0]}, in[0]};
  case K::Negative:
    if (complexIn)
      return ScalarCase{{in[0]}, in[0]};
    return typeUnaryOp(UnaryOp::Neg, in[0]);
  case K::Absolute: return ScalarCase{{in[0]}, complexIn ? partOf(in[0]) : in[0]};
  default: { // maximum, minimum, fmax, fmin: in the promoted type
    Scalar t = npPromote(in[0], in[1]);
    return ScalarCase{{t, t}, t};
  }
  }
}

std::span<const Builtin> ufuncBuiltins() {
  static const BuiltinRows rows([](BuiltinRows &r) {
    for (unsigned i = 0; i < ufuncTable().size(); ++i)
      r.add(std::string("numpy.") + ufuncTable()[i].name, i, &typeUfuncBuiltin, &ir::lowerUfuncBuiltin);
  });
  return rows.rows();
}

ExprInfo typeUfuncBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                          const Builtin &b) {
  const Ufunc *u = &ufuncTable()[b.op];
  const std::string fn = u->name;
  std::string what = "np." + fn + "()";
  if (args.size() != u->nin && args.size() != u->nin + 1)
    cx.error(c.loc, what + " takes " + std::to_string(u->nin) + " input" + (u->nin == 1 ? "" : "s") +
                        " and optionally an output array, " + std::to_string(args.size()) + " given");
  bool withOut = args.size() == u->nin + 1;
  std::vector<Scalar> in;
  for (unsigned i = 0; i < u->nin; ++i) {
    const Type &t = args[i].type;
    if (t.isArray() && !t.isRecordArray() && withOut) {
      if (t.ndim != args.back().type.ndim)
        cx.error(c.args[i]->loc, what + " input has " + std::to_string(t.ndim) + " dimensions, the output " +
                                     std::to_string(args.back().type.ndim));
      in.push_back(t.scalar);
    } else if (t.isScalar()) {
      in.push_back(t.scalar);
    } else {
      cx.error(c.args[i]->loc,
               what +
                   (withOut ? " inputs must be arrays or numbers, not "
                            : " on arrays needs the output array as its last argument; got ") +
                   t.str());
    }
  }
  if (withOut) {
    const Type &o = args.back().type;
    if (!o.isArray() || o.isRecordArray() || o.space == MemSpace::Const)
      cx.error(c.args.back()->loc, what + " output must be a writable array, not " + o.str());
  }
  auto cs = ufuncCase(*u, in);
  if (!cs) {
    std::string got = scalarNames(in);
    cx.error(c.loc, what + " does not support (" + got + ")");
  }
  ExprInfo info;
  info.operandTypes = cs->args;
  info.operandTypes.push_back(cs->result); // the loop's result scalar comes last
  info.type = withOut ? args.back().type : Type::scalarOf(cs->result);
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

namespace {
bool isOrdering(fe::CmpOp op) { return op != fe::CmpOp::Eq && op != fe::CmpOp::NotEq; }
} // namespace

/// NumPy's order of complex numbers: by real part, then imaginary part.
static Value *complexOrder(LoweringContext &cx, fe::CmpOp op, Value *x, Value *y) {
  IRBuilder<> &irb = cx.builder();
  if (!isOrdering(op))
    return cx.complexCompare(op, x, y);
  Value *xr = cx.realPart(x), *yr = cx.realPart(y), *xi = cx.imagPart(x), *yi = cx.imagPart(y);
  Value *tie = irb.CreateFCmpOEQ(xr, yr);
  fe::CmpOp strict = op == fe::CmpOp::LtE ? fe::CmpOp::Lt : op == fe::CmpOp::GtE ? fe::CmpOp::Gt : op;
  return irb.CreateSelect(tie, cx.compare(op, xi, yi, Scalar::F64), cx.compare(strict, xr, yr, Scalar::F64));
}

/// A comparison of a signed and an unsigned integer by value (NumPy's exact loops).
static Value *mixedSignCompare(LoweringContext &cx, fe::CmpOp op, Value *a, Scalar at, Value *b, Scalar bt) {
  IRBuilder<> &irb = cx.builder();
  auto *i64 = llvm::Type::getInt64Ty(cx.context());
  Value *sa = cx.convertScalar(a, at, fe::isSigned(at) ? Scalar::I64 : Scalar::U64);
  Value *sb = cx.convertScalar(b, bt, fe::isSigned(bt) ? Scalar::I64 : Scalar::U64);
  Value *zero = ConstantInt::get(i64, 0);
  // the signed operand's negative values are below every unsigned one
  Value *neg = irb.CreateICmpSLT(fe::isSigned(at) ? sa : sb, zero);
  Value *asUnsigned = cx.compare(op, sa, sb, Scalar::U64);
  bool signedLeft = fe::isSigned(at);
  Value *whenNeg = nullptr;
  switch (op) {
  case fe::CmpOp::Eq: whenNeg = irb.getFalse(); break;
  case fe::CmpOp::NotEq: whenNeg = irb.getTrue(); break;
  case fe::CmpOp::Lt:
  case fe::CmpOp::LtE: whenNeg = signedLeft ? irb.getTrue() : irb.getFalse(); break;
  default: whenNeg = signedLeft ? irb.getFalse() : irb.getTrue(); break;
  }
  return irb.CreateSelect(neg, whenNeg, asUnsigned);
}

static Value *ufuncScalar(LoweringContext &cx, const fe::Ufunc &u, ArrayRef<Value *> args,
                          ArrayRef<Scalar> argTypes, Scalar out) {
  IRBuilder<> &irb = cx.builder();
  using K = fe::Ufunc::Kind;
  Scalar t = argTypes[0];
  bool complexIn = fe::isComplex(t);
  switch (u.kind) {
  case K::Math:
    if (complexIn) {
      std::string m = fe::complexMathCounterpart(u.math);
      Value *re = cx.realPart(args[0]), *im = cx.imagPart(args[0]);
      if (m == "isnan")
        return irb.CreateOr(irb.CreateFCmpUNO(re, re), irb.CreateFCmpUNO(im, im));
      if (m == "isinf" || m == "isfinite") {
        Value *inf = ConstantFP::getInfinity(re->getType());
        Value *reInf = irb.CreateFCmpOEQ(irb.CreateUnaryIntrinsic(Intrinsic::fabs, re), inf);
        Value *imInf = irb.CreateFCmpOEQ(irb.CreateUnaryIntrinsic(Intrinsic::fabs, im), inf);
        if (m == "isinf")
          return irb.CreateOr(reInf, imInf);
        Value *reFin = irb.CreateFCmpONE(irb.CreateUnaryIntrinsic(Intrinsic::fabs, re), inf);
        Value *imFin = irb.CreateFCmpONE(irb.CreateUnaryIntrinsic(Intrinsic::fabs, im), inf);
        return irb.CreateAnd(reFin, imFin);
      }
      if (m == "log2") { // log(z) / ln 2
        Value *l = cmathUnary(cx, "log", args[0], t);
        Value *ln2 = ConstantFP::get(re->getType(), 0.693147180559945309417232121458176568);
        return cx.makeComplex(cx.fdiv(cx.realPart(l), ln2), cx.fdiv(cx.imagPart(l), ln2), t);
      }
      return cmathUnary(cx, m, args[0], t);
    }
    return mathOp(cx, u.math, args, argTypes, out);
  case K::Operator:
    if (u.op == fe::BinOp::Div && fe::isInteger(t)) // int / int is float64, as in Python
      return cx.fdiv(cx.convertScalar(args[0], t, Scalar::F64),
                     cx.convertScalar(args[1], argTypes[1], Scalar::F64));
    if (u.op == fe::BinOp::Pow) // (complex too: the operator's complex power)
      return cx.power(args[0], args[1], t, argTypes[1], out);
    if (complexIn)
      return cx.complexBinary(u.op, args[0], args[1], t);
    if (u.op == fe::BinOp::Div)
      return cx.fdiv(args[0], args[1]);
    if (u.op == fe::BinOp::LShift || u.op == fe::BinOp::RShift)
      return cx.shift(u.op, cx.convertScalar(args[0], t, out), cx.convertScalar(args[1], argTypes[1], out),
                      out);
    return cx.binary(u.op, args[0], args[1], t);
  case K::Compare:
    if (argTypes[0] != argTypes[1])
      return mixedSignCompare(cx, u.cmp, args[0], argTypes[0], args[1], argTypes[1]);
    if (complexIn)
      return complexOrder(cx, u.cmp, args[0], args[1]);
    return cx.compare(u.cmp, args[0], args[1], t);
  case K::Logical: {
    std::vector<Value *> truths;
    for (size_t i = 0; i < args.size(); ++i)
      truths.push_back(cx.truth(args[i], Type::scalarOf(argTypes[i])));
    std::string op = u.math;
    if (op == "not")
      return irb.CreateNot(truths[0]);
    if (op == "and")
      return irb.CreateAnd(truths[0], truths[1]);
    if (op == "or")
      return irb.CreateOr(truths[0], truths[1]);
    return irb.CreateXor(truths[0], truths[1]);
  }
  case K::Invert: return irb.CreateNot(args[0]); // an i1 for booleans: logical not
  case K::Negative: return cx.unaryOperation(fe::UnaryOp::Neg, args[0], t);
  case K::Absolute:
    if (complexIn)
      return cx.complexAbs(args[0], t);
    if (fe::isFloat(t))
      return irb.CreateUnaryIntrinsic(Intrinsic::fabs, args[0]);
    if (!fe::isSigned(t))
      return args[0];
    return irb.CreateSelect(irb.CreateICmpSLT(args[0], ConstantInt::get(args[0]->getType(), 0)),
                            irb.CreateNeg(args[0]), args[0]);
  default: {
    bool isMax = u.kind == K::Maximum || u.kind == K::FMax;
    Value *a = args[0], *b = args[1];
    fe::CmpOp op = isMax ? fe::CmpOp::Gt : fe::CmpOp::Lt;
    Value *pick = complexIn ? complexOrder(cx, op, a, b) : cx.compare(op, a, b, t);
    Value *r = irb.CreateSelect(pick, a, b);
    if (!fe::isFloat(t) && !complexIn)
      return r;
    auto hasNan = [&](Value *v) {
      if (!complexIn)
        return irb.CreateFCmpUNO(v, v);
      Value *re = cx.realPart(v), *im = cx.imagPart(v);
      return irb.CreateOr(irb.CreateFCmpUNO(re, re), irb.CreateFCmpUNO(im, im));
    };
    Value *aNan = hasNan(a), *bNan = hasNan(b);
    if (u.kind == K::Maximum || u.kind == K::Minimum) // NaN propagates
      return irb.CreateSelect(aNan, a, irb.CreateSelect(bNan, b, r));
    return irb.CreateSelect(aNan, b, irb.CreateSelect(bNan, a, r)); // fmax/fmin: NaN is ignored
  }
  }
}

Value *lowerUfuncBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  const fe::Ufunc &u = fe::ufuncTable()[ci.function->op];
  std::vector<Scalar> argTypes(ci.operandTypes.begin(), ci.operandTypes.end() - 1);
  Scalar res = ci.operandTypes.back();
  size_t nin = argTypes.size();
  bool withOut = c.args.size() == nin + 1; // the output array comes last
  if (!withOut) {
    std::vector<Value *> args;
    for (size_t i = 0; i < nin; ++i)
      args.push_back(cx.lowerAs(*c.args[i], Type::scalarOf(argTypes[i])));
    cx.setLoc(c.loc);
    return ufuncScalar(cx, u, args, argTypes, res);
  }
  // The output array and the inputs, evaluated once; numbers converted once.
  const Type &ot = cx.info(*c.args[nin]).type;
  Value *outArr = cx.lowerExpr(*c.args[nin]);
  std::vector<Value *> inputs;
  std::vector<const Type *> inTypes;
  for (size_t i = 0; i < nin; ++i) {
    const Type &t = cx.info(*c.args[i]).type;
    inTypes.push_back(&t);
    inputs.push_back(t.isArray() ? cx.lowerExpr(*c.args[i])
                                 : cx.lowerAs(*c.args[i], Type::scalarOf(argTypes[i])));
  }
  cx.setLoc(c.loc);
  std::vector<Scalar> idxTypes(ot.ndim, Scalar::I64);
  cx.forEachElement(outArr, ot, [&](ArrayRef<Value *> idx) {
    std::vector<Value *> vals;
    for (size_t i = 0; i < nin; ++i) {
      if (!inTypes[i]->isArray()) {
        vals.push_back(inputs[i]);
        continue;
      }
      Value *v =
          cx.loadElement(cx.elementAddress(inputs[i], *inTypes[i], idx, idxTypes, c.loc), inTypes[i]->scalar);
      vals.push_back(cx.convertScalar(v, inTypes[i]->scalar, argTypes[i]));
    }
    Value *r = ufuncScalar(cx, u, vals, argTypes, res);
    cx.storeElement(cx.elementAddress(outArr, ot, idx, idxTypes, c.loc), cx.convertScalar(r, res, ot.scalar),
                    ot.scalar);
  });
  return outArr;
}

} // namespace ir
} // namespace cutwin
