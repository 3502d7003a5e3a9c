// cuda.atomic.*: read-modify-write of one array element, returning its old value. Relaxed
// (monotonic) atomics as CUDA's atom instructions are; the simulator's blocks run in
// parallel, so these are real atomic instructions there too.
#include "frontend/lower/lowerer.h"

namespace cutwin::ir {

using namespace llvm;

Value *Lowerer::lowerAtomicCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  const std::string op = ci.builtin.substr(12);
  const Type &at = info(*c.args[0]).type;
  Scalar t = at.scalar;
  Value *arr = lowerExpr(*c.args[0]);
  std::vector<Value *> idx;
  std::vector<Scalar> idxTypes;
  size_t next = 1; // first value argument
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  if (op == "compare_and_swap") { // element 0
    idx.push_back(ConstantInt::get(i64, 0));
    idxTypes.push_back(Scalar::I64);
  } else {
    const fe::Expr &ie = *c.args[1];
    const Type &it = info(ie).type;
    Value *iv = lowerExpr(ie);
    if (it.isTuple())
      for (unsigned k = 0; k < it.elems.size(); ++k)
        idx.push_back(b_.CreateExtractValue(iv, {k}));
    else
      idx.push_back(iv);
    idxTypes.assign(ci.operandTypes.begin(), ci.operandTypes.begin() + idx.size());
    next = 2;
  }
  std::vector<Value *> vals;
  for (size_t i = next; i < c.args.size(); ++i)
    vals.push_back(lowerAs(*c.args[i], Type::scalarOf(t)));
  Value *addr = elementAddress(arr, at, idx, idxTypes, c.loc);
  setLoc(c.loc);
  MaybeAlign align(fe::byteSize(t));
  const auto ord = AtomicOrdering::Monotonic;
  if (op == "cas" || op == "compare_and_swap") {
    Value *pair = b_.CreateAtomicCmpXchg(addr, vals[0], vals[1], align, ord, ord);
    return b_.CreateExtractValue(pair, {0});
  }
  bool isFloat = fe::isFloat(t), isSigned = fe::isSigned(t);
  Value *v = vals[0];
  bool extreme = op == "max" || op == "min" || op == "nanmax" || op == "nanmin";
  if (extreme && isFloat)
    return floatAtomicExtreme(op, addr, v, t);
  if (op == "nanmax" || op == "nanmin") // integers have no NaN
    return b_.CreateAtomicRMW(op == "nanmax" ? (isSigned ? AtomicRMWInst::Max : AtomicRMWInst::UMax)
                                             : (isSigned ? AtomicRMWInst::Min : AtomicRMWInst::UMin),
                              addr, v, align, ord);
  AtomicRMWInst::BinOp rmw;
  if (op == "add")
    rmw = isFloat ? AtomicRMWInst::FAdd : AtomicRMWInst::Add;
  else if (op == "sub") {
    rmw = isFloat ? AtomicRMWInst::FAdd : AtomicRMWInst::Sub;
    if (isFloat)
      v = b_.CreateFNeg(v); // x - v is x + (-v), exactly
  } else if (op == "and_")
    rmw = AtomicRMWInst::And;
  else if (op == "or_")
    rmw = AtomicRMWInst::Or;
  else if (op == "xor")
    rmw = AtomicRMWInst::Xor;
  else if (op == "exch")
    rmw = AtomicRMWInst::Xchg;
  else if (op == "max")
    rmw = isSigned ? AtomicRMWInst::Max : AtomicRMWInst::UMax;
  else if (op == "min")
    rmw = isSigned ? AtomicRMWInst::Min : AtomicRMWInst::UMin;
  else if (op == "inc") // old >= v ? 0 : old + 1
    rmw = AtomicRMWInst::UIncWrap;
  else if (op == "dec") // old == 0 || old > v ? v : old - 1
    rmw = AtomicRMWInst::UDecWrap;
  else
    throw Error("internal error: cuda.atomic." + op + " not lowered");
  return b_.CreateAtomicRMW(rmw, addr, v, align, ord);
}

Value *Lowerer::floatAtomicExtreme(const std::string &op, Value *addr, Value *v, Scalar t) {
  // numba's semantics: max/min leave the element when it or the value is NaN; nanmax/
  // nanmin ignore a NaN value and replace a NaN element. A compare-and-swap loop on the
  // bits, retried while the element still loses to the value.
  bool isMax = op == "max" || op == "nanmax", nanAware = op == "nanmax" || op == "nanmin";
  llvm::Type *ft = scalarType(t);
  llvm::Type *it = llvm::Type::getIntNTy(ctx_, fe::bitWidth(t));
  MaybeAlign align(fe::byteSize(t));
  const auto ord = AtomicOrdering::Monotonic;
  BasicBlock *entry = b_.GetInsertBlock();
  auto *check = BasicBlock::Create(ctx_, "atomic.check", fn_);
  auto *attempt = BasicBlock::Create(ctx_, "atomic.attempt", fn_);
  auto *done = BasicBlock::Create(ctx_, "atomic.done", fn_);
  LoadInst *first = b_.CreateAlignedLoad(ft, addr, align, true, "atomic.first");
  Value *skip = nanAware ? b_.CreateFCmpUNO(v, v) : b_.CreateFCmpUNO(v, first);
  b_.CreateCondBr(skip, done, check);
  b_.SetInsertPoint(check);
  PHINode *old = b_.CreatePHI(ft, 2, "atomic.old");
  old->addIncoming(first, entry);
  // Loses: old < v (max) / old > v (min), or old is NaN for the nan-aware forms.
  Value *loses = isMax ? (nanAware ? b_.CreateFCmpULT(old, v) : b_.CreateFCmpOLT(old, v))
                       : (nanAware ? b_.CreateFCmpUGT(old, v) : b_.CreateFCmpOGT(old, v));
  b_.CreateCondBr(loses, attempt, done);
  b_.SetInsertPoint(attempt);
  Value *pair =
      b_.CreateAtomicCmpXchg(addr, b_.CreateBitCast(old, it), b_.CreateBitCast(v, it), align, ord, ord);
  Value *seen = b_.CreateBitCast(b_.CreateExtractValue(pair, {0}), ft);
  old->addIncoming(seen, attempt);
  b_.CreateCondBr(b_.CreateExtractValue(pair, {1}), done, check);
  b_.SetInsertPoint(done);
  PHINode *result = b_.CreatePHI(ft, 3, "atomic.result");
  result->addIncoming(first, entry);
  result->addIncoming(old, check);
  result->addIncoming(old, attempt);
  return result;
}

} // namespace cutwin::ir
