#include "backend_gpu/lower_warp.h"

#include "cutwin/errors.h"
#include "frontend/ir/intrinsics.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>

#include <string>

namespace cutwin::gpu {

using namespace llvm;
using ir::WarpOp;

namespace {

/// One asm statement, convergent and ordering memory (bar.warp.sync does; the others
/// must not be moved across control flow either).
/// The barrier site of the warp operation being lowered: it tags its asm, so that the same
/// operation in two branches stays two (identical asm would be hoisted or sunk to where
/// the branches meet, where other lanes are active: activemask would see them all).
thread_local unsigned currentSite = 0;

Value *emitAsm(IRBuilder<> &b, Type *ret, ArrayRef<Value *> args, const std::string &text,
               const std::string &constraints) {
  std::vector<Type *> params;
  for (Value *a : args)
    params.push_back(a->getType());
  auto *ft = FunctionType::get(ret, params, false);
  std::string tagged = text + " // cutwin site " + std::to_string(currentSite);
  CallInst *call = b.CreateCall(InlineAsm::get(ft, tagged, constraints + ",~{memory}", true), args);
  call->addFnAttr(Attribute::Convergent);
  return call;
}

/// shfl.sync on 32 bits; numba's clamp operand: 0 for up, 0x1f otherwise (whole warp).
Value *shfl32(IRBuilder<> &b, WarpOp op, Value *v, Value *lane, Value *mask) {
  static const char *modes[] = {"idx", "up", "down", "bfly"};
  std::string text = std::string("shfl.sync.") + modes[unsigned(op)] + ".b32 $0, $1, $2, " +
                     (op == WarpOp::ShflUp ? "0" : "0x1f") + ", $3;";
  return emitAsm(b, b.getInt32Ty(), {v, lane, mask}, text, "=r,r,r,r");
}

} // namespace

void lowerWarpCall(CallInst *ci) {
  auto *code = dyn_cast<ConstantInt>(ci->getArgOperand(0));
  if (!code)
    throw Error("GPU backend: cutwin.warp needs a constant operation");
  unsigned raw = unsigned(code->getZExtValue());
  auto op = WarpOp(raw & ir::kWarpOpMask);
  bool wide = raw & ir::kWarpWide;
  IRBuilder<> b(ci);
  b.SetCurrentDebugLocation(ci->getDebugLoc());
  Value *mask = ci->getArgOperand(1), *value = ci->getArgOperand(2), *lane = ci->getArgOperand(3);
  auto *site = dyn_cast<ConstantInt>(ci->getArgOperand(4));
  currentSite = site ? unsigned(site->getZExtValue()) : 0;
  auto *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty();
  Value *lo = b.CreateTrunc(value, i32);
  auto pred = [](const char *vote) {
    return std::string("{ .reg .pred p, q; setp.ne.u32 p, $1, 0; vote.sync.") + vote +
           ".pred q, p, $2; selp.u32 $0, 1, 0, q; }";
  };
  Value *r = nullptr;
  switch (op) {
  case WarpOp::ShflIdx:
  case WarpOp::ShflUp:
  case WarpOp::ShflDown:
  case WarpOp::ShflXor:
    r = b.CreateZExt(shfl32(b, op, lo, lane, mask), i64);
    if (wide) { // two 32-bit shuffles from the same lane, as numba does
      Value *hi = shfl32(b, op, b.CreateTrunc(b.CreateLShr(value, 32), i32), lane, mask);
      r = b.CreateOr(r, b.CreateShl(b.CreateZExt(hi, i64), 32));
    }
    break;
  case WarpOp::VoteAll: r = emitAsm(b, i32, {lo, mask}, pred("all"), "=r,r,r"); break;
  case WarpOp::VoteAny: r = emitAsm(b, i32, {lo, mask}, pred("any"), "=r,r,r"); break;
  case WarpOp::VoteUni: r = emitAsm(b, i32, {lo, mask}, pred("uni"), "=r,r,r"); break;
  case WarpOp::Ballot:
    r = emitAsm(b, i32, {lo, mask}, "{ .reg .pred p; setp.ne.u32 p, $1, 0; vote.sync.ballot.b32 $0, p, $2; }",
                "=r,r,r");
    break;
  case WarpOp::MatchAny:
  case WarpOp::MatchAll: {
    std::string text = std::string("match.") + (op == WarpOp::MatchAny ? "any" : "all") + ".sync." +
                       (wide ? "b64" : "b32") + " $0, $1, $2;";
    r = emitAsm(b, i32, {wide ? value : lo, mask}, text, wide ? "=r,l,r" : "=r,r,r");
    break;
  }
  case WarpOp::ActiveMask: r = emitAsm(b, i32, {}, "activemask.b32 $0;", "=r"); break;
  case WarpOp::SyncWarp:
    r = emitAsm(b, Type::getVoidTy(b.getContext()), {mask}, "bar.warp.sync $0;", "r");
    break;
  }
  if (op == WarpOp::SyncWarp) {
    ci->replaceAllUsesWith(ConstantInt::get(i64, 0));
    return;
  }
  if (r->getType() != i64)
    r = b.CreateZExt(r, i64);
  ci->replaceAllUsesWith(r);
}

} // namespace cutwin::gpu
