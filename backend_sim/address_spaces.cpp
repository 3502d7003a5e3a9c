#include "backend_sim/address_spaces.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>

namespace cutwin::sim {

using namespace llvm;

namespace {

/// The pointer a memory access goes through (null for other instructions, and for calls:
/// they may reach anything).
Value *accessedPointer(Instruction &i) {
  if (auto *l = dyn_cast<LoadInst>(&i))
    return l->getPointerOperand();
  if (auto *s = dyn_cast<StoreInst>(&i))
    return s->getPointerOperand();
  if (auto *a = dyn_cast<AtomicRMWInst>(&i))
    return a->getPointerOperand();
  if (auto *x = dyn_cast<AtomicCmpXchgInst>(&i))
    return x->getPointerOperand();
  return nullptr;
}

} // namespace

void markAddressSpaces(Module &m) {
  LLVMContext &c = m.getContext();
  MDBuilder md(c);
  MDNode *domain = md.createAnonymousAliasScopeDomain("cutwin.address.spaces");
  MDNode *global = MDNode::get(c, {md.createAnonymousAliasScope(domain, "global memory")});
  MDNode *shared = MDNode::get(c, {md.createAnonymousAliasScope(domain, "shared memory")});
  for (Function &f : m)
    for (BasicBlock &b : f)
      for (Instruction &i : b) {
        Value *p = accessedPointer(i);
        unsigned space = p ? p->getType()->getPointerAddressSpace() : 0;
        if (space != 1 && space != 3)
          continue;
        MDNode *own = space == 1 ? global : shared;
        MDNode *other = space == 1 ? shared : global;
        i.setMetadata(LLVMContext::MD_alias_scope,
                      MDNode::concatenate(i.getMetadata(LLVMContext::MD_alias_scope), own));
        i.setMetadata(LLVMContext::MD_noalias,
                      MDNode::concatenate(i.getMetadata(LLVMContext::MD_noalias), other));
      }
}

} // namespace cutwin::sim
