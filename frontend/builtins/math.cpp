// The math module: math.sin, math.pow, math.isnan, ... with numba's typing (integers as
// float64, float32 kept) and libdevice's functions of the argument's precision; the exact
// operations (fabs, floor, copysign, ...) as LLVM intrinsics (mathOp, which ufuncs share).
#include "frontend/builtins/math.h"

#include "frontend/builtins/builtin.h"
#include "frontend/builtins/half.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/sema/typing_context.h"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <cmath>

namespace cutwin {

namespace ir {
llvm::Value *lowerMathBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
} // namespace ir

namespace fe {

ExprInfo typeMathBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                         const Builtin &b);

namespace {
const MathFunction kMath[] = {
    {"sqrt", 1, nullptr},
    {"fabs", 1, nullptr},
    {"floor", 1, nullptr},
    {"ceil", 1, nullptr},
    {"trunc", 1, nullptr},
    {"exp", 1, "exp"},
    {"expm1", 1, "expm1"},
    {"log", 1, "log"},
    {"log2", 1, "log2"},
    {"log10", 1, "log10"},
    {"log1p", 1, "log1p"},
    {"sin", 1, "sin"},
    {"cos", 1, "cos"},
    {"tan", 1, "tan"},
    {"asin", 1, "asin"},
    {"acos", 1, "acos"},
    {"atan", 1, "atan"},
    {"sinh", 1, "sinh"},
    {"cosh", 1, "cosh"},
    {"tanh", 1, "tanh"},
    {"asinh", 1, "asinh"},
    {"acosh", 1, "acosh"},
    {"atanh", 1, "atanh"},
    {"erf", 1, "erf"},
    {"erfc", 1, "erfc"},
    {"gamma", 1, "tgamma"},
    {"lgamma", 1, "lgamma"},
    {"atan2", 2, "atan2"},
    {"pow", 2, "pow"},
    {"hypot", 2, "hypot"},
    {"fmod", 2, "fmod"},
    {"copysign", 2, "copysign"},
    {"isnan", 1, nullptr},
    {"isinf", 1, nullptr},
    {"isfinite", 1, nullptr},
    {"radians", 1, nullptr},
    {"degrees", 1, nullptr},
    {"exp2", 1, "exp2"},
    {"nextafter", 2, "nextafter"},
    {"remainder", 2, "remainder"},
    {"cbrt", 1, "cbrt"},
    {"rint", 1, "rint"},
    // computed by libdevice's function of the argument's precision (results as tuples)
    {"frexp", 1, "frexp"},
    {"ldexp", 2, "ldexp"},
    {"modf", 1, "modf"},
};
} // namespace

const MathFunction *mathFunction(const std::string &name) {
  for (auto &m : kMath)
    if (name == m.name)
      return &m;
  return nullptr;
}

std::span<const Builtin> mathBuiltins() {
  static const BuiltinRows rows([](BuiltinRows &r) {
    for (unsigned i = 0; i < std::size(kMath); ++i)
      r.add(std::string("math.") + kMath[i].name, i, &typeMathBuiltin, &ir::lowerMathBuiltin);
  });
  return rows.rows();
}

ExprInfo typeMathBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                         const Builtin &b) {
  const MathFunction *m = &kMath[b.op];
  const std::string fn = m->name;
  if (args.size() != m->arity)
    cx.error(c.loc, "math." + fn + "() takes " + std::to_string(m->arity) + " argument" +
                        (m->arity == 1 ? "" : "s") + ", " + std::to_string(args.size()) + " given");
  auto actual = cx.scalarArgs(c, args, ("math." + fn).c_str());
  if (fn == "frexp" || fn == "ldexp" || fn == "modf") {
    // numba's float32 and float64 cases (integers as float64): libdevice's function of
    // that precision, its pointer results a tuple ((mantissa, exponent), (fraction, whole))
    if (isComplex(actual[0]) || (fn == "ldexp" && !isInteger(actual[1]) && actual[1] != Scalar::Bool))
      cx.error(c.loc, "math." + fn + "() does not accept " + std::string(scalarName(actual[0])) +
                          (fn == "ldexp" ? std::string(", ") + scalarName(actual[1]) : std::string()));
    const Builtin &precise = *libdeviceBuiltin(actual[0] == Scalar::F32 ? fn + "f" : fn);
    ExprInfo info = precise.type(cx, c, args, precise);
    info.function = &precise;
    return info;
  }
  auto cs = mathCase(fn, actual);
  if (!cs) {
    std::string got = scalarNames(actual);
    cx.error(c.loc, "math." + fn + "() does not accept (" + got + ")");
  }
  ExprInfo info;
  info.type = Type::scalarOf(cs->result);
  info.operandTypes = cs->args;
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *mathOp(LoweringContext &cx, const std::string &name, ArrayRef<Value *> args, ArrayRef<Scalar> argTypes,
              Scalar out) {
  IRBuilder<> &irb = cx.builder();
  Scalar in = argTypes[0];

  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    if (!fe::isFloat(in))
      return ConstantInt::getBool(cx.context(), name == "isfinite");
    Value *x = args[0];
    if (name == "isnan")
      return irb.CreateFCmpUNO(x, x);
    Value *ax = irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    Value *inf = ConstantFP::getInfinity(x->getType());
    return name == "isinf" ? irb.CreateFCmpOEQ(ax, inf) : irb.CreateFCmpOLT(ax, inf);
  }
  if (name == "radians" || name == "degrees") {
    double k = name == "radians" ? M_PI / 180.0 : 180.0 / M_PI;
    return irb.CreateFMul(ConstantFP::get(args[0]->getType(), k), args[0]);
  }
  if (in == Scalar::F16) // numba-cuda's float16 overloads (math.sin is cuda.fp16.hsin)
    if (auto kind = fe::halfMathKind(name))
      return halfOp(cx, *kind, args);
  if (name == "sqrt")
    return cx.fsqrt(args[0]);
  // numba-cuda's fastmath takes tanh.approx.f32 for float32 tanh, and libdevice's fast
  // float32 versions of these.
  if (cx.kernelInfo().fastmath && name == "tanh" && in == Scalar::F32)
    return approx(cx, ir::ApproxUnit::Tanh, args[0]);
  static const char *const fast[] = {"cos", "sin", "tan", "exp", "log", "log2", "log10", "pow"};
  if (cx.kernelInfo().fastmath && out == Scalar::F32 && in == Scalar::F32 &&
      std::find(std::begin(fast), std::end(fast), name) != std::end(fast) &&
      (name != "pow" || argTypes[1] == Scalar::F32))
    return cx.libdeviceCall("fast_" + name, out, args);
  // Exact operations are LLVM intrinsics (IEEE on every target); the rest is libdevice.
  static const std::pair<const char *, llvm::Intrinsic::ID> exact[] = {
      {"fabs", llvm::Intrinsic::fabs},         {"floor", llvm::Intrinsic::floor},
      {"ceil", llvm::Intrinsic::ceil},         {"trunc", llvm::Intrinsic::trunc},
      {"copysign", llvm::Intrinsic::copysign},
  };
  for (auto &[n, id] : exact)
    if (name == n)
      return args.size() == 1 ? irb.CreateUnaryIntrinsic(id, args[0])
                              : irb.CreateBinaryIntrinsic(id, args[0], args[1]);
  if (name == "pow" && fe::isInteger(argTypes[1]))
    return cx.libdeviceCall("powi", out, args); // __nv_powi / __nv_powif (float, int32)
  const fe::MathFunction *m = fe::mathFunction(name);
  return cx.libdeviceCall(m->libdevice, out, args);
}

Value *lowerMathBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  std::vector<Value *> args;
  for (size_t i = 0; i < c.args.size(); ++i)
    args.push_back(cx.lowerAs(*c.args[i], Type::scalarOf(ci.operandTypes[i])));
  cx.setLoc(c.loc);
  return mathOp(cx, fe::kMath[ci.function->op].name, args, ci.operandTypes, ci.type.scalar);
}

} // namespace ir
} // namespace cutwin
