// Arithmetic builtins: cuda.fma, cuda.cbrt, cuda.selp, and Python's abs, round, pow, min,
// max, len, complex and complex.conjugate().
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerArithmeticBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {
enum class ArithmeticOp : unsigned { Fma, Cbrt, Selp, Abs, Round, Pow, Min, Max, Len, Complex, Conjugate };
}

namespace fe {

ExprInfo typeArithmeticBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                               const Builtin &b);

std::span<const Builtin> arithmeticBuiltins() {
  auto row = [](const char *name, ArithmeticOp op) {
    return Builtin{name, unsigned(op), &typeArithmeticBuiltin, &ir::lowerArithmeticBuiltin};
  };
  static const Builtin table[] = {
      row("cuda.fma", ArithmeticOp::Fma),
      row("cuda.cbrt", ArithmeticOp::Cbrt),
      row("cuda.selp", ArithmeticOp::Selp),
      row("builtins.abs", ArithmeticOp::Abs),
      row("builtins.round", ArithmeticOp::Round),
      row("builtins.pow", ArithmeticOp::Pow),
      row("builtins.min", ArithmeticOp::Min),
      row("builtins.max", ArithmeticOp::Max),
      row("builtins.len", ArithmeticOp::Len),
      row("builtins.complex", ArithmeticOp::Complex),
      row("scalar.conjugate", ArithmeticOp::Conjugate),
  };
  return table;
}

ExprInfo typeArithmeticBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                               const Builtin &b) {
  ExprInfo info;
  using S = Scalar;
  std::string name = std::string(b.name).substr(std::string(b.name).find('.') + 1); // as Python spells it
  switch (ArithmeticOp(b.op)) {
  case ArithmeticOp::Fma:
  case ArithmeticOp::Cbrt: {
    size_t n = ArithmeticOp(b.op) == ArithmeticOp::Fma ? 3 : 1;
    cx.checkArity(c, b.name, args.size(), n, n);
    auto actual = cx.scalarArgs(c, args, b.name);
    auto cs =
        resolveOverload({{std::vector<S>(n, S::F32), S::F32}, {std::vector<S>(n, S::F64), S::F64}}, actual);
    if (!cs)
      cx.error(c.loc, std::string(b.name) + "() takes float32 or float64 arguments");
    info.type = Type::scalarOf(cs->result);
    info.operandTypes = cs->args;
    return info;
  }
  case ArithmeticOp::Selp: { // selp(test, a, b): a and b of one type
    cx.checkArity(c, b.name, args.size(), 3, 3);
    auto actual = cx.scalarArgs(c, args, b.name);
    if (actual[1] != actual[2] || actual[1] == S::Bool || actual[1] == S::I8 || actual[1] == S::U8 ||
        isComplex(actual[1]))
      cx.error(c.loc, "cuda.selp() takes two values of one type (16- to 64-bit integers or floats), not " +
                          std::string(scalarName(actual[1])) + " and " + scalarName(actual[2]));
    info.type = Type::scalarOf(actual[1]);
    info.operandTypes = {S::Bool, actual[1], actual[1]};
    return info;
  }
  case ArithmeticOp::Abs: {
    cx.checkArity(c, b.name, args.size(), 1, 1);
    auto actual = cx.scalarArgs(c, args, "abs");
    std::vector<ScalarCase> cases;
    for (S t : {S::I8, S::I16, S::I32, S::I64, S::U8, S::U16, S::U32, S::U64, S::F32, S::F64})
      cases.push_back({{t}, t});
    cases.push_back({{S::C64}, S::F32}); // the modulus, math.hypot(real, imag)
    cases.push_back({{S::C128}, S::F64});
    auto cs = resolveOverload(cases, actual);
    info.type = Type::scalarOf(cs->result);
    info.operandTypes = cs->args;
    return info;
  }
  case ArithmeticOp::Round: {
    // round(x) is an int64 (half to even); round(x, ndigits) keeps x's float type, as
    // numba-cuda's lowerings of float32 and float64 say.
    cx.checkArity(c, b.name, args.size(), 1, 2);
    auto sc = cx.scalarArgs(c, args, "round");
    if (sc.size() == 2) {
      if (!isFloat(sc[0]) || !isInteger(sc[1]))
        cx.error(c.loc, std::string("round(x, ndigits) takes a float and an integer, not ") +
                            scalarName(sc[0]) + " and " + scalarName(sc[1]));
      info.type = Type::scalarOf(sc[0]);
      info.operandTypes = {sc[0], S::I64};
      return info;
    }
    auto cs = resolveOverload({{{S::F32}, S::I64}, {{S::F64}, S::I64}}, {sc[0]});
    if (!cs)
      cx.error(c.loc, std::string("round() takes a real number, not ") + scalarName(sc[0]));
    info.type = Type::scalarOf(cs->result);
    info.operandTypes = cs->args;
    return info;
  }
  case ArithmeticOp::Pow: // the ** operator's rules
    cx.checkArity(c, b.name, args.size(), 2, 2);
    return cx.typeBinary(BinOp::Pow, args[0].type, args[1].type, c.loc);
  case ArithmeticOp::Min:
  case ArithmeticOp::Max: {
    std::vector<Type> operands;
    if (args.size() == 1 && args[0].type.isTuple()) {
      operands = args[0].type.elems;
    } else {
      if (args.size() < 2)
        cx.error(c.loc, name + "() needs at least two arguments or one tuple");
      for (auto &a : args)
        operands.push_back(a.type);
    }
    Type acc = Type::unknown();
    for (size_t i = 0; i < operands.size(); ++i) {
      if (!operands[i].isScalar())
        cx.error(c.loc, name + "() arguments must be numbers, not " + operands[i].str());
      acc = *unify(acc, operands[i]);
    }
    info.type = acc;
    info.operandTypes.assign(operands.size(), acc.scalar);
    return info;
  }
  case ArithmeticOp::Len: {
    cx.checkArity(c, b.name, args.size(), 1, 1);
    const Type &t = args[0].type;
    if (t.isArray()) {
      info.type = Type::scalarOf(S::I64);
      return info;
    }
    if (t.isTuple()) {
      info.type = Type::scalarOf(S::I64);
      info.constant = ConstValue::ofInt(int64_t(t.elems.size()));
      return info;
    }
    cx.error(c.args[0]->loc, "object of type " + t.str() + " has no len()");
  }
  case ArithmeticOp::Complex:
    // numba: complex(real=0, imag=0) makes a complex128 from numbers (real or complex).
    cx.checkArity(c, b.name, args.size(), 0, 2);
    cx.scalarArgs(c, args, "complex");
    info.type = Type::scalarOf(S::C128);
    for (auto &a : args)
      info.operandTypes.push_back(isComplex(a.type.scalar) ? S::C128 : S::F64);
    return info;
  case ArithmeticOp::Conjugate: {
    cx.checkArity(c, b.name, args.size(), 0, 0);
    ExprInfo recv = cx.typeExpr(methodReceiver(c));
    info.type = recv.type;
    info.operandTypes = {recv.type.scalar};
    return info;
  }
  }
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

static Value *minMax(LoweringContext &cx, bool isMax, ArrayRef<Value *> vals, Scalar t) {
  IRBuilder<> &irb = cx.builder();
  // Python's min/max: the first of equal candidates wins; a NaN operand is kept only
  // when it comes first (comparisons with NaN are false).
  Value *acc = vals[0];
  for (size_t i = 1; i < vals.size(); ++i) {
    Value *better = cx.compare(isMax ? fe::CmpOp::Gt : fe::CmpOp::Lt, vals[i], acc, t);
    acc = irb.CreateSelect(better, vals[i], acc);
  }
  return acc;
}

static Value *roundToDigits(LoweringContext &cx, Value *x, Value *nd, Scalar out) {
  IRBuilder<> &irb = cx.builder();
  // CPython's fallback double_round, as numba-cuda compiles it (in float64): scale by a
  // power of ten, round half to even, scale back; infinities, NaN and a scaling that
  // overflows give x itself.
  auto *f64 = llvm::Type::getDoubleTy(cx.context());
  auto *i64 = llvm::Type::getInt64Ty(cx.context());
  auto cst = [&](double v) { return ConstantFP::get(f64, v); };
  auto pow10 = [&](Value *n) { return cx.power(cst(10.0), n, Scalar::F64, Scalar::I64, Scalar::F64); };
  auto rnd = [&](Value *v) { // round(): an int64, back to float64
    return irb.CreateSIToFP(cx.libdeviceCall("llrint", Scalar::F64, {v}, i64), f64);
  };
  Value *zero = ConstantInt::get(i64, 0);
  Value *nonNeg = irb.CreateICmpSGE(nd, zero);
  Value *big = irb.CreateICmpSGT(nd, ConstantInt::get(i64, 22));
  Value *pow1 =
      irb.CreateSelect(nonNeg, pow10(irb.CreateSelect(big, irb.CreateSub(nd, ConstantInt::get(i64, 22)), nd)),
                       pow10(irb.CreateNeg(nd)));
  Value *pow2 = irb.CreateSelect(irb.CreateAnd(nonNeg, big), cst(1e22), cst(1.0));
  Value *y = irb.CreateSelect(nonNeg, irb.CreateFMul(irb.CreateFMul(x, pow1), pow2), cx.fdiv(x, pow1));
  Value *z = rnd(y);
  Value *half =
      irb.CreateFCmpOEQ(irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, irb.CreateFSub(y, z)), cst(0.5));
  z = irb.CreateSelect(half, irb.CreateFMul(cst(2.0), rnd(cx.fdiv(y, cst(2.0)))), z);
  Value *back = irb.CreateSelect(nonNeg, cx.fdiv(cx.fdiv(z, pow2), pow1), irb.CreateFMul(z, pow1));
  Value *ax = irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
        *ay = irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, y);
  Value *inf = cst(std::numeric_limits<double>::infinity());
  Value *keep = irb.CreateOr(irb.CreateFCmpUEQ(ax, inf), irb.CreateAnd(nonNeg, irb.CreateFCmpOEQ(ay, inf)));
  Value *r = irb.CreateSelect(keep, x, back); // UEQ: NaN keeps x too
  return cx.convertScalar(r, Scalar::F64, out);
}

Value *lowerArithmeticBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  ArithmeticOp op = ArithmeticOp(ci.function->op);
  switch (op) {
  case ArithmeticOp::Fma: {
    Type ft = Type::scalarOf(ci.operandTypes[0]);
    Value *x = cx.lowerAs(*c.args[0], ft);
    Value *y = cx.lowerAs(*c.args[1], ft);
    Value *z = cx.lowerAs(*c.args[2], ft);
    return irb.CreateIntrinsic(llvm::Intrinsic::fma, {cx.scalarType(ft.scalar)}, {x, y, z});
  }
  case ArithmeticOp::Cbrt: {
    Scalar t = ci.operandTypes[0];
    return cx.libdeviceCall("cbrt", t, {cx.lowerAs(*c.args[0], Type::scalarOf(t))});
  }
  case ArithmeticOp::Selp: {
    Type vt = Type::scalarOf(ci.operandTypes[1]);
    Value *test = cx.truth(cx.lowerExpr(*c.args[0]), cx.info(*c.args[0]).type);
    Value *a = cx.lowerAs(*c.args[1], vt);
    Value *b = cx.lowerAs(*c.args[2], vt);
    return irb.CreateSelect(test, a, b);
  }
  case ArithmeticOp::Abs: {
    Scalar t = ci.operandTypes[0];
    Value *v = cx.lowerAs(*c.args[0], Type::scalarOf(t));
    if (fe::isComplex(t))
      return cx.complexAbs(v, t);
    if (fe::isFloat(t))
      return irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
    if (!fe::isSigned(t))
      return v;
    return irb.CreateSelect(irb.CreateICmpSLT(v, ConstantInt::get(v->getType(), 0)), irb.CreateNeg(v), v);
  }
  case ArithmeticOp::Round: {
    if (c.args.size() == 2) {
      Value *x = cx.lowerAs(*c.args[0], Type::scalarOf(Scalar::F64));
      Value *nd = cx.lowerAs(*c.args[1], Type::scalarOf(Scalar::I64));
      return roundToDigits(cx, x, nd, ci.type.scalar);
    }
    Scalar t = ci.operandTypes[0];
    Value *v = cx.lowerAs(*c.args[0], Type::scalarOf(t));
    // Python rounds half to even, which is rint in the default rounding mode.
    Value *r = irb.CreateUnaryIntrinsic(llvm::Intrinsic::rint, v);
    return cx.convertScalar(r, t, ci.type.scalar);
  }
  case ArithmeticOp::Pow: {
    Scalar la = ci.operandTypes[0], rb = ci.operandTypes[1];
    Value *l = cx.lowerAs(*c.args[0], Type::scalarOf(la));
    Value *r = cx.lowerAs(*c.args[1], Type::scalarOf(rb));
    return cx.power(l, r, la, rb, ci.type.scalar);
  }
  case ArithmeticOp::Min:
  case ArithmeticOp::Max: {
    bool isMax = op == ArithmeticOp::Max;
    Scalar t = ci.type.scalar;
    std::vector<Value *> vals;
    if (c.args.size() == 1 && cx.info(*c.args[0]).type.isTuple()) { // min(tuple)
      Value *tup = cx.lowerExpr(*c.args[0]);
      const Type &tt = cx.info(*c.args[0]).type;
      for (unsigned i = 0; i < tt.elems.size(); ++i)
        vals.push_back(cx.convert(irb.CreateExtractValue(tup, {i}), tt.elems[i], ci.type));
    } else {
      // numba-cuda lowers min/max of two floats to libdevice's fmin/fmax (min.f32 and
      // friends): a NaN operand loses. Other operands follow Python's rules.
      if (c.args.size() == 2 && cx.info(*c.args[0]).type.isFloat() && cx.info(*c.args[1]).type.isFloat()) {
        Value *a = cx.lowerAs(*c.args[0], ci.type);
        Value *b = cx.lowerAs(*c.args[1], ci.type);
        return cx.libdeviceCall(isMax ? "fmax" : "fmin", t, {a, b});
      }
      for (auto &a : c.args)
        vals.push_back(cx.lowerAs(*a, ci.type));
    }
    return minMax(cx, isMax, vals, t);
  }
  case ArithmeticOp::Len: {
    if (ci.constant)
      return ConstantInt::get(llvm::Type::getInt64Ty(cx.context()), uint64_t(ci.constant->i));
    return cx.arrayField(cx.lowerExpr(*c.args[0]), 1, 0);
  }
  case ArithmeticOp::Complex: { // complex(real=0, imag=0); complex arguments as in Python
    Value *re = ConstantFP::get(llvm::Type::getDoubleTy(cx.context()), 0.0), *im = re;
    Value *parts[2] = {nullptr, nullptr};
    for (size_t i = 0; i < c.args.size(); ++i)
      parts[i] = cx.lowerAs(*c.args[i], Type::scalarOf(ci.operandTypes[i]));
    auto realOf = [&](size_t i) {
      return fe::isComplex(ci.operandTypes[i]) ? cx.realPart(parts[i]) : parts[i];
    };
    auto imagOf = [&](size_t i) {
      return fe::isComplex(ci.operandTypes[i]) ? cx.imagPart(parts[i]) : ConstantFP::get(re->getType(), 0.0);
    };
    // CPython's complex_new: the parts as given (signed zeros kept), and only a complex
    // argument's other part added: complex(a, b) = (re a - im b) + (re b + im a) j.
    if (parts[0]) {
      re = realOf(0);
      im = imagOf(0);
    }
    if (parts[1]) {
      if (fe::isComplex(ci.operandTypes[1]))
        re = irb.CreateFSub(re, cx.imagPart(parts[1]));
      im = fe::isComplex(ci.operandTypes[0]) ? irb.CreateFAdd(realOf(1), cx.imagPart(parts[0])) : realOf(1);
    }
    return cx.makeComplex(re, im, Scalar::C128);
  }
  case ArithmeticOp::Conjugate: {
    Scalar t = ci.operandTypes[0];
    Value *v = cx.lowerAs(fe::methodReceiver(c), Type::scalarOf(t));
    if (!fe::isComplex(t))
      return v;
    return cx.makeComplex(cx.realPart(v), irb.CreateFNeg(cx.imagPart(v)), t);
  }
  }
  return nullptr;
}

} // namespace ir
} // namespace cutwin
