// Cache-policy loads and stores as inline PTX (cache_hints.h).
#include "backend_gpu/cache_hints.h"

#include "frontend/ir/intrinsics.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>

namespace cutwin::gpu {

using namespace llvm;

namespace {
/// PTX's register constraint for a value of `bits` (8-bit values travel in 32-bit registers).
const char *constraint(unsigned bits) {
  switch (bits) {
  case 16: return "h";
  case 64: return "l";
  default: return "r";
  }
}
} // namespace

void lowerCacheAccess(CallInst *ci, bool store) {
  IRBuilder<> b(ci);
  LLVMContext &ctx = ci->getContext();
  unsigned argBase = store ? 2 : 1;
  auto policy = ir::CachePolicy(cast<ConstantInt>(ci->getArgOperand(argBase))->getZExtValue());
  unsigned bits = unsigned(cast<ConstantInt>(ci->getArgOperand(argBase + 1))->getZExtValue());
  Type *reg = IntegerType::get(ctx, bits == 8 ? 32 : bits);
  // numba-cuda's form: the generic address of global memory, used as a global one
  Value *address = b.CreatePtrToInt(ci->getArgOperand(0), b.getInt64Ty());
  std::string op = std::string(store ? "st" : "ld") + ".global." + ir::cachePolicyName(policy) + ".b" +
                   std::to_string(bits);
  std::string c = constraint(bits);
  if (store) {
    Value *v = b.CreateTrunc(ci->getArgOperand(1), IntegerType::get(ctx, bits));
    v = b.CreateZExtOrBitCast(v, reg);
    auto *fty = FunctionType::get(b.getVoidTy(), {b.getInt64Ty(), reg}, false);
    b.CreateCall(InlineAsm::get(fty, op + " [$0], $1;", "l," + c + ",~{memory}", true), {address, v})
        ->setDebugLoc(ci->getDebugLoc());
    return;
  }
  auto *fty = FunctionType::get(reg, {b.getInt64Ty()}, false);
  CallInst *r =
      b.CreateCall(InlineAsm::get(fty, op + " $0, [$1];", "=" + c + ",l,~{memory}", true), {address});
  r->setDebugLoc(ci->getDebugLoc());
  Value *bitsValue = b.CreateTruncOrBitCast(r, IntegerType::get(ctx, bits));
  ci->replaceAllUsesWith(b.CreateZExt(bitsValue, b.getInt64Ty()));
}

} // namespace cutwin::gpu
