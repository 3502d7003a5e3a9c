// float16 operations as CUDA's cuda_fp16.h computes them on the device, which is what
// numba-cuda's float16 (its cuda.fp16 bindings of that header) returns: the header's
// float32 sequences and approximation units (`cutwin.approx`), its corrections of single
// inputs (a table of input -> ulp added by an fma in half), its rules for NaN and signed
// zeros. Written once here, so that both backends execute the same operations.
#include "frontend/builtins/half.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowerer.h"

#include <llvm/ADT/APFloat.h>

namespace cutwin::ir {

using namespace llvm;
using fe::HalfKind;
using fe::HalfRounding;

namespace {
constexpr uint16_t kCanonicalNaN = 0x7fff; // what the GPU's half arithmetic returns for NaN
} // namespace

Value *Lowerer::approx(ApproxUnit unit, Value *x) {
  return b_.CreateCall(getIntrinsic(mod_, Intrinsic::Approx), {b_.getInt32(unsigned(unit)), x});
}

Value *Lowerer::halfBits(uint16_t bits) {
  return ConstantFP::get(ctx_, APFloat(APFloat::IEEEhalf(), APInt(16, bits)));
}

/// The float32 constant with these bits (the header writes its constants as bits).
static Value *floatBits(LLVMContext &ctx, uint32_t bits) {
  return ConstantFP::get(ctx, APFloat(APFloat::IEEEsingle(), APInt(32, bits)));
}

Value *Lowerer::halfSpecialCases(Value *in, Value *r, ArrayRef<std::pair<uint16_t, uint16_t>> cases,
                                 bool onResult) {
  for (auto [input, ulp] : cases) {
    Value *key = onResult ? r : in; // hlog2 tests the result as it goes
    Value *p = b_.CreateSelect(b_.CreateFCmpOEQ(key, halfBits(input)), halfBits(0x3c00), halfBits(0));
    r = b_.CreateIntrinsic(llvm::Intrinsic::fma, {r->getType()}, {p, halfBits(ulp), r});
  }
  return r;
}

/// sin (cos: quadrant + 1) of a float32 after one Cody-Waite reduction by pi/2, with the
/// header's polynomials (__float_simpl_sinf/cosf): accurate enough for a half result.
Value *Lowerer::halfSinCosKernel(Value *a, bool cosine) {
  llvm::Type *f32 = b_.getFloatTy();
  auto fma = [&](Value *x, Value *y, Value *z) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {x, y, z});
  };
  auto k = [&](float v) { return ConstantFP::get(f32, v); };
  Value *shifted = fma(a, k(0.636619772F), k(12582912.0F)); // 1.5 * 2^23: the quotient in the low bits
  Value *q = b_.CreateBitCast(shifted, b_.getInt32Ty());
  Value *j = b_.CreateFSub(shifted, k(12582912.0F));
  Value *t = fma(j, k(-1.5707962512969971e+000F), a);
  t = fma(j, k(-7.5497894158615964e-008F), t);
  Value *quadrant = cosine ? b_.CreateAdd(b_.CreateAnd(q, 3), b_.getInt32(1)) : q;
  Value *x2 = b_.CreateFMul(t, t);
  Value *isCos = b_.CreateICmpNE(b_.CreateAnd(quadrant, 1), b_.getInt32(0));
  auto pick = [&](Value *c, Value *s) { return b_.CreateSelect(isCos, c, s); };
  Value *z =
      fma(pick(k(2.44331571e-5F), k(-1.95152959e-4F)), x2, pick(k(-1.38873163e-3F), k(8.33216087e-3F)));
  z = fma(z, x2, pick(k(4.16666457e-2F), k(-1.66666546e-1F)));
  z = fma(z, x2, pick(k(-5.00000000e-1F), k(0.0F)));
  z = fma(z, pick(x2, t), pick(k(1.0F), t));
  Value *negate = b_.CreateICmpNE(b_.CreateAnd(quadrant, 2), b_.getInt32(0));
  return b_.CreateSelect(negate, b_.CreateFNeg(z), z);
}

Value *Lowerer::halfDivide(Value *a, Value *b) {
  // __hdiv: a * rcp.approx(b) in float32, refined by one Newton step where the half result
  // is a tiny subnormal (below 0x008f)
  llvm::Type *f32 = b_.getFloatTy(), *f16 = b_.getHalfTy();
  Value *fa = b_.CreateFPExt(a, f32), *fb = b_.CreateFPExt(b, f32);
  Value *rcp = approx(ApproxUnit::RcpFtz, fb);
  Value *fv = b_.CreateFMul(rcp, fa);
  Value *v = b_.CreateFPTrunc(fv, f16);
  Value *mag = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
  Value *tiny = b_.CreateAnd(b_.CreateFCmpOLT(mag, halfBits(0x008f)), b_.CreateFCmpOLT(halfBits(0), mag));
  Value *err = b_.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {b_.CreateFNeg(fb), fv, fa});
  Value *refined = b_.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {rcp, err, fv});
  return b_.CreateSelect(tiny, b_.CreateFPTrunc(refined, f16), v);
}

/// [0, 1], NaN to +0: PTX's .sat.
Value *Lowerer::halfSaturate(Value *r) {
  Value *one = halfBits(0x3c00), *zero = halfBits(0);
  Value *upper = b_.CreateSelect(b_.CreateFCmpOLT(r, one), r, one);
  return b_.CreateSelect(b_.CreateFCmpOGT(r, zero), upper, zero);
}

/// max/min with CUDA's rules: +0 above -0, a NaN argument gives the other one (both NaN:
/// the canonical NaN), or with `nanWins` a NaN argument gives the canonical NaN.
Value *Lowerer::halfMaxMin(Value *a, Value *b, bool max, bool nanWins) {
  llvm::Type *i16 = b_.getInt16Ty();
  Value *ab = b_.CreateBitCast(a, i16), *bb = b_.CreateBitCast(b, i16);
  // equal values have equal bits but for zeros: and-ing the sign gives max's zero, or-ing min's
  Value *equal = b_.CreateBitCast(max ? b_.CreateAnd(ab, bb) : b_.CreateOr(ab, bb), a->getType());
  Value *aWins = max ? b_.CreateFCmpOGT(a, b) : b_.CreateFCmpOLT(a, b);
  Value *bWins = max ? b_.CreateFCmpOLT(a, b) : b_.CreateFCmpOGT(a, b);
  Value *r = b_.CreateSelect(aWins, a, b_.CreateSelect(bWins, b, equal));
  Value *aNaN = b_.CreateFCmpUNO(a, a), *bNaN = b_.CreateFCmpUNO(b, b);
  Value *nan = halfBits(kCanonicalNaN);
  if (nanWins)
    return b_.CreateSelect(b_.CreateOr(aNaN, bNaN), nan, r);
  return b_.CreateSelect(aNaN, b_.CreateSelect(bNaN, nan, b), b_.CreateSelect(bNaN, a, r));
}

Value *Lowerer::halfOp(HalfKind kind, ArrayRef<Value *> a) {
  llvm::Type *f32 = b_.getFloatTy(), *f16 = b_.getHalfTy();
  auto fma16 = [&](Value *x, Value *y, Value *z) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {f16}, {x, y, z});
  };
  auto wide = [&](Value *x) { return b_.CreateFPExt(x, f32); };
  auto narrow = [&](Value *x) { return b_.CreateFPTrunc(x, f16); };
  auto viaUnit = [&](ApproxUnit u) { return narrow(approx(u, wide(a[0]))); };
  switch (kind) {
  case HalfKind::Add: return b_.CreateFAdd(a[0], a[1]);
  case HalfKind::Sub: return b_.CreateFSub(a[0], a[1]);
  case HalfKind::Mul: return b_.CreateFMul(a[0], a[1]);
  case HalfKind::Div: return halfDivide(a[0], a[1]);
  case HalfKind::Fma: return fma16(a[0], a[1], a[2]);
  case HalfKind::AddSat: return halfSaturate(b_.CreateFAdd(a[0], a[1]));
  case HalfKind::SubSat: return halfSaturate(b_.CreateFSub(a[0], a[1]));
  case HalfKind::MulSat: return halfSaturate(b_.CreateFMul(a[0], a[1]));
  case HalfKind::FmaSat: return halfSaturate(fma16(a[0], a[1], a[2]));
  case HalfKind::FmaRelu: {
    Value *r = fma16(a[0], a[1], a[2]);
    return b_.CreateSelect(b_.CreateFCmpOLT(r, halfBits(0)), halfBits(0), r);
  }
  case HalfKind::Neg: return b_.CreateFNeg(a[0]);
  case HalfKind::Abs: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a[0]);
  case HalfKind::Eq: return b_.CreateFCmpOEQ(a[0], a[1]);
  case HalfKind::Ne: return b_.CreateFCmpONE(a[0], a[1]);
  case HalfKind::Ge: return b_.CreateFCmpOGE(a[0], a[1]);
  case HalfKind::Gt: return b_.CreateFCmpOGT(a[0], a[1]);
  case HalfKind::Le: return b_.CreateFCmpOLE(a[0], a[1]);
  case HalfKind::Lt: return b_.CreateFCmpOLT(a[0], a[1]);
  case HalfKind::Equ: return b_.CreateFCmpUEQ(a[0], a[1]);
  case HalfKind::Neu: return b_.CreateFCmpUNE(a[0], a[1]);
  case HalfKind::Geu: return b_.CreateFCmpUGE(a[0], a[1]);
  case HalfKind::Gtu: return b_.CreateFCmpUGT(a[0], a[1]);
  case HalfKind::Leu: return b_.CreateFCmpULE(a[0], a[1]);
  case HalfKind::Ltu: return b_.CreateFCmpULT(a[0], a[1]);
  case HalfKind::Max: return halfMaxMin(a[0], a[1], true, false);
  case HalfKind::Min: return halfMaxMin(a[0], a[1], false, false);
  case HalfKind::MaxNan: return halfMaxMin(a[0], a[1], true, true);
  case HalfKind::MinNan: return halfMaxMin(a[0], a[1], false, true);
  case HalfKind::IsInf: {
    Value *pos = b_.CreateFCmpOEQ(a[0], halfBits(0x7c00)), *neg = b_.CreateFCmpOEQ(a[0], halfBits(0xfc00));
    return b_.CreateSelect(pos, b_.getInt32(1), b_.CreateSelect(neg, b_.getInt32(-1), b_.getInt32(0)));
  }
  case HalfKind::IsNan: return b_.CreateFCmpUNO(a[0], a[0]);
  case HalfKind::Sin: {
    // the result's sign is kept aside while the corrections apply to magnitudes
    Value *r = narrow(halfSinCosKernel(wide(a[0]), false));
    llvm::Type *i16 = b_.getInt16Ty();
    Value *sign = b_.CreateAnd(b_.CreateBitCast(r, i16), 0x8000);
    r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, r);
    r = halfSpecialCases(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a[0]), r,
                         {{0x32B3, 0x0800}, {0x5CB0, 0x9000}});
    return b_.CreateBitCast(b_.CreateOr(b_.CreateBitCast(r, i16), sign), f16);
  }
  case HalfKind::Cos: {
    Value *r = narrow(halfSinCosKernel(wide(a[0]), true));
    return halfSpecialCases(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a[0]), r, {{0x2B7C, 0x1000}});
  }
  case HalfKind::Exp:
  case HalfKind::Exp10: {
    // 2^(x log2(e)) or 2^(x log2(10)); the fma with -0 is the header's
    bool ten = kind == HalfKind::Exp10;
    Value *f = b_.CreateIntrinsic(
        llvm::Intrinsic::fma, {f32},
        {wide(a[0]), floatBits(ctx_, ten ? 0x40549A78u : 0x3fb8aa3bu), floatBits(ctx_, 0x80000000u)});
    Value *r = narrow(approx(ApproxUnit::Ex2Ftz, f));
    if (ten)
      return halfSpecialCases(
          a[0], r,
          {{0x34DE, 0x9800}, {0x9766, 0x9000}, {0x9972, 0x1000}, {0xA5C4, 0x1000}, {0xBF0A, 0x8100}});
    return halfSpecialCases(a[0], r,
                            {{0x1F79, 0x9400}, {0x25CF, 0x9400}, {0xC13B, 0x0400}, {0xC1EF, 0x0200}});
  }
  case HalfKind::Exp2: {
    Value *f = approx(ApproxUnit::Ex2Ftz, wide(a[0]));
    return narrow(
        b_.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {f, floatBits(ctx_, 0x33800000u), f})); // + 1 ulp
  }
  case HalfKind::Log2: {
    Value *r = narrow(approx(ApproxUnit::Lg2Ftz, wide(a[0])));
    return halfSpecialCases(nullptr, r, {{0xA2E2, 0x8080}, {0xBF46, 0x9400}}, true);
  }
  case HalfKind::Log:
  case HalfKind::Log10: {
    bool ten = kind == HalfKind::Log10;
    Value *f = b_.CreateFMul(approx(ApproxUnit::Lg2Ftz, wide(a[0])),
                             floatBits(ctx_, ten ? 0x3E9A209Bu : 0x3f317218u)); // log10(2), ln(2)
    Value *r = narrow(f);
    if (ten)
      return halfSpecialCases(a[0], r,
                              {{0x338F, 0x1000}, {0x33F8, 0x9000}, {0x57E1, 0x9800}, {0x719D, 0x9C00}});
    return halfSpecialCases(a[0], r,
                            {{0x160D, 0x9C00}, {0x3BFE, 0x8010}, {0x3C0B, 0x8080}, {0x6051, 0x1C00}});
  }
  case HalfKind::Rcp: return viaUnit(ApproxUnit::RcpFtz);
  case HalfKind::Rsqrt: return viaUnit(ApproxUnit::RsqrtFtz);
  case HalfKind::Sqrt: return viaUnit(ApproxUnit::SqrtFtz);
  case HalfKind::TanhApprox: return viaUnit(ApproxUnit::TanhF16);
  case HalfKind::Tanh: return narrow(libdeviceCall("tanh", Scalar::F32, {wide(a[0])}));
  case HalfKind::Ceil: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, a[0]);
  case HalfKind::Floor: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, a[0]);
  case HalfKind::Trunc: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, a[0]);
  case HalfKind::Rint: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::rint, a[0]);
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

Value *Lowerer::toHalfRounded(Value *x, HalfRounding mode) {
  Value *rn = b_.CreateFPTrunc(x, b_.getHalfTy());
  if (mode == HalfRounding::Nearest)
    return rn;
  // round to nearest, then one step back where that went past x in the wrong direction
  Value *back = b_.CreateFPExt(rn, x->getType());
  switch (mode) {
  case HalfRounding::Down: return b_.CreateSelect(b_.CreateFCmpOGT(back, x), halfStep(b_, rn, true), rn);
  case HalfRounding::Up: return b_.CreateSelect(b_.CreateFCmpOLT(back, x), halfStep(b_, rn, false), rn);
  case HalfRounding::Nearest: return rn;
  case HalfRounding::Zero: {
    Value *ax = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    Value *aback = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back);
    llvm::Type *i16 = b_.getInt16Ty();
    Value *towardZero =
        b_.CreateBitCast(b_.CreateSub(b_.CreateBitCast(rn, i16), b_.getInt16(1)), rn->getType());
    return b_.CreateSelect(b_.CreateFCmpOGT(aback, ax), towardZero, rn);
  }
  }
  return rn;
}

Value *Lowerer::convertRounded(Value *v, Scalar from, Scalar to, HalfRounding mode) {
  if (from == Scalar::F16 && fe::isFloat(to))
    return b_.CreateFPExt(v, scalarType(to));
  if (fe::isFloat(from) && to == Scalar::F16)
    return toHalfRounded(v, mode);
  if (to == Scalar::F16) {
    // integers through float32, exactly: beyond 2^24 every mode gives the same half as 2^24
    unsigned w = fe::bitWidth(from);
    if (w > 24) {
      llvm::Type *it = v->getType();
      Value *lim = ConstantInt::get(it, 1u << 24);
      if (fe::isSigned(from)) {
        v = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, lim);
        v = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, v,
                                     ConstantInt::get(it, -(int64_t(1) << 24), true));
      } else {
        v = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, v, lim);
      }
    }
    Value *f = fe::isSigned(from) ? b_.CreateSIToFP(v, b_.getFloatTy()) : b_.CreateUIToFP(v, b_.getFloatTy());
    return toHalfRounded(f, mode);
  }
  // half to an integer: round in half (exact), then convert saturating, NaN to 0
  static const llvm::Intrinsic::ID byMode[] = {llvm::Intrinsic::rint, llvm::Intrinsic::trunc,
                                               llvm::Intrinsic::floor, llvm::Intrinsic::ceil};
  Value *r = b_.CreateUnaryIntrinsic(byMode[int(mode)], v);
  auto id = fe::isSigned(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
  return b_.CreateIntrinsic(id, {scalarType(to), r->getType()}, {r});
}

} // namespace cutwin::ir
