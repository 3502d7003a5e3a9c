#include "frontend/ir/contract_fma.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <map>
#include <set>
#include <vector>

namespace cutwin::ir {

using namespace llvm;

namespace {

bool isAddOrSub(const Instruction *i) {
  return i->getOpcode() == Instruction::FAdd || i->getOpcode() == Instruction::FSub;
}

BinaryOperator *asMul(Value *v) {
  auto *m = dyn_cast<BinaryOperator>(v);
  return m && m->getOpcode() == Instruction::FMul ? m : nullptr;
}

/// Replaces `add` (an fadd/fsub with operand `which` a product) by an fma.
void fuse(BinaryOperator *add, unsigned which) {
  IRBuilder<> b(add);
  b.setFastMathFlags(add->getFastMathFlags());
  auto *mul = cast<BinaryOperator>(add->getOperand(which));
  Value *x = mul->getOperand(0), *y = mul->getOperand(1);
  Value *other = add->getOperand(1 - which);
  bool sub = add->getOpcode() == Instruction::FSub;
  if (sub && which == 0)
    other = b.CreateFNeg(other); // a*b - c = fma(a, b, -c)
  if (sub && which == 1)
    x = b.CreateFNeg(x); // c - a*b = fma(-a, b, c)
  Value *fma = b.CreateIntrinsic(Intrinsic::fma, {add->getType()}, {x, y, other});
  if (auto *fi = dyn_cast<Instruction>(fma))
    fi->setDebugLoc(add->getDebugLoc());
  add->replaceAllUsesWith(fma);
  add->eraseFromParent();
  if (mul->use_empty())
    mul->eraseFromParent();
}

} // namespace

unsigned contractMultiplyAdds(Module &m) {
  unsigned count = 0;
  for (Function &f : m) {
    // Candidates: products all of whose uses are additions or subtractions.
    std::set<BinaryOperator *> candidates;
    std::vector<BinaryOperator *> adds;
    for (BasicBlock &bb : f)
      for (Instruction &i : bb) {
        auto *bo = dyn_cast<BinaryOperator>(&i);
        if (!bo || !bo->getType()->isFloatingPointTy())
          continue;
        if (isAddOrSub(bo))
          adds.push_back(bo);
        if (bo->getOpcode() == Instruction::FMul && llvm::all_of(bo->users(), [](User *u) {
              return isa<Instruction>(u) && isAddOrSub(cast<Instruction>(u));
            }))
          candidates.insert(bo);
      }
    // Each addition picks a candidate operand (left first); a candidate that some user
    // did not pick would survive fusion, so it is dropped, until nothing changes.
    std::map<BinaryOperator *, unsigned> choice;
    for (bool changed = true; changed;) {
      changed = false;
      choice.clear();
      for (BinaryOperator *add : adds)
        for (unsigned k = 0; k < 2; ++k)
          if (auto *mul = asMul(add->getOperand(k)); mul && candidates.count(mul)) {
            choice[add] = k;
            break;
          }
      for (auto it = candidates.begin(); it != candidates.end();) {
        bool all = llvm::all_of((*it)->users(), [&](User *u) {
          auto c = choice.find(cast<BinaryOperator>(u));
          return c != choice.end() && c->first->getOperand(c->second) == *it;
        });
        if (all) {
          ++it;
        } else {
          it = candidates.erase(it);
          changed = true;
        }
      }
    }
    for (auto &[add, k] : choice) {
      fuse(add, k);
      ++count;
    }
  }
  return count;
}

} // namespace cutwin::ir
