#include "frontend/ir/inline_calls.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <vector>

namespace cutwin::ir {

using namespace llvm;

unsigned inlineMarkedCalls(Module &m) {
  unsigned inlined = 0;
  // Calls inlined may bring calls of other marked functions into their callers: repeat
  // until none is left (each round inlines at least one call, or stops).
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<CallBase *> calls;
    for (Function &f : m)
      if (f.hasFnAttribute(kInlineAttribute) && !f.isDeclaration())
        for (User *u : f.users())
          if (auto *call = dyn_cast<CallBase>(u);
              call && call->getCalledFunction() == &f && call->getFunction() != &f) // not its own recursion
            calls.push_back(call);
    for (CallBase *call : calls) {
      InlineFunctionInfo info;
      if (InlineFunction(*call, info).isSuccess()) {
        ++inlined;
        changed = true;
      }
    }
  }
  std::vector<Function *> unused;
  for (Function &f : m) {
    if (!f.hasFnAttribute(kInlineAttribute))
      continue;
    f.removeFnAttr(kInlineAttribute);
    if (f.use_empty() && f.hasLocalLinkage())
      unused.push_back(&f);
  }
  for (Function *f : unused)
    f->eraseFromParent();
  return inlined;
}

} // namespace cutwin::ir
