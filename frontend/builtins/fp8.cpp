// numba-cuda's bindings of cuda_fp8.h's storage conversions (numba.cuda._internal.cuda_fp8,
// also cuda.fp8 here): cvt_float_to_fp8, cvt_double_to_fp8, cvt_bfloat16raw_to_fp8 (to
// E4M3 or E5M2, saturating or not), cvt_float_to_e8m0, cvt_double_to_e8m0,
// cvt_bfloat16raw_to_e8m0 (toward zero or up), cvt_e8m0_to_bf16raw, and the pairs
// cvt_float2_to_fp8x2, cvt_double2_to_fp8x2, cvt_float2_to_e8m0x2, cvt_double2_to_e8m0x2 (a
// float32x2 / float64x2 in, the x element's bits in the low byte of a uint16; on sm_90
// cuda_fp8.hpp converts a pair element by element). They take and give the bits (uint8
// storage; a bfloat16_raw with field x); the saturation, interpretation and
// rounding arguments are compile-time constants (saturation_t, fp8_interpretation_t,
// cuda.bindings' cudaRoundMode). The conversions themselves are frontend/lower/fp8.cpp's.
#include "frontend/lower/fp8.h"
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

namespace cutwin::fe {

ExprInfo typeFp8Builtin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                        const Builtin &b);
llvm::Value *lowerFp8Builtin(ir::LoweringContext &cx, const CallExpr &c, const ExprInfo &info);

namespace {

enum class Fp8Op : unsigned {
  FloatToFp8,
  DoubleToFp8,
  Bfloat16RawToFp8,
  FloatToE8m0,
  DoubleToE8m0,
  Bfloat16RawToE8m0,
  E8m0ToBfloat16Raw,
  Float2ToFp8x2,
  Double2ToFp8x2,
  Float2ToE8m0x2,
  Double2ToE8m0x2,
};

using S = Scalar;

constexpr int64_t kRoundZero = 1, kRoundPosInf = 2; // cudaRoundMode's values

/// numba-cuda's __nv_bfloat16_raw: a record of the bits, field x.
Type bfloat16Raw() { return Type::namedTuple("bfloat16_raw", {"x"}, {Type::scalarOf(S::U16)}); }

bool isBfloat16Raw(const Type &t) { return t.isTuple() && t.path == "bfloat16_raw"; }

/// The source's type: what the first argument converts to.
S sourceType(Fp8Op op) {
  switch (op) {
  case Fp8Op::FloatToFp8:
  case Fp8Op::FloatToE8m0:
  case Fp8Op::Float2ToFp8x2:
  case Fp8Op::Float2ToE8m0x2: return S::F32;
  case Fp8Op::DoubleToFp8:
  case Fp8Op::DoubleToE8m0:
  case Fp8Op::Double2ToFp8x2:
  case Fp8Op::Double2ToE8m0x2: return S::F64;
  case Fp8Op::Bfloat16RawToFp8:
  case Fp8Op::Bfloat16RawToE8m0: return S::BF16;
  case Fp8Op::E8m0ToBfloat16Raw: return S::U8;
  }
  return S::U8;
}

bool toE8m0(Fp8Op op) {
  return op == Fp8Op::FloatToE8m0 || op == Fp8Op::DoubleToE8m0 || op == Fp8Op::Bfloat16RawToE8m0 ||
         op == Fp8Op::Float2ToE8m0x2 || op == Fp8Op::Double2ToE8m0x2;
}

/// The pairs: a float32x2 / float64x2 converted element by element.
bool pair(Fp8Op op) {
  return op == Fp8Op::Float2ToFp8x2 || op == Fp8Op::Double2ToFp8x2 || op == Fp8Op::Float2ToE8m0x2 ||
         op == Fp8Op::Double2ToE8m0x2;
}

} // namespace

std::span<const Builtin> fp8Builtins() {
  auto row = [](const char *name, Fp8Op op) {
    return Builtin{name, unsigned(op), &typeFp8Builtin, &lowerFp8Builtin};
  };
  static const Builtin table[] = {
      row("cuda.fp8.cvt_float_to_fp8", Fp8Op::FloatToFp8),
      row("cuda.fp8.cvt_double_to_fp8", Fp8Op::DoubleToFp8),
      row("cuda.fp8.cvt_bfloat16raw_to_fp8", Fp8Op::Bfloat16RawToFp8),
      row("cuda.fp8.cvt_float_to_e8m0", Fp8Op::FloatToE8m0),
      row("cuda.fp8.cvt_double_to_e8m0", Fp8Op::DoubleToE8m0),
      row("cuda.fp8.cvt_bfloat16raw_to_e8m0", Fp8Op::Bfloat16RawToE8m0),
      row("cuda.fp8.cvt_e8m0_to_bf16raw", Fp8Op::E8m0ToBfloat16Raw),
      row("cuda.fp8.cvt_float2_to_fp8x2", Fp8Op::Float2ToFp8x2),
      row("cuda.fp8.cvt_double2_to_fp8x2", Fp8Op::Double2ToFp8x2),
      row("cuda.fp8.cvt_float2_to_e8m0x2", Fp8Op::Float2ToE8m0x2),
      row("cuda.fp8.cvt_double2_to_e8m0x2", Fp8Op::Double2ToE8m0x2),
  };
  return table;
}

ExprInfo typeFp8Builtin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                        const Builtin &b) {
  Fp8Op op = Fp8Op(b.op);
  std::string name = std::string(b.name).substr(9) + "()";
  bool unary = op == Fp8Op::E8m0ToBfloat16Raw;
  cx.checkArity(c, name, args.size(), unary ? 1 : 3, unary ? 1 : 3);
  S src = sourceType(op);
  const Type &x = args[0].type;
  bool rawOk = src == S::BF16 && (isBfloat16Raw(x) || x.isScalar(S::BF16));
  std::string vector = std::string(scalarName(src)) + "x2"; // a pair's argument
  if (pair(op) && !(x.isTuple() && x.path == vector))
    cx.error(c.args[0]->loc, name + " takes a " + vector + ", not " + x.str());
  if (!rawOk && !pair(op) && (!x.isScalar() || isComplex(x.scalar) || isFp8(x.scalar) || src == S::BF16))
    cx.error(c.args[0]->loc, name + " takes " +
                                 (src == S::BF16 ? std::string("a bfloat16_raw (or a bfloat16)")
                                                 : std::string("a number (") + scalarName(src) + ")") +
                                 ", not " + x.str());
  for (size_t i = 1; i < args.size(); ++i) {
    auto k = cx.constInt(*c.args[i]);
    bool rounding = i == 2 && toE8m0(op);
    bool valid = k && (rounding ? (*k == kRoundZero || *k == kRoundPosInf) : (*k == 0 || *k == 1));
    if (!valid)
      cx.error(
          c.args[i]->loc,
          name + "'s " +
              (i == 1 ? std::string("saturation must be a constant saturation_t (NOSAT, SATFINITE)")
               : rounding
                   ? std::string(
                         "rounding must be cudaRoundMode.cudaRoundZero or cudaRoundPosInf (a constant)")
                   : std::string("interpretation must be a constant fp8_interpretation_t (E4M3, E5M2)")));
  }
  ExprInfo info;
  info.type = unary ? bfloat16Raw() : Type::scalarOf(pair(op) ? S::U16 : S::U8);
  info.operandTypes = {src};
  return info;
}

llvm::Value *lowerFp8Builtin(ir::LoweringContext &cx, const CallExpr &c, const ExprInfo &info) {
  auto &b = cx.builder();
  Fp8Op op = Fp8Op(info.function->op);
  auto constArg = [&](size_t i) { return cx.info(*c.args[i]).constant->i; };
  const Type &xt = cx.info(*c.args[0]).type;
  llvm::Value *x;
  if (isBfloat16Raw(xt) || pair(op))
    x = cx.lowerExpr(*c.args[0]);
  else
    x = cx.lowerAs(*c.args[0], Type::scalarOf(info.operandTypes[0]));
  if (isBfloat16Raw(xt))
    x = b.CreateExtractValue(x, {0});
  cx.setLoc(c.loc);
  if (op == Fp8Op::E8m0ToBfloat16Raw) {
    llvm::Value *raw = llvm::UndefValue::get(cx.llvmType(info.type));
    return b.CreateInsertValue(raw, ir::e8m0ToBfloat16Bits(b, x), {0});
  }
  bool sat = constArg(1) == 1;
  bool third = constArg(2) == (toE8m0(op) ? kRoundPosInf : 0); // up; E4M3
  auto bits = [&](llvm::Value *e) -> llvm::Value * {
    switch (op) {
    case Fp8Op::FloatToFp8:
    case Fp8Op::Float2ToFp8x2: return ir::floatToFp8Bits(b, e, sat, third);
    case Fp8Op::DoubleToFp8:
    case Fp8Op::Double2ToFp8x2: return ir::doubleToFp8Bits(b, e, sat, third);
    case Fp8Op::Bfloat16RawToFp8:
      return ir::floatToFp8Bits(b, cx.convertScalar(e, S::BF16, S::F32), sat, third);
    case Fp8Op::FloatToE8m0:
    case Fp8Op::Float2ToE8m0x2: return ir::floatToE8m0Bits(b, e, sat, third);
    case Fp8Op::DoubleToE8m0:
    case Fp8Op::Double2ToE8m0x2: return ir::doubleToE8m0Bits(b, e, sat, third);
    case Fp8Op::Bfloat16RawToE8m0: return ir::bfloat16ToE8m0Bits(b, e, sat, third);
    case Fp8Op::E8m0ToBfloat16Raw: break;
    }
    return nullptr;
  };
  if (!pair(op))
    return bits(x);
  llvm::Value *lo = b.CreateZExt(bits(b.CreateExtractValue(x, {0})), b.getInt16Ty());
  llvm::Value *hi = b.CreateZExt(bits(b.CreateExtractValue(x, {1})), b.getInt16Ty());
  return b.CreateOr(lo, b.CreateShl(hi, 8));
}

} // namespace cutwin::fe
