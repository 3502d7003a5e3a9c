// Lowering of the warp operations to `cutwin.warp` calls: the value travels as an i64
// (32-bit values zero-extended, floats as their bits), the op code says how wide it is.
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowerer.h"

namespace cutwin::ir {

using namespace llvm;

namespace {
WarpOp warpOpOf(const std::string &fn) {
  if (fn == "cuda.shfl_sync")
    return WarpOp::ShflIdx;
  if (fn == "cuda.shfl_up_sync")
    return WarpOp::ShflUp;
  if (fn == "cuda.shfl_down_sync")
    return WarpOp::ShflDown;
  if (fn == "cuda.shfl_xor_sync")
    return WarpOp::ShflXor;
  if (fn == "cuda.all_sync")
    return WarpOp::VoteAll;
  if (fn == "cuda.any_sync")
    return WarpOp::VoteAny;
  if (fn == "cuda.eq_sync")
    return WarpOp::VoteUni;
  if (fn == "cuda.ballot_sync")
    return WarpOp::Ballot;
  if (fn == "cuda.match_any_sync")
    return WarpOp::MatchAny;
  if (fn == "cuda.match_all_sync")
    return WarpOp::MatchAll;
  if (fn == "cuda.activemask")
    return WarpOp::ActiveMask;
  return WarpOp::SyncWarp;
}
} // namespace

Value *Lowerer::lowerWarpCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  auto *i32 = b_.getInt32Ty();
  auto *i64 = b_.getInt64Ty();
  WarpOp op = warpOpOf(ci.builtin);
  Value *mask = op == WarpOp::ActiveMask ? b_.getInt32(0)
                : c.args.empty()         ? b_.getInt32(-1) // syncwarp(): the full warp
                                         : lowerAs(*c.args[0], Type::scalarOf(Scalar::I32));
  Value *value = ConstantInt::get(i64, 0), *lane = b_.getInt32(0);
  unsigned code = unsigned(op);
  Scalar vt = ci.operandTypes.size() > 1 ? ci.operandTypes[1] : Scalar::I32;
  if (c.args.size() > 1) {
    Value *v = lowerAs(*c.args[1], Type::scalarOf(vt));
    if (vt == Scalar::Bool) {
      value = b_.CreateZExt(v, i64);
    } else {
      unsigned bits = v->getType()->getPrimitiveSizeInBits();
      Value *asInt = b_.CreateBitCast(v, b_.getIntNTy(bits));
      value = b_.CreateZExt(asInt, i64);
      if (bits == 64)
        code |= kWarpWide;
    }
  }
  if (c.args.size() > 2)
    lane = lowerAs(*c.args[2], Type::scalarOf(Scalar::I32));
  setLoc(c.loc);
  Value *r = b_.CreateCall(getIntrinsic(mod_, Intrinsic::Warp), {b_.getInt32(code), mask, value, lane,
                                                                 b_.getInt32(site(c.loc, "warp operation"))});
  switch (op) {
  case WarpOp::ShflIdx:
  case WarpOp::ShflUp:
  case WarpOp::ShflDown:
  case WarpOp::ShflXor: {
    llvm::Type *t = scalarType(vt);
    unsigned bits = t->getPrimitiveSizeInBits();
    return b_.CreateBitCast(b_.CreateTrunc(r, b_.getIntNTy(bits)), t);
  }
  case WarpOp::VoteAll:
  case WarpOp::VoteAny:
  case WarpOp::VoteUni: return b_.CreateICmpNE(r, ConstantInt::get(i64, 0));
  case WarpOp::Ballot:
  case WarpOp::MatchAny:
  case WarpOp::ActiveMask: return b_.CreateTrunc(r, i32);
  case WarpOp::MatchAll: { // (mask, all equal): a lane is always in its own mask
    Value *m = b_.CreateTrunc(r, i32);
    Value *agg = UndefValue::get(llvmType(ci.type));
    agg = b_.CreateInsertValue(agg, m, {0});
    return b_.CreateInsertValue(agg, b_.CreateICmpNE(m, b_.getInt32(0)), {1});
  }
  case WarpOp::SyncWarp: return nullptr;
  }
  return nullptr;
}

} // namespace cutwin::ir
