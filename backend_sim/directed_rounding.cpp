#include "backend_sim/directed_rounding.h"

namespace cutwin::sim {

using namespace llvm;

bool hasDirectedF32(int op) { return op == 0 || op == 1 || op == 3 || op == 6; }

Value *emitDirectedF32(IRBuilderBase &b, int op, int mode, Value *a, Value *bv, Value *c) {
  Type *f64 = b.getDoubleTy(), *f32 = b.getFloatTy(), *i32 = b.getInt32Ty();
  Value *da = b.CreateFPExt(a, f64), *db = b.CreateFPExt(bv, f64);
  Value *x, *y = nullptr;
  switch (op) {
  case 0: x = da, y = db; break;
  case 6: x = da, y = b.CreateFNeg(db); break;
  case 1: x = b.CreateFMul(da, db); break; // exact: no sum, so -0 stays -0
  default: x = b.CreateFMul(da, db), y = b.CreateFPExt(c, f64); break;
  }
  Value *zero = ConstantFP::get(f64, 0.0), *s = x, *e = zero;
  if (y) { // TwoSum: s + e == x + y exactly
    s = b.CreateFAdd(x, y);
    Value *t = b.CreateFSub(s, x);
    e = b.CreateFAdd(b.CreateFSub(x, b.CreateFSub(s, t)), b.CreateFSub(y, t));
  }
  Value *f = b.CreateFPTrunc(s, f32), *fd = b.CreateFPExt(f, f64);
  // f above or below the exact value (NaNs compare false: they pass through unmoved)
  Value *atS = b.CreateFCmpOEQ(fd, s);
  Value *above = b.CreateOr(b.CreateFCmpOGT(fd, s), b.CreateAnd(atS, b.CreateFCmpOLT(e, zero)));
  Value *below = b.CreateOr(b.CreateFCmpOLT(fd, s), b.CreateAnd(atS, b.CreateFCmpOGT(e, zero)));
  Value *step;
  switch (mode) {
  case 1: step = above; break;
  case 2: step = below; break;
  default: // toward zero: where |f| exceeds the exact value's magnitude
    step = b.CreateOr(b.CreateAnd(b.CreateFCmpOGT(s, zero), above),
                      b.CreateAnd(b.CreateFCmpOLT(s, zero), below));
    break;
  }
  // One step toward -inf (above) or +inf (below) changes the encoding's magnitude by one:
  // down for a positive f moving down, up for a negative one; f = +-0 has s's sign.
  Value *u = b.CreateBitCast(f, i32);
  Value *negative = b.CreateICmpSLT(u, b.getInt32(0));
  Value *inc = b.CreateSelect(b.CreateXor(above, negative), b.getInt32(-1), b.getInt32(1));
  Value *moved = b.CreateSelect(step, b.CreateAdd(u, inc), u);
  // a NaN result is the GPU's canonical NaN (this value is built from integers, which the
  // simulator's NaN rule leaves alone)
  Value *r = b.CreateBitCast(b.CreateSelect(b.CreateFCmpUNO(s, s), b.getInt32(0x7fffffff), moved), f32);
  if (mode != 1 || !y)
    return r;
  // An exact zero sum is -0 toward -inf unless both terms are +0 (the double sum gave +0).
  Value *exactZero = b.CreateAnd(b.CreateFCmpOEQ(s, zero), b.CreateFCmpOEQ(e, zero));
  Value *signs = b.CreateOr(b.CreateBitCast(x, b.getInt64Ty()), b.CreateBitCast(y, b.getInt64Ty()));
  Value *negZero = b.CreateICmpSLT(signs, b.getInt64(0));
  Value *z = b.CreateSelect(negZero, ConstantFP::get(f32, -0.0), ConstantFP::get(f32, 0.0));
  return b.CreateSelect(exactZero, z, r);
}

} // namespace cutwin::sim
