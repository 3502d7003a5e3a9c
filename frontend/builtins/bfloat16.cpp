// numba-cuda's cuda.bf16 module: the bfloat16 functions of CUDA's cuda_bf16.h (hadd,
// hfma, hmax, comparisons, hisinf, conversions in each rounding mode, bit casts), by
// numba-cuda's names (`hadd_sat`, `float32_to_bfloat16_rz`, `bfloat16_to_int32_rd`,
// `int16_as_bfloat16`, `htrunc`, ...), over the operations float16's family names
// (HalfKind). Each is computed on the values' float32 (which holds a bfloat16 exactly) and
// rounded once, as the header's device code rounds (frontend/lower/bfloat16.h); both
// backends run the same instructions.
#include "frontend/lower/bfloat16.h"
#include "frontend/builtins/builtin.h"
#include "frontend/builtins/half.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

#include <deque>
#include <string>

namespace cutwin {

namespace ir {
llvm::Value *lowerBfloat16Builtin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {

using S = fe::Scalar;
using K = fe::HalfKind; // the operations cuda_fp16.h and cuda_bf16.h share
using R = fe::HalfRounding;

/// One cuda.bf16 function: its name, operation, arity, argument and result types.
struct BfFunction {
  const char *name;
  K op;
  unsigned arity;
  S in, out;
  R mode = R::Nearest;
};

const BfFunction kBfloat16[] = {
    {"hadd", K::Add, 2, S::BF16, S::BF16},
    {"hsub", K::Sub, 2, S::BF16, S::BF16},
    {"hmul", K::Mul, 2, S::BF16, S::BF16},
    {"hadd_rn", K::Add, 2, S::BF16, S::BF16},
    {"hsub_rn", K::Sub, 2, S::BF16, S::BF16},
    {"hmul_rn", K::Mul, 2, S::BF16, S::BF16},
    {"hdiv", K::Div, 2, S::BF16, S::BF16},
    {"hadd_sat", K::AddSat, 2, S::BF16, S::BF16},
    {"hsub_sat", K::SubSat, 2, S::BF16, S::BF16},
    {"hmul_sat", K::MulSat, 2, S::BF16, S::BF16},
    {"hfma", K::Fma, 3, S::BF16, S::BF16},
    {"hfma_sat", K::FmaSat, 3, S::BF16, S::BF16},
    {"hfma_relu", K::FmaRelu, 3, S::BF16, S::BF16},
    {"hneg", K::Neg, 1, S::BF16, S::BF16},
    {"habs", K::Abs, 1, S::BF16, S::BF16},
    {"heq", K::Eq, 2, S::BF16, S::Bool},
    {"hne", K::Ne, 2, S::BF16, S::Bool},
    {"hge", K::Ge, 2, S::BF16, S::Bool},
    {"hgt", K::Gt, 2, S::BF16, S::Bool},
    {"hle", K::Le, 2, S::BF16, S::Bool},
    {"hlt", K::Lt, 2, S::BF16, S::Bool},
    {"hequ", K::Equ, 2, S::BF16, S::Bool},
    {"hneu", K::Neu, 2, S::BF16, S::Bool},
    {"hgeu", K::Geu, 2, S::BF16, S::Bool},
    {"hgtu", K::Gtu, 2, S::BF16, S::Bool},
    {"hleu", K::Leu, 2, S::BF16, S::Bool},
    {"hltu", K::Ltu, 2, S::BF16, S::Bool},
    {"hmax", K::Max, 2, S::BF16, S::BF16},
    {"hmin", K::Min, 2, S::BF16, S::BF16},
    {"hmax_nan", K::MaxNan, 2, S::BF16, S::BF16},
    {"hmin_nan", K::MinNan, 2, S::BF16, S::BF16},
    {"hisinf", K::IsInf, 1, S::BF16, S::I32},
    {"hisnan", K::IsNan, 1, S::BF16, S::Bool},
    {"htrunc", K::Trunc, 1, S::BF16, S::BF16},
    {"hceil", K::Ceil, 1, S::BF16, S::BF16},
    {"hfloor", K::Floor, 1, S::BF16, S::BF16},
    {"hrint", K::Rint, 1, S::BF16, S::BF16},
    {"hsqrt", K::Sqrt, 1, S::BF16, S::BF16},
    {"hrsqrt", K::Rsqrt, 1, S::BF16, S::BF16},
    {"hrcp", K::Rcp, 1, S::BF16, S::BF16},
    {"hlog", K::Log, 1, S::BF16, S::BF16},
    {"hlog2", K::Log2, 1, S::BF16, S::BF16},
    {"hlog10", K::Log10, 1, S::BF16, S::BF16},
    {"hexp", K::Exp, 1, S::BF16, S::BF16},
    {"hexp2", K::Exp2, 1, S::BF16, S::BF16},
    {"hexp10", K::Exp10, 1, S::BF16, S::BF16},
    {"hsin", K::Sin, 1, S::BF16, S::BF16},
    {"hcos", K::Cos, 1, S::BF16, S::BF16},
    {"htanh", K::Tanh, 1, S::BF16, S::BF16},
    {"htanh_approx", K::TanhApprox, 1, S::BF16, S::BF16},
    {"bfloat16_to_float32", K::Convert, 1, S::BF16, S::F32},
    {"float32_to_bfloat16", K::Convert, 1, S::F32, S::BF16},
    {"float32_to_bfloat16_rn", K::Convert, 1, S::F32, S::BF16},
    {"float32_to_bfloat16_rz", K::Convert, 1, S::F32, S::BF16, R::Zero},
    {"float32_to_bfloat16_rd", K::Convert, 1, S::F32, S::BF16, R::Down},
    {"float32_to_bfloat16_ru", K::Convert, 1, S::F32, S::BF16, R::Up},
    {"float64_to_bfloat16", K::Convert, 1, S::F64, S::BF16},
    {"bfloat16_to_int8_rz", K::Convert, 1, S::BF16, S::I8, R::Zero},
    {"bfloat16_to_uint8_rz", K::Convert, 1, S::BF16, S::U8, R::Zero},
    {"bfloat16_as_int16", K::BitCast, 1, S::BF16, S::I16},
    {"bfloat16_as_uint16", K::BitCast, 1, S::BF16, S::U16},
    {"int16_as_bfloat16", K::BitCast, 1, S::I16, S::BF16},
    {"uint16_as_bfloat16", K::BitCast, 1, S::U16, S::BF16},
};

/// The integer conversions both ways in the four rounding modes (`int32_to_bfloat16_rd`,
/// `bfloat16_to_uint64_ru`, ...).
const S kIntegers[] = {S::I16, S::U16, S::I32, S::U32, S::I64, S::U64};
const std::pair<const char *, R> kModes[] = {
    {"rn", R::Nearest}, {"rz", R::Zero}, {"rd", R::Down}, {"ru", R::Up}};

std::vector<BfFunction> allFunctions() {
  std::vector<BfFunction> all(std::begin(kBfloat16), std::end(kBfloat16));
  static std::deque<std::string> names; // the rows keep pointers to them
  for (S t : kIntegers)
    for (auto [suffix, mode] : kModes) {
      names.push_back(std::string(fe::scalarName(t)) + "_to_bfloat16_" + suffix);
      all.push_back({names.back().c_str(), K::Convert, 1, t, S::BF16, mode});
      names.push_back(std::string("bfloat16_to_") + fe::scalarName(t) + "_" + suffix);
      all.push_back({names.back().c_str(), K::Convert, 1, S::BF16, t, mode});
    }
  return all;
}

const std::vector<BfFunction> &functions() {
  static const std::vector<BfFunction> all = allFunctions();
  return all;
}

} // namespace

namespace fe {

ExprInfo typeBfloat16Builtin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                             const Builtin &b);

std::span<const Builtin> bfloat16Builtins() {
  static const BuiltinRows rows([](BuiltinRows &r) {
    for (size_t i = 0; i < functions().size(); ++i)
      r.add(std::string("cuda.bf16.") + functions()[i].name, unsigned(i), &typeBfloat16Builtin,
            &ir::lowerBfloat16Builtin);
  });
  return rows.rows();
}

ExprInfo typeBfloat16Builtin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                             const Builtin &b) {
  // numba-cuda's bindings have one signature each: arguments convert to it implicitly
  const BfFunction &f = functions()[b.op];
  cx.checkArity(c, b.name, args.size(), f.arity, f.arity);
  for (Scalar a : cx.scalarArgs(c, args, b.name))
    if (isComplex(a))
      cx.error(c.loc, std::string(b.name) + "() takes real numbers, not " + scalarName(a));
  ExprInfo info;
  info.type = Type::scalarOf(f.out);
  info.operandTypes.assign(f.arity, f.in);
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

namespace {

/// r (a bfloat16) clamped to [0, 1], NaN to +0 (the _sat forms).
Value *saturate(IRBuilder<> &irb, Value *r) {
  Value *x = bfloat16ToFloat(irb, r);
  Value *upper =
      irb.CreateSelect(irb.CreateFCmpOLT(x, ConstantFP::get(x->getType(), 1.0)), r, irb.getInt16(0x3f80));
  return irb.CreateSelect(irb.CreateFCmpOGT(x, ConstantFP::get(x->getType(), 0.0)), upper, irb.getInt16(0));
}

/// A conversion to or from bfloat16 in a rounding mode.
Value *convert(LoweringContext &cx, Value *v, S from, S to, R mode) {
  IRBuilder<> &irb = cx.builder();
  if (to == S::BF16) {
    if (from == S::F32)
      return floatToBfloat16(irb, v, mode);
    if (from == S::F64)
      return doubleToBfloat16(irb, v, mode);
    return integerToBfloat16(irb, v, fe::isSigned(from), mode);
  }
  Value *x = bfloat16ToFloat(irb, v);
  if (!fe::isInteger(to))
    return cx.convertScalar(x, S::F32, to);
  llvm::Intrinsic::ID round = mode == R::Nearest ? llvm::Intrinsic::roundeven
                              : mode == R::Zero  ? llvm::Intrinsic::trunc
                              : mode == R::Down  ? llvm::Intrinsic::floor
                                                 : llvm::Intrinsic::ceil;
  // saturating, NaN to 0, as the GPU's cvt.r*i
  return cx.convertScalar(irb.CreateUnaryIntrinsic(round, x), S::F32, to);
}

} // namespace

Value *lowerBfloat16Builtin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  const BfFunction &f = functions()[ci.function->op];
  std::vector<Value *> a;
  for (size_t i = 0; i < c.args.size(); ++i)
    a.push_back(cx.lowerAs(*c.args[i], Type::scalarOf(f.in)));
  cx.setLoc(c.loc);
  auto wide = [&](size_t i) { return bfloat16ToFloat(irb, a[i]); };
  auto arith = [&](fe::BinOp op) { return cx.binary(op, a[0], a[1], S::BF16); };
  auto cmp = [&](CmpInst::Predicate p) { return irb.CreateFCmp(p, wide(0), wide(1)); };
  // an integral bfloat16 value is a bfloat16 again (below 2^8 it has at most 8 bits)
  auto toIntegral = [&](llvm::Intrinsic::ID id) {
    return floatToBfloat16(irb, irb.CreateUnaryIntrinsic(id, wide(0)));
  };
  auto unit = [&](ApproxUnit u, Value *x) { return approx(cx, u, x); };
  auto viaUnit = [&](ApproxUnit u) { return floatToBfloat16(irb, unit(u, wide(0))); };
  auto bits = [&](uint32_t v) {
    return ConstantFP::get(cx.context(), APFloat(APFloat::IEEEsingle(), APInt(32, v)));
  };
  switch (f.op) {
  case K::Add: return arith(fe::BinOp::Add);
  case K::Sub: return arith(fe::BinOp::Sub);
  case K::Mul: return arith(fe::BinOp::Mul);
  case K::Div: return arith(fe::BinOp::Div);
  case K::AddSat: return saturate(irb, arith(fe::BinOp::Add));
  case K::SubSat: return saturate(irb, arith(fe::BinOp::Sub));
  case K::MulSat: return saturate(irb, arith(fe::BinOp::Mul));
  case K::Fma: return fmaBfloat16(irb, wide(0), wide(1), wide(2));
  case K::FmaSat: return saturate(irb, fmaBfloat16(irb, wide(0), wide(1), wide(2)));
  case K::FmaRelu: {
    Value *r = fmaBfloat16(irb, wide(0), wide(1), wide(2));
    Value *negative = irb.CreateFCmpOLT(bfloat16ToFloat(irb, r), ConstantFP::get(irb.getFloatTy(), 0.0));
    return irb.CreateSelect(negative, irb.getInt16(0), r);
  }
  case K::Neg: return irb.CreateXor(a[0], irb.getInt16(0x8000));
  case K::Abs: return irb.CreateAnd(a[0], irb.getInt16(0x7fff));
  case K::Eq: return cmp(CmpInst::FCMP_OEQ);
  case K::Ne: return cmp(CmpInst::FCMP_ONE);
  case K::Ge: return cmp(CmpInst::FCMP_OGE);
  case K::Gt: return cmp(CmpInst::FCMP_OGT);
  case K::Le: return cmp(CmpInst::FCMP_OLE);
  case K::Lt: return cmp(CmpInst::FCMP_OLT);
  case K::Equ: return cmp(CmpInst::FCMP_UEQ);
  case K::Neu: return cmp(CmpInst::FCMP_UNE);
  case K::Geu: return cmp(CmpInst::FCMP_UGE);
  case K::Gtu: return cmp(CmpInst::FCMP_UGT);
  case K::Leu: return cmp(CmpInst::FCMP_ULE);
  case K::Ltu: return cmp(CmpInst::FCMP_ULT);
  case K::Max: return maxMinBits(irb, a[0], a[1], wide(0), wide(1), true, false);
  case K::Min: return maxMinBits(irb, a[0], a[1], wide(0), wide(1), false, false);
  case K::MaxNan: return maxMinBits(irb, a[0], a[1], wide(0), wide(1), true, true);
  case K::MinNan: return maxMinBits(irb, a[0], a[1], wide(0), wide(1), false, true);
  case K::IsInf: {
    Value *magnitude = irb.CreateAnd(a[0], irb.getInt16(0x7fff));
    Value *negative = irb.CreateICmpSLT(a[0], irb.getInt16(0));
    Value *sign = irb.CreateSelect(negative, irb.getInt32(-1), irb.getInt32(1));
    return irb.CreateSelect(irb.CreateICmpEQ(magnitude, irb.getInt16(0x7f80)), sign, irb.getInt32(0));
  }
  case K::IsNan: return irb.CreateICmpUGT(irb.CreateAnd(a[0], irb.getInt16(0x7fff)), irb.getInt16(0x7f80));
  case K::Trunc: return toIntegral(llvm::Intrinsic::trunc);
  case K::Ceil: return toIntegral(llvm::Intrinsic::ceil);
  case K::Floor: return toIntegral(llvm::Intrinsic::floor);
  case K::Rint: return toIntegral(llvm::Intrinsic::roundeven);
  // The math functions as cuda_bf16.hpp computes them on sm_90: the float32 of the value
  // through an approximation unit that keeps subnormals (ex2/lg2/rcp/rsqrt/sqrt.approx.f32,
  // tanh.approx.f32, tanh.approx.bf16) or libdevice's accurate sinf/cosf, with the
  // header's float32 constants, rounded once to nearest.
  case K::Sqrt: return viaUnit(ApproxUnit::Sqrt);
  case K::Rsqrt: return viaUnit(ApproxUnit::Rsqrt);
  case K::Rcp: return viaUnit(ApproxUnit::Rcp);
  case K::Tanh: return viaUnit(ApproxUnit::Tanh);
  case K::TanhApprox: return viaUnit(ApproxUnit::TanhBF16);
  case K::Exp2: return viaUnit(ApproxUnit::Ex2);
  case K::Log2: return viaUnit(ApproxUnit::Lg2);
  case K::Log: return floatToBfloat16(irb, irb.CreateFMul(unit(ApproxUnit::Lg2, wide(0)), bits(0x3f317218u)));
  case K::Log10:
    return floatToBfloat16(irb, irb.CreateFMul(unit(ApproxUnit::Lg2, wide(0)), bits(0x3E9A209Bu)));
  case K::Exp: return floatToBfloat16(irb, unit(ApproxUnit::Ex2, irb.CreateFMul(wide(0), bits(0x3FB8AA3Cu))));
  case K::Exp10: { // (and one case the header corrects: 10^-0x1.2ap-6 is 0x3f75)
    Value *r = floatToBfloat16(irb, unit(ApproxUnit::Ex2, irb.CreateFMul(wide(0), bits(0x40549A78u))));
    return irb.CreateSelect(irb.CreateICmpEQ(a[0], irb.getInt16(0xBC95)), irb.getInt16(0x3F75), r);
  }
  case K::Sin: return floatToBfloat16(irb, cx.libdeviceCall("sin", S::F32, {wide(0)}));
  case K::Cos: return floatToBfloat16(irb, cx.libdeviceCall("cos", S::F32, {wide(0)}));
  case K::Convert: return convert(cx, a[0], f.in, f.out, f.mode);
  case K::BitCast: return a[0]; // both are the 16 bits
  }
  return nullptr;
}

} // namespace ir
} // namespace cutwin
