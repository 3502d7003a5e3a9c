#include "backend_sim/directed_rounding.h"

namespace cutwin::sim {

using namespace llvm;

bool hasDirectedF32(int op) { return op == 0 || op == 1 || op == 3 || op == 6; }

namespace {
/// -x as a product: an fneg would get the simulator's rule for a float64 negation's NaN
/// (canonical_nan.h), which these values, never NaNs that reach the result, do not need.
Value *negate(IRBuilderBase &b, Value *x) { return b.CreateFMul(x, ConstantFP::get(x->getType(), -1.0)); }
} // namespace

Value *emitDirectedF32(IRBuilderBase &b, int op, int mode, Value *a, Value *bv, Value *c) {
  Type *f64 = b.getDoubleTy(), *f32 = b.getFloatTy(), *i32 = b.getInt32Ty();
  Value *da = b.CreateFPExt(a, f64), *db = b.CreateFPExt(bv, f64);
  Value *x, *y = nullptr;
  switch (op) {
  case 0: x = da, y = db; break;
  case 6: x = da, y = negate(b, db); break;
  case 1: x = b.CreateFMul(da, db); break; // exact: no sum, so -0 stays -0
  default: x = b.CreateFMul(da, db), y = b.CreateFPExt(c, f64); break;
  }
  Value *zero = ConstantFP::get(f64, 0.0), *s = x, *e = zero;
  if (y) {
    // Toward -inf an exact zero sum is -0 unless both terms are +0: -((-x) + (-y)) is
    // the rounded sum with just that sign.
    s = mode == 1 ? negate(b, b.CreateFAdd(negate(b, x), negate(b, y))) : b.CreateFAdd(x, y);
    Value *t = b.CreateFSub(s, x); // TwoSum: s + e == x + y exactly
    e = b.CreateFAdd(b.CreateFSub(x, b.CreateFSub(s, t)), b.CreateFSub(y, t));
  }
  Value *f = b.CreateFPTrunc(s, f32);
  // f above or below the exact value: the sign of (f - s) - e (f - s is exact, and a
  // multiple of s's ulp where not zero, so e cannot change its sign). The comparison is
  // made as doubles and carried over as one float (+1, -1 or 0; 0 for NaNs), so that lanes
  // keep to one width.
  Value *g = b.CreateFSub(b.CreateFSub(b.CreateFPExt(f, f64), s), e);
  Value *side = b.CreateSelect(b.CreateFCmpOGT(g, zero), ConstantFP::get(f64, 1.0),
                               b.CreateSelect(b.CreateFCmpOLT(g, zero), ConstantFP::get(f64, -1.0), zero));
  Value *side32 = b.CreateFPTrunc(side, f32), *zero32 = ConstantFP::get(f32, 0.0);
  Value *above = b.CreateFCmpOGT(side32, zero32), *below = b.CreateFCmpOLT(side32, zero32);
  Value *u = b.CreateBitCast(f, i32);
  Value *negative = b.CreateICmpSLT(u, b.getInt32(0)); // f (+-0 too) has s's sign
  Value *step;
  switch (mode) {
  case 1: step = above; break;
  case 2: step = below; break;
  default: // toward zero: where |f| exceeds the exact value's magnitude
    step = b.CreateSelect(negative, below, above);
    break;
  }
  // One step toward -inf (above) or +inf (below) changes the encoding's magnitude by one:
  // down for a positive f moving down, up for a negative one.
  Value *inc = b.CreateSelect(b.CreateXor(above, negative), b.getInt32(-1), b.getInt32(1));
  Value *moved = b.CreateSelect(step, b.CreateAdd(u, inc), u);
  // a NaN result is the GPU's canonical NaN (this value is built from integers, which the
  // simulator's NaN rule leaves alone)
  return b.CreateBitCast(b.CreateSelect(b.CreateFCmpUNO(f, f), b.getInt32(0x7fffffff), moved), f32);
}

} // namespace cutwin::sim
