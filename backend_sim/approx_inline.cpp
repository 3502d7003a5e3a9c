#include "backend_sim/approx_inline.h"

#include "backend_sim/approx_ops.h"
#include "backend_sim/approx_tables.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Module.h>

namespace cutwin::sim {

using namespace llvm;

namespace {

std::string arrayName(const ApproxModel &m, const char *part) {
  return std::string("cutwin.model.") + m.name + part;
}

/// Builds the units over scalars or vectors alike: constants are splats of the value's
/// lane count, loads are gathers where there are lanes.
class UnitBuilder {
public:
  UnitBuilder(IRBuilderBase &b, Type *of)
      : b_(b), lanes_(isa<VectorType>(of) ? cast<FixedVectorType>(of)->getNumElements() : 0) {}

  Type *type(Type *scalar) const { return lanes_ ? FixedVectorType::get(scalar, lanes_) : scalar; }
  Value *u32(uint32_t v) const { return ConstantInt::get(type(b_.getInt32Ty()), v); }
  Value *u64(uint64_t v) const { return ConstantInt::get(type(b_.getInt64Ty()), v); }

  /// Entry k of model `pos`, or of `neg` where `negative` (ex2's two tables): the line
  /// of k's segment, floored, plus k's bit; entry 0 whole (approxModelEntry).
  Value *entry(const ApproxModel &pos, const ApproxModel *neg, Value *negative, Value *k) {
    bool joined = neg && extends(pos, *neg); // one array: k's place in the second table
    uint64_t span = joined ? 2 * uint64_t(pos.entries) : pos.entries;
    Value *segments = array(pos, false, span), *bits = array(pos, true, span), *at = k;
    if (joined) {
      at = b_.CreateOr(k, b_.CreateSelect(negative, u32(pos.entries), u32(0)));
    } else if (neg) {
      segments = b_.CreateSelect(negative, array(*neg, false, neg->entries), segments);
      bits = b_.CreateSelect(negative, array(*neg, true, neg->entries), bits);
    }
    Type *i32 = type(b_.getInt32Ty()), *i64 = type(b_.getInt64Ty());
    Value *record =
        load(b_.getInt64Ty(), segments, b_.CreateZExt(b_.CreateLShr(at, u32(pos.segmentShift)), i64));
    Value *packed = b_.CreateTrunc(b_.CreateLShr(record, u64(32)), i32); // all in 32 bits from here
    Value *slope = b_.CreateAShr(packed, u32(kModelFraction));
    Value *fraction = b_.CreateAnd(packed, u32((1u << kModelFraction) - 1));
    Value *t = b_.CreateAnd(k, u32((1u << pos.segmentShift) - 1));
    Value *step = b_.CreateAShr(b_.CreateAdd(fraction, b_.CreateMul(slope, t)), u32(kModelFraction));
    Value *base = b_.CreateAdd(b_.CreateTrunc(record, i32), step);
    Value *word = load(b_.getInt32Ty(), bits, b_.CreateZExt(b_.CreateLShr(at, u32(5)), i64));
    Value *bit = b_.CreateAnd(b_.CreateLShr(word, b_.CreateAnd(k, u32(31))), u32(1));
    Value *first = u32(pos.first);
    if (neg && neg->first != pos.first)
      first = b_.CreateSelect(negative, u32(neg->first), first);
    return b_.CreateSelect(b_.CreateICmpEQ(k, u32(0)), first, b_.CreateAdd(base, bit));
  }

private:
  /// Whether model b's arrays continue a's (approx/fit_models.cpp lays consecutive models
  /// out so), with the same segments: then one index reaches both.
  static bool extends(const ApproxModel &a, const ApproxModel &b) {
    return a.segmentShift == b.segmentShift && a.entries == b.entries && (a.entries & (a.entries - 1)) == 0 &&
           b.segments == a.segments + (a.entries >> a.segmentShift) && b.bits == a.bits + a.entries / 32;
  }

  /// The model's segment records or bits for `entries` entries (those of the models
  /// after it too, where they continue its arrays): a constant global the JIT resolves
  /// (modelSymbols).
  Constant *array(const ApproxModel &m, bool bits, uint64_t entries) {
    Module &mod = *b_.GetInsertBlock()->getModule();
    std::string name = arrayName(m, bits ? ".b" : ".s") + (entries == m.entries ? "" : ".joined");
    GlobalVariable *g = mod.getNamedGlobal(name);
    if (!g) {
      Type *elem = bits ? b_.getInt32Ty() : b_.getInt64Ty();
      uint64_t n = bits ? entries / 32 : entries >> m.segmentShift;
      g = new GlobalVariable(mod, ArrayType::get(elem, n), /*isConstant=*/true, GlobalValue::ExternalLinkage,
                             nullptr, name);
      g->setAlignment(Align(8));
    }
    return lanes_ ? ConstantVector::getSplat(ElementCount::getFixed(lanes_), g) : static_cast<Constant *>(g);
  }

  Value *load(Type *elem, Value *base, Value *index) {
    Value *p = b_.CreateInBoundsGEP(elem, base, index);
    if (!lanes_)
      return b_.CreateLoad(elem, p);
    return b_.CreateMaskedGather(type(elem), p, Align(4), ConstantInt::getTrue(type(b_.getInt1Ty())));
  }

  IRBuilderBase &b_;
  unsigned lanes_;
};

/// ex2.approx.ftz.f32 (approx_tables.cpp: ex2Unit, ex2Full, ex2From).
Value *ex2(IRBuilderBase &b, const ApproxModel &pos, const ApproxModel &neg, Value *x) {
  UnitBuilder u(b, x->getType());
  Type *i32 = u.type(b.getInt32Ty());
  Value *bits = b.CreateBitCast(x, i32), *a = b.CreateAnd(bits, u.u32(0x7fffffffu));
  Value *negative = b.CreateICmpSLT(bits, u.u32(0));
  // normal and below 128 in magnitude: a table entry (the rest are selected below)
  Value *tabled = b.CreateICmpULT(b.CreateSub(a, u.u32(0x00800000u)), u.u32(0x43000000u - 0x00800000u));
  Value *magnitude = b.CreateBitCast(b.CreateSelect(tabled, a, u.u32(0)), x->getType());
  Value *k = b.CreateFPToUI(b.CreateFMul(magnitude, ConstantFP::get(x->getType(), 0x1p23)), i32); // truncated
  Value *t = u.entry(pos, &neg, negative, b.CreateAnd(k, u.u32(0x7fffffu)));
  Value *whole = b.CreateLShr(k, u.u32(23));
  Value *r = b.CreateAdd(b.CreateAnd(b.CreateLShr(t, u.u32(23)), u.u32(0xff)),
                         b.CreateSelect(negative, b.CreateNeg(whole), whole));
  Value *v = b.CreateOr(b.CreateShl(r, u.u32(23)), b.CreateAnd(t, u.u32(0x7fffffu)));
  v = b.CreateSelect(b.CreateICmpSLE(r, u.u32(0)), u.u32(0), v);
  v = b.CreateSelect(b.CreateICmpSGE(r, u.u32(0xff)), u.u32(0x7f800000u), v);
  // subnormals and zeros give 1; |x| >= 128 inf or 0; NaN the canonical NaN
  v = b.CreateSelect(b.CreateICmpULT(a, u.u32(0x00800000u)), u.u32(0x3f800000u), v);
  v = b.CreateSelect(b.CreateICmpUGE(a, u.u32(0x43000000u)),
                     b.CreateSelect(negative, u.u32(0), u.u32(0x7f800000u)), v);
  v = b.CreateSelect(b.CreateICmpUGT(a, u.u32(0x7f800000u)), u.u32(0x7fffffffu), v);
  return b.CreateBitCast(v, x->getType());
}

/// rcp.approx.ftz.f32 and the high word of rcp.approx.ftz.f64 (rcp32From, rcp64From and
/// their full paths) from `hi`, the operand's bits (its high word for f64), the exponent
/// at `expShift`.
Value *rcpWord(IRBuilderBase &b, UnitBuilder &u, const ApproxModel &m, Value *hi, unsigned expShift,
               uint32_t expMask, uint32_t bias) {
  uint32_t mantMask = (1u << expShift) - 1;
  Value *s = b.CreateAnd(hi, u.u32(0x80000000u)),
        *e = b.CreateAnd(b.CreateLShr(hi, u.u32(expShift)), u.u32(expMask));
  Value *mant = b.CreateAnd(hi, u.u32(mantMask));
  Value *t = u.entry(m, nullptr, nullptr, mant);
  Value *r =
      b.CreateSub(b.CreateAnd(b.CreateLShr(t, u.u32(expShift)), u.u32(expMask)), b.CreateSub(e, u.u32(bias)));
  Value *v = b.CreateOr(s, b.CreateOr(b.CreateShl(r, u.u32(expShift)), b.CreateAnd(t, u.u32(mantMask))));
  v = b.CreateSelect(b.CreateICmpSLE(r, u.u32(0)), s, v); // below the normal range: +-0
  v = b.CreateSelect(b.CreateICmpEQ(e, u.u32(0)), b.CreateOr(s, u.u32(expMask << expShift)),
                     v); // flushed: +-inf
  Value *nan = b.CreateICmpNE(mant, u.u32(0));
  return b.CreateSelect(b.CreateICmpEQ(e, u.u32(expMask)), b.CreateSelect(nan, u.u32(0x7fffffffu), s), v);
}

/// rsqrt.approx.ftz (reciprocal) or sqrt.approx.ftz on `hi`, a float's bits or a double's
/// high word, its exponent at `expShift` (root32, root32Full, rsqrt64From and rsqrt64Full):
/// the table of the exponent's parity, the exponent halved (rounded down) and subtracted or
/// added.
Value *rootWord(IRBuilderBase &b, UnitBuilder &u, const ApproxModel &even, const ApproxModel &odd, Value *hi,
                unsigned expShift, uint32_t expMask, uint32_t bias, bool reciprocal) {
  uint32_t mantMask = (1u << expShift) - 1, inf = expMask << expShift;
  Value *s = b.CreateAnd(hi, u.u32(0x80000000u)),
        *e = b.CreateAnd(b.CreateLShr(hi, u.u32(expShift)), u.u32(expMask));
  Value *mant = b.CreateAnd(hi, u.u32(mantMask));
  Value *p = b.CreateSub(e, u.u32(bias));
  Value *oddPower = b.CreateICmpNE(b.CreateAnd(p, u.u32(1)), u.u32(0));
  Value *t = u.entry(even, &odd, oddPower, mant);
  Value *half = b.CreateAShr(p, u.u32(1)),
        *te = b.CreateAnd(b.CreateLShr(t, u.u32(expShift)), u.u32(expMask));
  Value *r = reciprocal ? b.CreateSub(te, half) : b.CreateAdd(te, half);
  Value *v = b.CreateOr(b.CreateShl(r, u.u32(expShift)), b.CreateAnd(t, u.u32(mantMask)));
  Value *nan = u.u32(0x7fffffffu);
  v = b.CreateSelect(b.CreateICmpNE(s, u.u32(0)), nan, v); // negative
  v = b.CreateSelect(b.CreateICmpEQ(e, u.u32(0)), reciprocal ? b.CreateOr(s, u.u32(inf)) : s,
                     v); // zero, flushed
  Value *special = b.CreateOr(b.CreateICmpNE(mant, u.u32(0)), b.CreateICmpNE(s, u.u32(0)));
  return b.CreateSelect(b.CreateICmpEQ(e, u.u32(expMask)),
                        b.CreateSelect(special, nan, u.u32(reciprocal ? 0 : inf)), v); // NaN, +-inf
}

} // namespace

Value *emitModelledUnit(IRBuilderBase &b, StringRef unit, Value *x) {
  UnitBuilder u(b, x->getType());
  if (unit == approxUnitSymbol(ApproxF32::Ex2Ftz)) {
    const ApproxModel *pos = approxModel(ApproxTable::Ex2Pos), *neg = approxModel(ApproxTable::Ex2Neg);
    return pos && neg ? ex2(b, *pos, *neg, x) : nullptr;
  }
  if (unit == approxUnitSymbol(ApproxF32::RcpFtz)) {
    const ApproxModel *m = approxModel(ApproxTable::Rcp32);
    if (!m)
      return nullptr;
    Value *w = rcpWord(b, u, *m, b.CreateBitCast(x, u.type(b.getInt32Ty())), 23, 0xff, 127);
    return b.CreateBitCast(w, x->getType());
  }
  for (bool reciprocal : {true, false})
    if (unit == approxUnitSymbol(reciprocal ? ApproxF32::RsqrtFtz : ApproxF32::SqrtFtz)) {
      const ApproxModel *even = approxModel(reciprocal ? ApproxTable::Rsqrt32Even : ApproxTable::Sqrt32Even);
      const ApproxModel *odd = approxModel(reciprocal ? ApproxTable::Rsqrt32Odd : ApproxTable::Sqrt32Odd);
      if (!even || !odd)
        return nullptr;
      Value *w =
          rootWord(b, u, *even, *odd, b.CreateBitCast(x, u.type(b.getInt32Ty())), 23, 0xff, 127, reciprocal);
      return b.CreateBitCast(w, x->getType());
    }
  if (unit == approxUnitSymbol(ApproxF64::RsqrtFtz)) {
    const ApproxModel *even = approxModel(ApproxTable::Rsqrt64Even),
                      *odd = approxModel(ApproxTable::Rsqrt64Odd);
    if (!even || !odd)
      return nullptr;
    Type *i64 = u.type(b.getInt64Ty());
    Value *hi = b.CreateTrunc(b.CreateLShr(b.CreateBitCast(x, i64), u.u64(32)), u.type(b.getInt32Ty()));
    Value *w = rootWord(b, u, *even, *odd, hi, 20, 0x7ff, 1023, true);
    return b.CreateBitCast(b.CreateShl(b.CreateZExt(w, i64), u.u64(32)), x->getType());
  }
  if (unit == approxUnitSymbol(ApproxF64::RcpFtz)) {
    const ApproxModel *m = approxModel(ApproxTable::Rcp64);
    if (!m)
      return nullptr;
    // the unit reads the high word only; the result's low word is 0
    Type *i64 = u.type(b.getInt64Ty());
    Value *hi = b.CreateTrunc(b.CreateLShr(b.CreateBitCast(x, i64), u.u64(32)), u.type(b.getInt32Ty()));
    Value *w = rcpWord(b, u, *m, hi, 20, 0x7ff, 1023);
    return b.CreateBitCast(b.CreateShl(b.CreateZExt(w, i64), u.u64(32)), x->getType());
  }
  return nullptr;
}

std::vector<std::pair<std::string, void *>> modelSymbols() {
  std::vector<std::pair<std::string, void *>> out;
  for (const ApproxModel *m = kApproxModels; m->name; ++m)
    for (const char *joined : {"", ".joined"}) {
      out.emplace_back(arrayName(*m, ".s") + joined, const_cast<uint64_t *>(m->segments));
      out.emplace_back(arrayName(*m, ".b") + joined, const_cast<uint32_t *>(m->bits));
    }
  return out;
}

} // namespace cutwin::sim
