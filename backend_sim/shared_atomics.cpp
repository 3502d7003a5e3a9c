#include "backend_sim/shared_atomics.h"

#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Utils/LowerAtomic.h>

#include <vector>

namespace cutwin::sim {

using namespace llvm;

namespace {
constexpr unsigned kShared = 3; ///< the kernel IR's shared-memory address space
}

void plainSharedAtomics(Module &m) {
  std::vector<AtomicRMWInst *> updates;
  std::vector<AtomicCmpXchgInst *> exchanges;
  for (Function &f : m)
    for (BasicBlock &b : f)
      for (Instruction &i : b) {
        if (auto *u = dyn_cast<AtomicRMWInst>(&i); u && u->getPointerAddressSpace() == kShared)
          updates.push_back(u);
        if (auto *x = dyn_cast<AtomicCmpXchgInst>(&i); x && x->getPointerAddressSpace() == kShared)
          exchanges.push_back(x);
      }
  for (AtomicRMWInst *u : updates)
    lowerAtomicRMWInst(u);
  for (AtomicCmpXchgInst *x : exchanges)
    lowerAtomicCmpXchgInst(x);
}

} // namespace cutwin::sim
