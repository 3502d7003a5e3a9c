#include "backend_sim/address_spaces.h"

#include "backend_sim/block_uniformity.h"

#include <llvm/Analysis/ValueTracking.h>
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

enum class Memory { Unknown, Global, Shared };

/// Which memory `p` points into in kernel `f`, by where it comes from (offsets and casts
/// aside): a global array argument of the kernel, or the block's shared memory (the
/// context's field 4). Not by its address space: a shared array passed where a device
/// function's signature declares an array converts to the global space.
Memory memoryOf(Value *p, Function &f) {
  Value *base = getUnderlyingObject(p, 0);
  if (auto *a = dyn_cast<Argument>(base);
      a && a->getParent() == &f && a->getType()->isPointerTy() && a->getType()->getPointerAddressSpace() == 1)
    return Memory::Global;
  if (auto *l = dyn_cast<LoadInst>(base);
      l && f.arg_size() && contextField(l->getPointerOperand(), f.getArg(0)) == 4)
    return Memory::Shared;
  return Memory::Unknown;
}

} // namespace

void markAddressSpaces(Module &m) {
  LLVMContext &c = m.getContext();
  MDBuilder md(c);
  MDNode *domain = md.createAnonymousAliasScopeDomain("cutwin.address.spaces");
  MDNode *global = MDNode::get(c, {md.createAnonymousAliasScope(domain, "global memory")});
  MDNode *shared = MDNode::get(c, {md.createAnonymousAliasScope(domain, "shared memory")});
  NamedMDNode *kernels = m.getNamedMetadata("cutwin.kernels");
  for (unsigned k = 0; kernels && k < kernels->getNumOperands(); ++k) {
    MDNode *entry = kernels->getOperand(k);
    auto *f =
        entry->getNumOperands() ? mdconst::dyn_extract_or_null<Function>(entry->getOperand(0)) : nullptr;
    if (!f || f->isDeclaration())
      continue;
    for (BasicBlock &b : *f)
      for (Instruction &i : b) {
        Value *p = accessedPointer(i);
        Memory where = p ? memoryOf(p, *f) : Memory::Unknown;
        if (where == Memory::Unknown)
          continue;
        MDNode *own = where == Memory::Global ? global : shared;
        MDNode *other = where == Memory::Global ? shared : global;
        i.setMetadata(LLVMContext::MD_alias_scope,
                      MDNode::concatenate(i.getMetadata(LLVMContext::MD_alias_scope), own));
        i.setMetadata(LLVMContext::MD_noalias,
                      MDNode::concatenate(i.getMetadata(LLVMContext::MD_noalias), other));
      }
  }
}

} // namespace cutwin::sim
