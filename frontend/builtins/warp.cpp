// Warp operations: cuda.shfl*_sync, votes (all/any/eq/ballot), match_any/match_all,
// activemask and syncwarp. The types are numba's: masks are int32; shuffles move int32,
// int64, float32 or float64 (narrower integers widen to int32, uint32 to int64); votes take
// a predicate and give a bool, ballot_sync and match_any_sync an int32 mask, match_all_sync
// (int32, bool). Each lowers to one `cutwin.warp` call whose value travels as an i64 (32-bit
// values zero-extended, floats as their bits); the op code says how wide it is.
#include "frontend/builtins/builtin.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerWarpBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

using ir::WarpOp;

namespace fe {

ExprInfo typeWarpBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                         const Builtin &b);

using S = Scalar;

std::span<const Builtin> warpBuiltins() {
  auto row = [](const char *name, WarpOp op) {
    return Builtin{name, unsigned(op), &typeWarpBuiltin, &ir::lowerWarpBuiltin};
  };
  static const Builtin table[] = {
      row("cuda.shfl_sync", WarpOp::ShflIdx),       row("cuda.shfl_up_sync", WarpOp::ShflUp),
      row("cuda.shfl_down_sync", WarpOp::ShflDown), row("cuda.shfl_xor_sync", WarpOp::ShflXor),
      row("cuda.all_sync", WarpOp::VoteAll),        row("cuda.any_sync", WarpOp::VoteAny),
      row("cuda.eq_sync", WarpOp::VoteUni),         row("cuda.ballot_sync", WarpOp::Ballot),
      row("cuda.match_any_sync", WarpOp::MatchAny), row("cuda.match_all_sync", WarpOp::MatchAll),
      row("cuda.activemask", WarpOp::ActiveMask),   row("cuda.syncwarp", WarpOp::SyncWarp),
  };
  return table;
}

namespace {
/// The type a shuffled or matched value travels as, or nullopt if it cannot.
std::optional<S> warpValueType(S t) {
  switch (t) {
  case S::Bool:
  case S::I8:
  case S::I16:
  case S::I32:
  case S::U8:
  case S::U16: return S::I32;
  case S::U32:
  case S::I64:
  case S::U64: return S::I64;
  case S::F32: return S::F32;
  case S::F64: return S::F64;
  default: return std::nullopt;
  }
}
} // namespace

ExprInfo typeWarpBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                         const Builtin &b) {
  ExprInfo info;
  WarpOp op = WarpOp(b.op);
  std::string name = std::string(b.name).substr(5) + "()";
  auto arity = [&](size_t lo, size_t hi) {
    if (args.size() < lo || args.size() > hi)
      cx.error(c.loc, name + " takes " +
                          (lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi)) +
                          " argument" + (hi == 1 ? "" : "s") + ", " + std::to_string(args.size()) + " given");
  };
  auto integer = [&](size_t i, const char *what) {
    const Type &t = args[i].type;
    if (!t.isScalar() || !(isInteger(t.scalar) || t.scalar == S::Bool))
      cx.error(c.args[i]->loc, name + ": the " + what + " must be an integer, not " + t.str());
  };
  auto mask = [&](size_t i) { // numba: an integer, not a boolean (its words, for code that matches them)
    const Type &t = args[i].type;
    if (!t.isInt())
      cx.error(c.args[i]->loc, name + ": Mask type must be an integer, not " + t.str());
  };
  auto movesValue = [&](bool shuffle) {
    if (shuffle) {
      arity(2, 3);
      mask(0);
      arity(3, 3);
      integer(2, op == WarpOp::ShflIdx ? "source lane" : op == WarpOp::ShflXor ? "lane mask" : "delta");
    } else {
      arity(2, 2);
      mask(0);
    }
    const Type &v = args[1].type;
    std::optional<S> vt = v.isScalar() ? warpValueType(v.scalar) : std::nullopt;
    if (!vt)
      cx.error(c.args[1]->loc, name + " moves int32, int64, float32 or float64 values, not " + v.str());
    info.operandTypes = {S::I32, *vt, S::I32};
    return *vt;
  };
  switch (op) {
  case WarpOp::ActiveMask:
    arity(0, 0);
    info.type = Type::scalarOf(S::U32);
    return info;
  case WarpOp::SyncWarp:
    arity(0, 1);
    if (!args.empty())
      mask(0);
    info.type = Type::none();
    info.operandTypes = {S::I32};
    return info;
  case WarpOp::ShflIdx:
  case WarpOp::ShflUp:
  case WarpOp::ShflDown:
  case WarpOp::ShflXor: info.type = Type::scalarOf(movesValue(true)); return info;
  case WarpOp::MatchAny:
    movesValue(false);
    info.type = Type::scalarOf(S::I32);
    return info;
  case WarpOp::MatchAll:
    movesValue(false);
    info.type = Type::tuple({Type::scalarOf(S::I32), Type::scalarOf(S::Bool)});
    return info;
  case WarpOp::VoteAll:
  case WarpOp::VoteAny:
  case WarpOp::VoteUni:
  case WarpOp::Ballot: { // votes: numba takes an integer or boolean predicate
    arity(2, 2);
    mask(0);
    const Type &p = args[1].type;
    if (!p.isScalar() || !(isInteger(p.scalar) || p.scalar == S::Bool))
      cx.error(c.args[1]->loc, name + ": Predicate must be an integer or boolean, not " + p.str());
    info.operandTypes = {S::I32, S::Bool};
    info.type = Type::scalarOf(op == WarpOp::Ballot ? S::I32 : S::Bool);
    return info;
  }
  }
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *lowerWarpBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  auto *i32 = irb.getInt32Ty();
  auto *i64 = irb.getInt64Ty();
  WarpOp op = WarpOp(ci.function->op);
  Value *mask = op == WarpOp::ActiveMask ? irb.getInt32(0)
                : c.args.empty()         ? irb.getInt32(-1) // syncwarp(): the full warp
                                         : cx.lowerAs(*c.args[0], Type::scalarOf(Scalar::I32));
  Value *value = ConstantInt::get(i64, 0), *lane = irb.getInt32(0);
  unsigned code = unsigned(op);
  Scalar vt = ci.operandTypes.size() > 1 ? ci.operandTypes[1] : Scalar::I32;
  if (c.args.size() > 1) {
    Value *v = cx.lowerAs(*c.args[1], Type::scalarOf(vt));
    if (vt == Scalar::Bool) {
      value = irb.CreateZExt(v, i64);
    } else {
      unsigned bits = v->getType()->getPrimitiveSizeInBits();
      Value *asInt = irb.CreateBitCast(v, irb.getIntNTy(bits));
      value = irb.CreateZExt(asInt, i64);
      if (bits == 64)
        code |= kWarpWide;
    }
  }
  if (c.args.size() > 2)
    lane = cx.lowerAs(*c.args[2], Type::scalarOf(Scalar::I32));
  cx.setLoc(c.loc);
  Value *r =
      irb.CreateCall(getIntrinsic(cx.module(), Intrinsic::Warp),
                     {irb.getInt32(code), mask, value, lane, irb.getInt32(cx.site(c.loc, "warp operation"))});
  switch (op) {
  case WarpOp::ShflIdx:
  case WarpOp::ShflUp:
  case WarpOp::ShflDown:
  case WarpOp::ShflXor: {
    llvm::Type *t = cx.scalarType(vt);
    unsigned bits = t->getPrimitiveSizeInBits();
    return irb.CreateBitCast(irb.CreateTrunc(r, irb.getIntNTy(bits)), t);
  }
  case WarpOp::VoteAll:
  case WarpOp::VoteAny:
  case WarpOp::VoteUni: return irb.CreateICmpNE(r, ConstantInt::get(i64, 0));
  case WarpOp::Ballot:
  case WarpOp::MatchAny:
  case WarpOp::ActiveMask: return irb.CreateTrunc(r, i32);
  case WarpOp::MatchAll: { // (mask, all equal): a lane is always in its own mask
    Value *m = irb.CreateTrunc(r, i32);
    Value *agg = UndefValue::get(cx.llvmType(ci.type));
    agg = irb.CreateInsertValue(agg, m, {0});
    return irb.CreateInsertValue(agg, irb.CreateICmpNE(m, irb.getInt32(0)), {1});
  }
  case WarpOp::SyncWarp: return nullptr;
  }
  return nullptr;
}

} // namespace ir
} // namespace cutwin
