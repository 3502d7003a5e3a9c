#include "frontend/lower/fp8.h"

#include "frontend/lower/bfloat16.h"

#include "cutwin/errors.h"

namespace cutwin::ir {

using fe::Scalar;
using llvm::Value;

namespace {

Value *i8(llvm::IRBuilderBase &b, uint64_t v) { return b.getInt8(uint8_t(v)); }
Value *i16(llvm::IRBuilderBase &b, uint64_t v) { return b.getInt16(uint16_t(v)); }
Value *i32(llvm::IRBuilderBase &b, uint64_t v) { return b.getInt32(uint32_t(v)); }
Value *i64(llvm::IRBuilderBase &b, uint64_t v) { return b.getInt64(v); }

/// The float32 of an E8M0, E5M2 or E4M3 value (exact).
Value *fp8ToFloat(llvm::IRBuilderBase &b, Value *bits, Scalar from) {
  if (from == Scalar::FP8E8M0)
    return bfloat16ToFloat(b, e8m0ToBfloat16Bits(b, bits));
  Value *half = b.CreateBitCast(fp8ToHalfBits(b, bits, from == Scalar::FP8E4M3), b.getHalfTy());
  return b.CreateFPExt(half, b.getFloatTy());
}

/// A float32 to bfloat16 toward zero, NaN the canonical 0x7fff (cvt.rz.bf16.f32).
Value *floatToBfloat16Rz(llvm::IRBuilderBase &b, Value *x) {
  Value *u = b.CreateBitCast(x, b.getInt32Ty());
  Value *nan = b.CreateICmpUGT(b.CreateAnd(u, i32(b, 0x7FFFFFFF)), i32(b, 0x7F800000));
  return b.CreateSelect(nan, i16(b, 0x7FFF), b.CreateTrunc(b.CreateLShr(u, 16), b.getInt16Ty()));
}

/// The E8M0 constructor of a 64-bit integer: to bfloat16 to nearest, one step up where that
/// lies below the integer's magnitude, then up to a power of two.
Value *integerToE8m0(llvm::IRBuilderBase &b, Value *v, bool isSigned, const ScalarConvert &convert) {
  Scalar t = isSigned ? Scalar::I64 : Scalar::U64;
  Value *rn = integerToBfloat16(b, v, isSigned);
  Value *back = convert(rn, Scalar::BF16, t); // __bfloat162ll_rz / ull_rz
  Value *below = isSigned ? b.CreateOr(b.CreateAnd(b.CreateICmpSGT(v, i64(b, 0)), b.CreateICmpSLT(back, v)),
                                       b.CreateAnd(b.CreateICmpSLT(v, i64(b, 0)), b.CreateICmpSGT(back, v)))
                          : b.CreateICmpULT(back, v);
  Value *raw = b.CreateAdd(rn, b.CreateZExt(below, b.getInt16Ty()));
  return bfloat16ToE8m0Bits(b, raw, true, true);
}

} // namespace

Value *doubleToFp8Bits(llvm::IRBuilderBase &b, Value *x, bool satfinite, bool e4m3) {
  const uint64_t bias = e4m3 ? 7 : 15, sigBits = e4m3 ? 4 : 3, mantMask = e4m3 ? 0x7 : 0x3;
  const uint64_t minDenormO2 = e4m3 ? 0x3F50000000000000ULL : 0x3EE0000000000000ULL;
  const uint64_t overflow = e4m3 ? 0x407D000000000000ULL : 0x40EE000000000000ULL - 1;
  const uint64_t maxNorm = e4m3 ? 0x7E : 0x7B, minNorm = e4m3 ? 0x3F90000000000000ULL : 0x3F10000000000000ULL;
  const uint64_t halfUlp = 1ULL << (53 - sigBits - 1);
  auto *t8 = b.getInt8Ty();
  Value *xb = b.CreateBitCast(x, b.getInt64Ty());
  Value *sign = b.CreateShl(b.CreateTrunc(b.CreateLShr(xb, 63), t8), 7);
  Value *exp = b.CreateTrunc(
      b.CreateAdd(b.CreateAnd(b.CreateLShr(xb, 52), i64(b, 0x7FF)), i64(b, uint64_t(bias - 1023))), t8);
  Value *mant = b.CreateAnd(b.CreateTrunc(b.CreateLShr(xb, 53 - sigBits), t8), i8(b, mantMask));
  Value *absx = b.CreateAnd(xb, i64(b, 0x7FFFFFFFFFFFFFFFULL));

  // normal range: truncate, then round to nearest, ties to even
  Value *normal = b.CreateOr(b.CreateShl(exp, sigBits - 1), mant);
  Value *round = b.CreateAnd(xb, i64(b, (halfUlp << 1) - 1));
  Value *up = b.CreateOr(b.CreateICmpUGT(round, i64(b, halfUlp)),
                         b.CreateAnd(b.CreateICmpEQ(round, i64(b, halfUlp)),
                                     b.CreateICmpNE(b.CreateAnd(mant, i8(b, 1)), i8(b, 0))));
  normal = b.CreateAdd(normal, b.CreateZExt(up, t8));

  // subnormal range: the implicit bit in, shifted right 1 - exp places (1 to sigBits there;
  // clamped so that the other ranges, computed alike, shift by a defined amount)
  Value *shift = b.CreateSub(i8(b, 1), exp);
  shift = b.CreateSelect(b.CreateICmpUGT(shift, i8(b, 7)), i8(b, 7), shift);
  Value *mantD = b.CreateOr(mant, i8(b, 1ULL << (sigBits - 1)));
  Value *denorm = b.CreateLShr(mantD, shift);
  Value *shift64 = b.CreateZExt(shift, b.getInt64Ty());
  Value *halfD = b.CreateShl(i64(b, halfUlp), shift64);
  Value *roundD =
      b.CreateAnd(b.CreateOr(xb, i64(b, 1ULL << 52)),
                  b.CreateSub(b.CreateShl(i64(b, halfUlp), b.CreateAdd(shift64, i64(b, 1))), i64(b, 1)));
  Value *upD = b.CreateOr(
      b.CreateICmpUGT(roundD, halfD),
      b.CreateAnd(b.CreateICmpEQ(roundD, halfD), b.CreateICmpNE(b.CreateAnd(denorm, i8(b, 1)), i8(b, 0))));
  denorm = b.CreateAdd(denorm, b.CreateZExt(upD, t8));

  Value *nan = e4m3 ? i8(b, 0x7F) : b.CreateOr(i8(b, 0x7E), mant);
  Value *over = satfinite ? i8(b, maxNorm) : i8(b, e4m3 ? 0x7F : 0x7C);
  Value *res = b.CreateSelect(b.CreateICmpUGE(absx, i64(b, minNorm)), normal, denorm);
  res = b.CreateSelect(b.CreateICmpUGT(absx, i64(b, overflow)), over, res);
  res = b.CreateSelect(b.CreateICmpUGT(absx, i64(b, 0x7FF0000000000000ULL)), nan, res);
  res = b.CreateSelect(b.CreateICmpULE(absx, i64(b, minDenormO2)), i8(b, 0), res);
  return b.CreateOr(res, sign);
}

Value *floatToFp8Bits(llvm::IRBuilderBase &b, Value *x, bool satfinite, bool e4m3) {
  // A NaN becomes the canonical 0x7fffffff first (so 0x7f in both formats, as the GPU's
  // cvt.rn.satfinite gives); the float64 holds every other float32 exactly.
  Value *u = b.CreateBitCast(x, b.getInt32Ty());
  Value *nan = b.CreateICmpUGT(b.CreateAnd(u, i32(b, 0x7FFFFFFF)), i32(b, 0x7F800000));
  u = b.CreateSelect(nan, i32(b, 0x7FFFFFFF), u);
  Value *d = b.CreateFPExt(b.CreateBitCast(u, b.getFloatTy()), b.getDoubleTy());
  return doubleToFp8Bits(b, d, satfinite, e4m3);
}

Value *fp8ToHalfBits(llvm::IRBuilderBase &b, Value *bits, bool e4m3) {
  auto *t16 = b.getInt16Ty();
  Value *ur = b.CreateShl(b.CreateZExt(bits, t16), 8);
  if (!e4m3) // E5M2 is float16's upper byte; a NaN becomes the canonical 0x7fff
    return b.CreateSelect(b.CreateICmpUGT(b.CreateAnd(ur, i16(b, 0x7FFF)), i16(b, 0x7C00)), i16(b, 0x7FFF),
                          ur);
  Value *sign = b.CreateAnd(ur, i16(b, 0x8000));
  Value *exponent = b.CreateAdd(b.CreateLShr(b.CreateAnd(ur, i16(b, 0x7800)), 1), i16(b, 0x2000));
  Value *mantissa = b.CreateLShr(b.CreateAnd(ur, i16(b, 0x0700)), 1);
  Value *normal = b.CreateOr(b.CreateOr(sign, exponent), mantissa);
  // a subnormal E4M3 (m x 2^-9, m < 8) is a normal float16: exact through float32
  Value *m = b.CreateAnd(bits, i8(b, 0x7));
  Value *sub = b.CreateFMul(b.CreateUIToFP(m, b.getFloatTy()), llvm::ConstantFP::get(b.getFloatTy(), 0x1p-9));
  Value *subBits = b.CreateOr(sign, b.CreateBitCast(b.CreateFPTrunc(sub, b.getHalfTy()), t16));
  Value *res = b.CreateSelect(b.CreateICmpEQ(exponent, i16(b, 0x2000)), subBits, normal);
  return b.CreateSelect(b.CreateICmpEQ(b.CreateAnd(bits, i8(b, 0x7F)), i8(b, 0x7F)), i16(b, 0x7FFF), res);
}

Value *bfloat16ToE8m0Bits(llvm::IRBuilderBase &b, Value *raw, bool satfinite, bool roundUp) {
  Value *res = b.CreateTrunc(b.CreateLShr(raw, 7), b.getInt8Ty()); // the exponent: toward zero
  Value *mag = b.CreateAnd(raw, i16(b, 0x7FFF));
  if (roundUp) { // up where a mantissa bit is set, |x| > 2^-127 and x is finite
    Value *inexact =
        b.CreateAnd(b.CreateICmpNE(b.CreateAnd(raw, i16(b, 0x7F)), i16(b, 0)),
                    b.CreateAnd(b.CreateICmpUGT(mag, i16(b, 0x40)), b.CreateICmpULT(mag, i16(b, 0x7F80))));
    res = b.CreateAdd(res, b.CreateZExt(inexact, b.getInt8Ty()));
  }
  if (satfinite) { // a finite overflow (or infinity) to the largest, 2^127
    Value *clamp = b.CreateAnd(b.CreateICmpULE(mag, i16(b, 0x7F80)), b.CreateICmpEQ(res, i8(b, 0xFF)));
    res = b.CreateSelect(clamp, i8(b, 0xFE), res);
  }
  return res;
}

Value *floatToE8m0Bits(llvm::IRBuilderBase &b, Value *x, bool satfinite, bool roundUp) {
  if (!roundUp)
    return bfloat16ToE8m0Bits(b, floatToBfloat16Rz(b, x), satfinite, false);
  // up: of |x|, to bfloat16 upward (cvt.rp.bf16.f32), then up to a power of two
  Value *u = b.CreateAnd(b.CreateBitCast(x, b.getInt32Ty()), i32(b, 0x7FFFFFFF));
  Value *hi = b.CreateTrunc(b.CreateLShr(u, 16), b.getInt16Ty());
  Value *bump = b.CreateAnd(b.CreateICmpULT(u, i32(b, 0x7F800000)),
                            b.CreateICmpNE(b.CreateAnd(u, i32(b, 0xFFFF)), i32(b, 0)));
  Value *ru = b.CreateAdd(hi, b.CreateZExt(bump, b.getInt16Ty()));
  ru = b.CreateSelect(b.CreateICmpUGT(u, i32(b, 0x7F800000)), i16(b, 0x7FFF), ru);
  return bfloat16ToE8m0Bits(b, ru, satfinite, true);
}

Value *doubleToE8m0Bits(llvm::IRBuilderBase &b, Value *x, bool satfinite, bool roundUp) {
  // to float32 to nearest, stepped back toward zero where that rounded away and made odd
  // where inexact (a sticky bit), as __internal_double_to_float_with_sticky does
  Value *f = b.CreateFPTrunc(x, b.getFloatTy());
  Value *d = b.CreateFPExt(f, b.getDoubleTy());
  Value *u = b.CreateBitCast(f, b.getInt32Ty());
  Value *notNan = b.CreateICmpULE(b.CreateShl(u, 1), i32(b, 0xFF000000));
  Value *zero = llvm::ConstantFP::get(b.getDoubleTy(), 0.0);
  Value *away = b.CreateOr(b.CreateAnd(b.CreateFCmpOGT(x, zero), b.CreateFCmpOGT(d, x)),
                           b.CreateAnd(b.CreateFCmpOLT(x, zero), b.CreateFCmpOLT(d, x)));
  u = b.CreateSub(u, b.CreateZExt(away, b.getInt32Ty()));
  Value *sticky = b.CreateAnd(b.CreateFCmpUNE(d, x), notNan);
  u = b.CreateSelect(sticky, b.CreateOr(u, i32(b, 1)), u);
  return floatToE8m0Bits(b, b.CreateBitCast(u, b.getFloatTy()), satfinite, roundUp);
}

Value *e8m0ToBfloat16Bits(llvm::IRBuilderBase &b, Value *bits) {
  Value *res = b.CreateShl(b.CreateZExt(bits, b.getInt16Ty()), 7);
  res = b.CreateSelect(b.CreateICmpEQ(bits, i8(b, 0)), i16(b, 0x0040), res); // 2^-127
  return b.CreateSelect(b.CreateICmpEQ(bits, i8(b, 0xFF)), i16(b, 0x7FFF), res);
}

Value *convertFp8(llvm::IRBuilderBase &b, Value *v, Scalar from, Scalar to, const ScalarConvert &convert) {
  if (fe::isFp8(from)) {
    if (to == Scalar::Bool) // operator bool: a non-zero magnitude (E8M0 has no zero)
      return from == Scalar::FP8E8M0 ? b.getTrue() : b.CreateICmpNE(b.CreateAnd(v, i8(b, 0x7F)), i8(b, 0));
    if (to == Scalar::F16 && from != Scalar::FP8E8M0)
      return b.CreateBitCast(fp8ToHalfBits(b, v, from == Scalar::FP8E4M3), b.getHalfTy());
    if (to == Scalar::BF16)
      return from == Scalar::FP8E8M0 ? e8m0ToBfloat16Bits(b, v)
                                     : floatToBfloat16Rz(b, fp8ToFloat(b, v, from));
    // The others from the float32 (exact): float16 to nearest (E8M0's), float64 exactly,
    // the integers toward zero, saturating, NaN 0 (the header's checks, and cvt.rzi).
    Value *f = fp8ToFloat(b, v, from);
    return to == Scalar::F32 ? f : convert(f, Scalar::F32, to);
  }
  // the constructors: saturating to finite; E8M0 rounds up to a power of two
  bool e8m0 = to == Scalar::FP8E8M0, e4m3 = to == Scalar::FP8E4M3;
  if (from == Scalar::F64)
    return e8m0 ? doubleToE8m0Bits(b, v, true, true) : doubleToFp8Bits(b, v, true, e4m3);
  if (from == Scalar::F32)
    return e8m0 ? floatToE8m0Bits(b, v, true, true) : floatToFp8Bits(b, v, true, e4m3);
  if (from == Scalar::F16) // (exact in float32)
    return convertFp8(b, b.CreateFPExt(v, b.getFloatTy()), Scalar::F32, to, convert);
  if (from == Scalar::BF16)
    return e8m0 ? bfloat16ToE8m0Bits(b, v, true, true) : floatToFp8Bits(b, bfloat16ToFloat(b, v), true, e4m3);
  if (from == Scalar::I32 ||
      from == Scalar::U32) // E8M0 from the float64 (exact); the others from the float32
    return e8m0 ? doubleToE8m0Bits(b, convert(v, from, Scalar::F64), true, true)
                : floatToFp8Bits(b, convert(v, from, Scalar::F32), true, e4m3);
  if (from == Scalar::I64 || from == Scalar::U64)
    return e8m0 ? integerToE8m0(b, v, from == Scalar::I64, convert)
                : floatToFp8Bits(b, convert(v, from, Scalar::F32), true, e4m3);
  if (from == Scalar::Bool || fe::isInteger(from)) // 8 and 16 bits: through short, exact in float32
    return convertFp8(b, convert(v, from, Scalar::F32), Scalar::F32, to, convert);
  if (fe::isFp8(from)) // one 8-bit float to another: through its float32
    return convertFp8(b, fp8ToFloat(b, v, from), Scalar::F32, to, convert);
  throw cutwin::Error(std::string("cannot convert ") + fe::scalarName(from) + " to " + fe::scalarName(to));
}

} // namespace cutwin::ir
