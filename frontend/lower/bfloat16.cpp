#include "frontend/lower/bfloat16.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace cutwin::ir {

using namespace llvm;

namespace {

constexpr uint32_t kCanonicalNaN = 0x7fff;

/// Round to nearest even of a float32's bits to its upper half.
uint16_t roundFloatBits(uint32_t u) { return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16); }

} // namespace

Value *doubleToFloatOdd(IRBuilderBase &b, Value *x) {
  Value *r = b.CreateFPTrunc(x, b.getFloatTy());
  Value *back = b.CreateFPExt(r, b.getDoubleTy());
  Value *inexact = b.CreateFCmpONE(back, x);
  Value *bits = b.CreateBitCast(r, b.getInt32Ty());
  Value *awayFromZero = b.CreateFCmpOGT(b.CreateUnaryIntrinsic(Intrinsic::fabs, back),
                                        b.CreateUnaryIntrinsic(Intrinsic::fabs, x));
  // the float before r toward zero (sign and magnitude: one less in the magnitude's bits)
  Value *towardZero = b.CreateSelect(awayFromZero, b.CreateSub(bits, b.getInt32(1)), bits);
  Value *odd = b.CreateOr(towardZero, b.getInt32(1));
  return b.CreateBitCast(b.CreateSelect(inexact, odd, bits), b.getFloatTy());
}

uint16_t bfloat16Bits(double x) {
  if (std::isnan(x))
    return kCanonicalNaN;
  float r = float(x);
  uint32_t bits = std::bit_cast<uint32_t>(r);
  if (double(r) != x) { // rounded to odd, as doubleToFloatOdd
    if (std::fabs(double(r)) > std::fabs(x))
      bits -= 1;
    bits |= 1;
  }
  return roundFloatBits(bits);
}

uint16_t bfloat16BitsOfInteger(uint64_t magnitude, bool negative) {
  // as integerToBfloat16: the top 53 bits with a sticky last bit, exact in float64
  int shift = std::max(0, 11 - std::countl_zero(magnitude));
  uint64_t kept = (magnitude >> shift) | ((magnitude & ((uint64_t(1) << shift) - 1)) != 0);
  double x = std::ldexp(double(kept), shift);
  return bfloat16Bits(negative ? -x : x);
}

Value *bfloat16ToFloat(IRBuilderBase &b, Value *bits) {
  return b.CreateBitCast(b.CreateShl(b.CreateZExt(bits, b.getInt32Ty()), 16), b.getFloatTy());
}

Value *floatToBfloat16(IRBuilderBase &b, Value *x) {
  Value *u = b.CreateBitCast(x, b.getInt32Ty());
  Value *lsb = b.CreateAnd(b.CreateLShr(u, 16), b.getInt32(1));
  Value *rounded = b.CreateLShr(b.CreateAdd(b.CreateAdd(u, b.getInt32(0x7fff)), lsb), 16);
  Value *nan = b.CreateFCmpUNO(x, x);
  return b.CreateTrunc(b.CreateSelect(nan, b.getInt32(kCanonicalNaN), rounded), b.getInt16Ty());
}

Value *floatToBfloat16(IRBuilderBase &b, Value *x, fe::HalfRounding mode) {
  if (mode == fe::HalfRounding::Nearest)
    return floatToBfloat16(b, x);
  // toward zero: the upper half; down and up move a lost remainder's magnitude by one unit
  // (sign and magnitude: one more in the bits) when the value is negative or positive
  Value *u = b.CreateBitCast(x, b.getInt32Ty());
  Value *truncated = b.CreateLShr(u, 16);
  Value *inexact = b.CreateICmpNE(b.CreateAnd(u, b.getInt32(0xffff)), b.getInt32(0));
  Value *negative = b.CreateICmpSLT(u, b.getInt32(0));
  Value *away = mode == fe::HalfRounding::Zero   ? b.getFalse()
                : mode == fe::HalfRounding::Down ? b.CreateAnd(inexact, negative)
                                                 : b.CreateAnd(inexact, b.CreateNot(negative));
  Value *r = b.CreateAdd(truncated, b.CreateZExt(away, b.getInt32Ty()));
  Value *nan = b.CreateFCmpUNO(x, x);
  return b.CreateTrunc(b.CreateSelect(nan, b.getInt32(kCanonicalNaN), r), b.getInt16Ty());
}

Value *fmaBfloat16(IRBuilderBase &b, Value *x, Value *y, Value *z) {
  // In float64 the product is exact (16 bits); the sum rounded, its error exact (TwoSum),
  // and from both the sum rounded to odd, which the final rounding then sees as the exact one.
  auto *f64 = b.getDoubleTy();
  Value *p = b.CreateFMul(b.CreateFPExt(x, f64), b.CreateFPExt(y, f64));
  Value *c = b.CreateFPExt(z, f64);
  Value *s = b.CreateFAdd(p, c);
  Value *bp = b.CreateFSub(s, p);
  Value *err = b.CreateFAdd(b.CreateFSub(p, b.CreateFSub(s, bp)), b.CreateFSub(c, bp));
  Value *inexact = b.CreateFCmpONE(err, ConstantFP::get(f64, 0.0));
  Value *bits = b.CreateBitCast(s, b.getInt64Ty());
  // s beyond the exact sum in magnitude when the error has the other sign
  Value *beyond = b.CreateXor(b.CreateFCmpOLT(err, ConstantFP::get(f64, 0.0)),
                              b.CreateFCmpOLT(s, ConstantFP::get(f64, 0.0)));
  Value *towardZero = b.CreateSelect(beyond, b.CreateSub(bits, b.getInt64(1)), bits);
  Value *odd = b.CreateBitCast(b.CreateOr(towardZero, b.getInt64(1)), f64);
  return doubleToBfloat16(b, b.CreateSelect(inexact, odd, s));
}

Value *doubleToBfloat16(IRBuilderBase &b, Value *x, fe::HalfRounding mode) {
  return floatToBfloat16(b, doubleToFloatOdd(b, x), mode);
}

Value *integerToBfloat16(IRBuilderBase &b, Value *v, bool isSigned, fe::HalfRounding mode) {
  unsigned width = v->getType()->getIntegerBitWidth();
  if (width <= 32) // exact in float64
    return doubleToBfloat16(
        b, isSigned ? b.CreateSIToFP(v, b.getDoubleTy()) : b.CreateUIToFP(v, b.getDoubleTy()), mode);
  // 64 bits: the magnitude's top 53 bits, the ones shifted out kept as a sticky last bit
  // (rounded to odd), then scaled back by a power of two: exact in float64.
  auto *i64 = b.getInt64Ty();
  Value *x = b.CreateZExtOrTrunc(v, i64);
  Value *negative = isSigned ? b.CreateICmpSLT(x, ConstantInt::get(i64, 0)) : b.getFalse();
  Value *magnitude = b.CreateSelect(negative, b.CreateNeg(x), x);
  Value *leading = b.CreateBinaryIntrinsic(Intrinsic::ctlz, magnitude, b.getFalse());
  Value *shift = b.CreateSelect(b.CreateICmpULT(leading, ConstantInt::get(i64, 11)),
                                b.CreateSub(ConstantInt::get(i64, 11), leading), ConstantInt::get(i64, 0));
  Value *kept = b.CreateLShr(magnitude, shift);
  Value *lostMask = b.CreateSub(b.CreateShl(ConstantInt::get(i64, 1), shift), ConstantInt::get(i64, 1));
  Value *sticky =
      b.CreateZExt(b.CreateICmpNE(b.CreateAnd(magnitude, lostMask), ConstantInt::get(i64, 0)), i64);
  Value *mantissa = b.CreateUIToFP(b.CreateOr(kept, sticky), b.getDoubleTy());
  Value *scale =
      b.CreateBitCast(b.CreateShl(b.CreateAdd(shift, ConstantInt::get(i64, 1023)), 52), b.getDoubleTy());
  Value *f = b.CreateFMul(mantissa, scale);
  return doubleToBfloat16(b, b.CreateSelect(negative, b.CreateFNeg(f), f), mode);
}

} // namespace cutwin::ir
