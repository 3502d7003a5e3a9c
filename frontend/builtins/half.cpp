// numba-cuda's cuda.fp16 module: the float16 functions of CUDA's cuda_fp16.h (hadd, hdiv,
// hfma, comparisons, hmax, hsin, hexp, conversions with a rounding mode, bit casts), each
// computing what the header's device code computes (lower_half.cpp), and math.* on float16,
// which numba-cuda sends to the same functions.
#include "frontend/builtins/half.h"

#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowerer.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {
namespace fe {

ExprInfo typeHalfBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                         const Builtin &b);

namespace {
using S = Scalar;
using K = HalfKind;
using R = HalfRounding;

/// One cuda.fp16 function: its name, operation, argument and result types.
struct HalfFunction {
  const char *name;
  HalfKind kind;
  unsigned arity;
  Scalar in, out;
  HalfRounding mode = R::Nearest;
};

const HalfFunction kHalf[] = {
    {"hadd", K::Add, 2, S::F16, S::F16},
    {"hsub", K::Sub, 2, S::F16, S::F16},
    {"hmul", K::Mul, 2, S::F16, S::F16},
    {"__hadd_rn", K::Add, 2, S::F16, S::F16},
    {"__hsub_rn", K::Sub, 2, S::F16, S::F16},
    {"__hmul_rn", K::Mul, 2, S::F16, S::F16},
    {"__hadd_sat", K::AddSat, 2, S::F16, S::F16},
    {"__hsub_sat", K::SubSat, 2, S::F16, S::F16},
    {"__hmul_sat", K::MulSat, 2, S::F16, S::F16},
    {"hdiv", K::Div, 2, S::F16, S::F16},
    {"hfma", K::Fma, 3, S::F16, S::F16},
    {"__hfma_sat", K::FmaSat, 3, S::F16, S::F16},
    {"__hfma_relu", K::FmaRelu, 3, S::F16, S::F16},
    {"hneg", K::Neg, 1, S::F16, S::F16},
    {"habs", K::Abs, 1, S::F16, S::F16},
    {"heq", K::Eq, 2, S::F16, S::Bool},
    {"hne", K::Ne, 2, S::F16, S::Bool},
    {"hge", K::Ge, 2, S::F16, S::Bool},
    {"hgt", K::Gt, 2, S::F16, S::Bool},
    {"hle", K::Le, 2, S::F16, S::Bool},
    {"hlt", K::Lt, 2, S::F16, S::Bool},
    {"__hequ", K::Equ, 2, S::F16, S::Bool},
    {"__hneu", K::Neu, 2, S::F16, S::Bool},
    {"__hgeu", K::Geu, 2, S::F16, S::Bool},
    {"__hgtu", K::Gtu, 2, S::F16, S::Bool},
    {"__hleu", K::Leu, 2, S::F16, S::Bool},
    {"__hltu", K::Ltu, 2, S::F16, S::Bool},
    {"hmax", K::Max, 2, S::F16, S::F16},
    {"hmin", K::Min, 2, S::F16, S::F16},
    {"__hmax_nan", K::MaxNan, 2, S::F16, S::F16},
    {"__hmin_nan", K::MinNan, 2, S::F16, S::F16},
    {"__hisinf", K::IsInf, 1, S::F16, S::I32},
    {"__hisnan", K::IsNan, 1, S::F16, S::Bool},
    {"hsin", K::Sin, 1, S::F16, S::F16},
    {"hcos", K::Cos, 1, S::F16, S::F16},
    {"hexp", K::Exp, 1, S::F16, S::F16},
    {"hexp2", K::Exp2, 1, S::F16, S::F16},
    {"hexp10", K::Exp10, 1, S::F16, S::F16},
    {"hlog", K::Log, 1, S::F16, S::F16},
    {"hlog2", K::Log2, 1, S::F16, S::F16},
    {"hlog10", K::Log10, 1, S::F16, S::F16},
    {"hrcp", K::Rcp, 1, S::F16, S::F16},
    {"hrsqrt", K::Rsqrt, 1, S::F16, S::F16},
    {"hsqrt", K::Sqrt, 1, S::F16, S::F16},
    {"htanh", K::Tanh, 1, S::F16, S::F16},
    {"htanh_approx", K::TanhApprox, 1, S::F16, S::F16},
    {"hceil", K::Ceil, 1, S::F16, S::F16},
    {"hfloor", K::Floor, 1, S::F16, S::F16},
    {"htrunc", K::Trunc, 1, S::F16, S::F16},
    {"hrint", K::Rint, 1, S::F16, S::F16},
    {"__half2float", K::Convert, 1, S::F16, S::F32},
    {"__float2half", K::Convert, 1, S::F32, S::F16},
    {"__float2half_rn", K::Convert, 1, S::F32, S::F16},
    {"__float2half_rz", K::Convert, 1, S::F32, S::F16, R::Zero},
    {"__float2half_rd", K::Convert, 1, S::F32, S::F16, R::Down},
    {"__float2half_ru", K::Convert, 1, S::F32, S::F16, R::Up},
    {"__double2half", K::Convert, 1, S::F64, S::F16},
    {"__half2char_rz", K::Convert, 1, S::F16, S::I8, R::Zero},
    {"__half2uchar_rz", K::Convert, 1, S::F16, S::U8, R::Zero},
    {"__short_as_half", K::BitCast, 1, S::I16, S::F16},
    {"__ushort_as_half", K::BitCast, 1, S::U16, S::F16},
    {"__half_as_short", K::BitCast, 1, S::F16, S::I16},
    {"__half_as_ushort", K::BitCast, 1, S::F16, S::U16},
};

/// The integer conversions, both ways, in all four rounding modes: CUDA's names
/// (`__int2half_rn`, `__half2ull_rz`, ...).
struct IntName {
  const char *stem;
  Scalar type;
};
const IntName kIntNames[] = {{"short", S::I16}, {"ushort", S::U16}, {"int", S::I32},
                             {"uint", S::U32},  {"ll", S::I64},     {"ull", S::U64}};
const std::pair<const char *, HalfRounding> kModes[] = {
    {"rn", R::Nearest}, {"rz", R::Zero}, {"rd", R::Down}, {"ru", R::Up}};

std::vector<HalfFunction> allFunctions() {
  std::vector<HalfFunction> all(std::begin(kHalf), std::end(kHalf));
  static std::deque<std::string> names; // the rows keep pointers to them
  for (const IntName &n : kIntNames)
    for (auto &[suffix, mode] : kModes) {
      names.push_back(std::string("__") + n.stem + "2half_" + suffix);
      all.push_back({names.back().c_str(), K::Convert, 1, n.type, S::F16, mode});
      names.push_back(std::string("__half2") + n.stem + "_" + suffix);
      all.push_back({names.back().c_str(), K::Convert, 1, S::F16, n.type, mode});
    }
  return all;
}

const std::vector<HalfFunction> &functions() {
  static const std::vector<HalfFunction> all = allFunctions();
  return all;
}

/// numba-cuda's cuda_fp16 names with and without the leading `__` (`hadd`, `__hadd`).
std::string aliasOf(const std::string &name) {
  if (name.rfind("__", 0) == 0)
    return name.substr(2);
  return "__" + name;
}
} // namespace

std::span<const Builtin> halfBuiltins() {
  static const BuiltinRows rows([](BuiltinRows &r) {
    const auto &fns = functions();
    for (unsigned i = 0; i < fns.size(); ++i) {
      std::string name = fns[i].name;
      r.add("cuda.fp16." + name, i, &typeHalfBuiltin, &ir::Lowerer::lowerHalfBuiltin);
      // hadd is also __hadd; __hadd_rn has no short name in numba-cuda
      bool shortForm = name.rfind("__", 0) != 0;
      if (shortForm)
        r.add("cuda.fp16." + aliasOf(name), i, &typeHalfBuiltin, &ir::Lowerer::lowerHalfBuiltin);
    }
  });
  return rows.rows();
}

std::optional<HalfKind> halfMathKind(const std::string &name) {
  static const std::pair<const char *, HalfKind> kinds[] = {
      {"trunc", K::Trunc}, {"ceil", K::Ceil}, {"floor", K::Floor}, {"fabs", K::Abs}, {"sqrt", K::Sqrt},
      {"log", K::Log},     {"log2", K::Log2}, {"log10", K::Log10}, {"exp", K::Exp},  {"exp2", K::Exp2},
      {"tanh", K::Tanh},   {"cos", K::Cos},   {"sin", K::Sin}};
  for (auto &[n, k] : kinds)
    if (name == n)
      return k;
  return std::nullopt;
}

ExprInfo typeHalfBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                         const Builtin &b) {
  const HalfFunction &f = functions()[b.op];
  cx.checkArity(c, b.name, args.size(), f.arity, f.arity);
  auto actual = cx.scalarArgs(c, args, b.name);
  ScalarCase only{std::vector<Scalar>(f.arity, f.in), f.out};
  auto cs = resolveOverload({only}, actual);
  if (!cs) {
    std::string got = scalarNames(actual);
    cx.error(c.loc, std::string(b.name) + "() takes " + scalarName(f.in) + (f.arity > 1 ? " arguments" : "") +
                        ", not (" + got + ")");
  }
  ExprInfo info;
  info.type = Type::scalarOf(cs->result);
  info.operandTypes = cs->args;
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *Lowerer::lowerHalfBuiltin(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  const fe::HalfFunction &f = fe::functions()[ci.function->op];
  std::vector<Value *> args;
  for (size_t i = 0; i < c.args.size(); ++i)
    args.push_back(lowerAs(*c.args[i], Type::scalarOf(ci.operandTypes[i])));
  setLoc(c.loc);
  if (f.kind == fe::HalfKind::Convert)
    return convertRounded(args[0], f.in, f.out, f.mode);
  if (f.kind == fe::HalfKind::BitCast)
    return b_.CreateBitCast(args[0], scalarType(f.out));
  return halfOp(f.kind, args);
}

} // namespace ir
} // namespace cutwin
