// numba-cuda's cuda.fp16 module: the float16 functions of CUDA's cuda_fp16.h (hadd, hdiv,
// hfma, comparisons, hmax, hsin, hexp, conversions with a rounding mode, bit casts), each
// computing what the header's device code computes, and math.* on float16, which
// numba-cuda sends to the same functions.
#include "frontend/builtins/half.h"

#include "frontend/builtins/builtin.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/sema/typing_context.h"

#include <llvm/ADT/APFloat.h>

namespace cutwin {

namespace ir {
llvm::Value *lowerHalfBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
} // namespace ir

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
      r.add("cuda.fp16." + name, i, &typeHalfBuiltin, &ir::lowerHalfBuiltin);
      // hadd is also __hadd; __hadd_rn has no short name in numba-cuda
      bool shortForm = name.rfind("__", 0) != 0;
      if (shortForm)
        r.add("cuda.fp16." + aliasOf(name), i, &typeHalfBuiltin, &ir::lowerHalfBuiltin);
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
using fe::HalfKind;
using fe::HalfRounding;

namespace {
constexpr uint16_t kCanonicalNaN = 0x7fff; // what the GPU's half arithmetic returns for NaN
} // namespace

Value *approx(LoweringContext &cx, ApproxUnit unit, Value *x) {
  IRBuilder<> &irb = cx.builder();
  return irb.CreateCall(getIntrinsic(cx.module(), Intrinsic::Approx), {irb.getInt32(unsigned(unit)), x});
}

static Value *halfBits(LoweringContext &cx, uint16_t bits) {
  return ConstantFP::get(cx.context(), APFloat(APFloat::IEEEhalf(), APInt(16, bits)));
}

/// The float32 constant with these bits (the header writes its constants as bits).
static Value *floatBits(LLVMContext &ctx, uint32_t bits) {
  return ConstantFP::get(ctx, APFloat(APFloat::IEEEsingle(), APInt(32, bits)));
}

static Value *halfSpecialCases(LoweringContext &cx, Value *in, Value *r,
                               ArrayRef<std::pair<uint16_t, uint16_t>> cases, bool onResult = false) {
  IRBuilder<> &irb = cx.builder();
  for (auto [input, ulp] : cases) {
    Value *key = onResult ? r : in; // hlog2 tests the result as it goes
    Value *p =
        irb.CreateSelect(irb.CreateFCmpOEQ(key, halfBits(cx, input)), halfBits(cx, 0x3c00), halfBits(cx, 0));
    r = irb.CreateIntrinsic(llvm::Intrinsic::fma, {r->getType()}, {p, halfBits(cx, ulp), r});
  }
  return r;
}

/// sin (cos: quadrant + 1) of a float32 after one Cody-Waite reduction by pi/2, with the
/// header's polynomials (__float_simpl_sinf/cosf): accurate enough for a half result.
static Value *halfSinCosKernel(LoweringContext &cx, Value *a, bool cosine) {
  IRBuilder<> &irb = cx.builder();
  llvm::Type *f32 = irb.getFloatTy();
  auto fma = [&](Value *x, Value *y, Value *z) {
    return irb.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {x, y, z});
  };
  auto k = [&](float v) { return ConstantFP::get(f32, v); };
  Value *shifted = fma(a, k(0.636619772F), k(12582912.0F)); // 1.5 * 2^23: the quotient in the low bits
  Value *q = irb.CreateBitCast(shifted, irb.getInt32Ty());
  Value *j = irb.CreateFSub(shifted, k(12582912.0F));
  Value *t = fma(j, k(-1.5707962512969971e+000F), a);
  t = fma(j, k(-7.5497894158615964e-008F), t);
  Value *quadrant = cosine ? irb.CreateAdd(irb.CreateAnd(q, 3), irb.getInt32(1)) : q;
  Value *x2 = irb.CreateFMul(t, t);
  Value *isCos = irb.CreateICmpNE(irb.CreateAnd(quadrant, 1), irb.getInt32(0));
  auto pick = [&](Value *c, Value *s) { return irb.CreateSelect(isCos, c, s); };
  Value *z =
      fma(pick(k(2.44331571e-5F), k(-1.95152959e-4F)), x2, pick(k(-1.38873163e-3F), k(8.33216087e-3F)));
  z = fma(z, x2, pick(k(4.16666457e-2F), k(-1.66666546e-1F)));
  z = fma(z, x2, pick(k(-5.00000000e-1F), k(0.0F)));
  z = fma(z, pick(x2, t), pick(k(1.0F), t));
  Value *negate = irb.CreateICmpNE(irb.CreateAnd(quadrant, 2), irb.getInt32(0));
  return irb.CreateSelect(negate, irb.CreateFNeg(z), z);
}

Value *halfDivide(LoweringContext &cx, Value *a, Value *b) {
  IRBuilder<> &irb = cx.builder();
  // __hdiv: a * rcp.approx(b) in float32, refined by one Newton step where the half result
  // is a tiny subnormal (below 0x008f)
  llvm::Type *f32 = irb.getFloatTy(), *f16 = irb.getHalfTy();
  Value *fa = irb.CreateFPExt(a, f32), *fb = irb.CreateFPExt(b, f32);
  Value *rcp = approx(cx, ApproxUnit::RcpFtz, fb);
  Value *fv = irb.CreateFMul(rcp, fa);
  Value *v = irb.CreateFPTrunc(fv, f16);
  Value *mag = irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
  Value *tiny =
      irb.CreateAnd(irb.CreateFCmpOLT(mag, halfBits(cx, 0x008f)), irb.CreateFCmpOLT(halfBits(cx, 0), mag));
  Value *err = irb.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {irb.CreateFNeg(fb), fv, fa});
  Value *refined = irb.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {rcp, err, fv});
  return irb.CreateSelect(tiny, irb.CreateFPTrunc(refined, f16), v);
}

/// [0, 1], NaN to +0: PTX's .sat.
static Value *halfSaturate(LoweringContext &cx, Value *r) {
  IRBuilder<> &irb = cx.builder();
  Value *one = halfBits(cx, 0x3c00), *zero = halfBits(cx, 0);
  Value *upper = irb.CreateSelect(irb.CreateFCmpOLT(r, one), r, one);
  return irb.CreateSelect(irb.CreateFCmpOGT(r, zero), upper, zero);
}

/// max/min with CUDA's rules: +0 above -0, a NaN argument gives the other one (both NaN:
/// the canonical NaN), or with `nanWins` a NaN argument gives the canonical NaN.
Value *maxMinBits(IRBuilderBase &irb, Value *a, Value *b, Value *x, Value *y, bool max, bool nanWins) {
  // equal values have equal bits but for zeros: and-ing the sign gives max's zero, or-ing min's
  Value *equal = max ? irb.CreateAnd(a, b) : irb.CreateOr(a, b);
  Value *aWins = max ? irb.CreateFCmpOGT(x, y) : irb.CreateFCmpOLT(x, y);
  Value *bWins = max ? irb.CreateFCmpOLT(x, y) : irb.CreateFCmpOGT(x, y);
  Value *r = irb.CreateSelect(aWins, a, irb.CreateSelect(bWins, b, equal));
  Value *aNaN = irb.CreateFCmpUNO(x, x), *bNaN = irb.CreateFCmpUNO(y, y);
  Value *nan = irb.getInt16(kCanonicalNaN);
  if (nanWins)
    return irb.CreateSelect(irb.CreateOr(aNaN, bNaN), nan, r);
  return irb.CreateSelect(aNaN, irb.CreateSelect(bNaN, nan, b), irb.CreateSelect(bNaN, a, r));
}

static Value *halfMaxMin(LoweringContext &cx, Value *a, Value *b, bool max, bool nanWins) {
  IRBuilder<> &irb = cx.builder();
  llvm::Type *i16 = irb.getInt16Ty();
  Value *r = maxMinBits(irb, irb.CreateBitCast(a, i16), irb.CreateBitCast(b, i16), a, b, max, nanWins);
  return irb.CreateBitCast(r, a->getType());
}

Value *halfOp(LoweringContext &cx, HalfKind kind, ArrayRef<Value *> a) {
  IRBuilder<> &irb = cx.builder();
  llvm::Type *f32 = irb.getFloatTy(), *f16 = irb.getHalfTy();
  auto fma16 = [&](Value *x, Value *y, Value *z) {
    return irb.CreateIntrinsic(llvm::Intrinsic::fma, {f16}, {x, y, z});
  };
  auto wide = [&](Value *x) { return irb.CreateFPExt(x, f32); };
  auto narrow = [&](Value *x) { return irb.CreateFPTrunc(x, f16); };
  auto viaUnit = [&](ApproxUnit u) { return narrow(approx(cx, u, wide(a[0]))); };
  switch (kind) {
  case HalfKind::Add: return irb.CreateFAdd(a[0], a[1]);
  case HalfKind::Sub: return irb.CreateFSub(a[0], a[1]);
  case HalfKind::Mul: return irb.CreateFMul(a[0], a[1]);
  case HalfKind::Div: return halfDivide(cx, a[0], a[1]);
  case HalfKind::Fma: return fma16(a[0], a[1], a[2]);
  case HalfKind::AddSat: return halfSaturate(cx, irb.CreateFAdd(a[0], a[1]));
  case HalfKind::SubSat: return halfSaturate(cx, irb.CreateFSub(a[0], a[1]));
  case HalfKind::MulSat: return halfSaturate(cx, irb.CreateFMul(a[0], a[1]));
  case HalfKind::FmaSat: return halfSaturate(cx, fma16(a[0], a[1], a[2]));
  case HalfKind::FmaRelu: {
    Value *r = fma16(a[0], a[1], a[2]);
    return irb.CreateSelect(irb.CreateFCmpOLT(r, halfBits(cx, 0)), halfBits(cx, 0), r);
  }
  case HalfKind::Neg: return irb.CreateFNeg(a[0]);
  case HalfKind::Abs: return irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a[0]);
  case HalfKind::Eq: return irb.CreateFCmpOEQ(a[0], a[1]);
  case HalfKind::Ne: return irb.CreateFCmpONE(a[0], a[1]);
  case HalfKind::Ge: return irb.CreateFCmpOGE(a[0], a[1]);
  case HalfKind::Gt: return irb.CreateFCmpOGT(a[0], a[1]);
  case HalfKind::Le: return irb.CreateFCmpOLE(a[0], a[1]);
  case HalfKind::Lt: return irb.CreateFCmpOLT(a[0], a[1]);
  case HalfKind::Equ: return irb.CreateFCmpUEQ(a[0], a[1]);
  case HalfKind::Neu: return irb.CreateFCmpUNE(a[0], a[1]);
  case HalfKind::Geu: return irb.CreateFCmpUGE(a[0], a[1]);
  case HalfKind::Gtu: return irb.CreateFCmpUGT(a[0], a[1]);
  case HalfKind::Leu: return irb.CreateFCmpULE(a[0], a[1]);
  case HalfKind::Ltu: return irb.CreateFCmpULT(a[0], a[1]);
  case HalfKind::Max: return halfMaxMin(cx, a[0], a[1], true, false);
  case HalfKind::Min: return halfMaxMin(cx, a[0], a[1], false, false);
  case HalfKind::MaxNan: return halfMaxMin(cx, a[0], a[1], true, true);
  case HalfKind::MinNan: return halfMaxMin(cx, a[0], a[1], false, true);
  case HalfKind::IsInf: {
    Value *pos = irb.CreateFCmpOEQ(a[0], halfBits(cx, 0x7c00)),
          *neg = irb.CreateFCmpOEQ(a[0], halfBits(cx, 0xfc00));
    return irb.CreateSelect(pos, irb.getInt32(1), irb.CreateSelect(neg, irb.getInt32(-1), irb.getInt32(0)));
  }
  case HalfKind::IsNan: return irb.CreateFCmpUNO(a[0], a[0]);
  case HalfKind::Sin: {
    // the result's sign is kept aside while the corrections apply to magnitudes
    Value *r = narrow(halfSinCosKernel(cx, wide(a[0]), false));
    llvm::Type *i16 = irb.getInt16Ty();
    Value *sign = irb.CreateAnd(irb.CreateBitCast(r, i16), 0x8000);
    r = irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, r);
    r = halfSpecialCases(cx, irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a[0]), r,
                         {{0x32B3, 0x0800}, {0x5CB0, 0x9000}});
    return irb.CreateBitCast(irb.CreateOr(irb.CreateBitCast(r, i16), sign), f16);
  }
  case HalfKind::Cos: {
    Value *r = narrow(halfSinCosKernel(cx, wide(a[0]), true));
    return halfSpecialCases(cx, irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a[0]), r, {{0x2B7C, 0x1000}});
  }
  case HalfKind::Exp:
  case HalfKind::Exp10: {
    // 2^(x log2(e)) or 2^(x log2(10)); the fma with -0 is the header's
    bool ten = kind == HalfKind::Exp10;
    Value *f = irb.CreateIntrinsic(llvm::Intrinsic::fma, {f32},
                                   {wide(a[0]), floatBits(cx.context(), ten ? 0x40549A78u : 0x3fb8aa3bu),
                                    floatBits(cx.context(), 0x80000000u)});
    Value *r = narrow(approx(cx, ApproxUnit::Ex2Ftz, f));
    if (ten)
      return halfSpecialCases(
          cx, a[0], r,
          {{0x34DE, 0x9800}, {0x9766, 0x9000}, {0x9972, 0x1000}, {0xA5C4, 0x1000}, {0xBF0A, 0x8100}});
    return halfSpecialCases(cx, a[0], r,
                            {{0x1F79, 0x9400}, {0x25CF, 0x9400}, {0xC13B, 0x0400}, {0xC1EF, 0x0200}});
  }
  case HalfKind::Exp2: {
    Value *f = approx(cx, ApproxUnit::Ex2Ftz, wide(a[0]));
    return narrow(irb.CreateIntrinsic(llvm::Intrinsic::fma, {f32},
                                      {f, floatBits(cx.context(), 0x33800000u), f})); // + 1 ulp
  }
  case HalfKind::Log2: {
    Value *r = narrow(approx(cx, ApproxUnit::Lg2Ftz, wide(a[0])));
    return halfSpecialCases(cx, nullptr, r, {{0xA2E2, 0x8080}, {0xBF46, 0x9400}}, true);
  }
  case HalfKind::Log:
  case HalfKind::Log10: {
    bool ten = kind == HalfKind::Log10;
    Value *f = irb.CreateFMul(approx(cx, ApproxUnit::Lg2Ftz, wide(a[0])),
                              floatBits(cx.context(), ten ? 0x3E9A209Bu : 0x3f317218u)); // log10(2), ln(2)
    Value *r = narrow(f);
    if (ten)
      return halfSpecialCases(cx, a[0], r,
                              {{0x338F, 0x1000}, {0x33F8, 0x9000}, {0x57E1, 0x9800}, {0x719D, 0x9C00}});
    return halfSpecialCases(cx, a[0], r,
                            {{0x160D, 0x9C00}, {0x3BFE, 0x8010}, {0x3C0B, 0x8080}, {0x6051, 0x1C00}});
  }
  case HalfKind::Rcp: return viaUnit(ApproxUnit::RcpFtz);
  case HalfKind::Rsqrt: return viaUnit(ApproxUnit::RsqrtFtz);
  case HalfKind::Sqrt: return viaUnit(ApproxUnit::SqrtFtz);
  case HalfKind::TanhApprox: return viaUnit(ApproxUnit::TanhF16);
  case HalfKind::Tanh: return narrow(cx.libdeviceCall("tanh", Scalar::F32, {wide(a[0])}));
  case HalfKind::Ceil: return irb.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, a[0]);
  case HalfKind::Floor: return irb.CreateUnaryIntrinsic(llvm::Intrinsic::floor, a[0]);
  case HalfKind::Trunc: return irb.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, a[0]);
  case HalfKind::Rint: return irb.CreateUnaryIntrinsic(llvm::Intrinsic::rint, a[0]);
  case HalfKind::Convert:
  case HalfKind::BitCast: break; // lowerHalfBuiltin's, with their types
  }
  throw Error("internal error: float16 operation not lowered");
}

/// The float16 next to h toward -inf (down) or +inf, as bits: zeros step to the smallest
/// subnormal of the direction's sign.
static Value *halfStep(IRBuilder<> &b, Value *h, bool down) {
  llvm::Type *i16 = b.getInt16Ty();
  Value *bits = b.CreateBitCast(h, i16);
  Value *negative = b.CreateICmpNE(b.CreateAnd(bits, 0x8000), b.getInt16(0));
  Value *zero = b.CreateICmpEQ(b.CreateAnd(bits, 0x7fff), b.getInt16(0));
  // away from zero on the direction's side, toward zero on the other
  Value *away = down ? negative : b.CreateNot(negative);
  Value *stepped = b.CreateSelect(away, b.CreateAdd(bits, b.getInt16(1)), b.CreateSub(bits, b.getInt16(1)));
  stepped = b.CreateSelect(zero, b.getInt16(down ? 0x8001 : 0x0001), stepped);
  return b.CreateBitCast(stepped, h->getType());
}

static Value *toHalfRounded(LoweringContext &cx, Value *x, HalfRounding mode) {
  IRBuilder<> &irb = cx.builder();
  Value *rn = irb.CreateFPTrunc(x, irb.getHalfTy());
  if (mode == HalfRounding::Nearest)
    return rn;
  // round to nearest, then one step back where that went past x in the wrong direction
  Value *back = irb.CreateFPExt(rn, x->getType());
  switch (mode) {
  case HalfRounding::Down: return irb.CreateSelect(irb.CreateFCmpOGT(back, x), halfStep(irb, rn, true), rn);
  case HalfRounding::Up: return irb.CreateSelect(irb.CreateFCmpOLT(back, x), halfStep(irb, rn, false), rn);
  case HalfRounding::Nearest: return rn;
  case HalfRounding::Zero: {
    Value *ax = irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    Value *aback = irb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back);
    llvm::Type *i16 = irb.getInt16Ty();
    Value *towardZero =
        irb.CreateBitCast(irb.CreateSub(irb.CreateBitCast(rn, i16), irb.getInt16(1)), rn->getType());
    return irb.CreateSelect(irb.CreateFCmpOGT(aback, ax), towardZero, rn);
  }
  }
  return rn;
}

static Value *convertRounded(LoweringContext &cx, Value *v, Scalar from, Scalar to, HalfRounding mode) {
  IRBuilder<> &irb = cx.builder();
  if (from == Scalar::F16 && fe::isFloat(to))
    return irb.CreateFPExt(v, cx.scalarType(to));
  if (fe::isFloat(from) && to == Scalar::F16)
    return toHalfRounded(cx, v, mode);
  if (to == Scalar::F16) {
    // integers through float32, exactly: beyond 2^24 every mode gives the same half as 2^24
    unsigned w = fe::bitWidth(from);
    if (w > 24) {
      llvm::Type *it = v->getType();
      Value *lim = ConstantInt::get(it, 1u << 24);
      if (fe::isSigned(from)) {
        v = irb.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, lim);
        v = irb.CreateBinaryIntrinsic(llvm::Intrinsic::smax, v,
                                      ConstantInt::get(it, -(int64_t(1) << 24), true));
      } else {
        v = irb.CreateBinaryIntrinsic(llvm::Intrinsic::umin, v, lim);
      }
    }
    Value *f =
        fe::isSigned(from) ? irb.CreateSIToFP(v, irb.getFloatTy()) : irb.CreateUIToFP(v, irb.getFloatTy());
    return toHalfRounded(cx, f, mode);
  }
  // half to an integer: round in half (exact), then convert saturating, NaN to 0
  static const llvm::Intrinsic::ID byMode[] = {llvm::Intrinsic::rint, llvm::Intrinsic::trunc,
                                               llvm::Intrinsic::floor, llvm::Intrinsic::ceil};
  Value *r = irb.CreateUnaryIntrinsic(byMode[int(mode)], v);
  auto id = fe::isSigned(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
  return irb.CreateIntrinsic(id, {cx.scalarType(to), r->getType()}, {r});
}

Value *lowerHalfBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  const fe::HalfFunction &f = fe::functions()[ci.function->op];
  std::vector<Value *> args;
  for (size_t i = 0; i < c.args.size(); ++i)
    args.push_back(cx.lowerAs(*c.args[i], Type::scalarOf(ci.operandTypes[i])));
  cx.setLoc(c.loc);
  if (f.kind == fe::HalfKind::Convert)
    return convertRounded(cx, args[0], f.in, f.out, f.mode);
  if (f.kind == fe::HalfKind::BitCast)
    return irb.CreateBitCast(args[0], cx.scalarType(f.out));
  return halfOp(cx, f.kind, args);
}

} // namespace ir
} // namespace cutwin
