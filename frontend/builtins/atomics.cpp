// cuda.atomic.*: read-modify-write of one array element, returning its old value. numba's
// forms: op(ary, idx, val); cas(ary, idx, old, val); compare_and_swap(ary, old, val) on
// element 0. Relaxed (monotonic) atomics as CUDA's atom instructions are; the simulator's
// blocks run in parallel, so these are real atomic instructions there too.
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerAtomicBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {
enum class AtomicOp : unsigned {
  Add,
  Sub,
  And,
  Or,
  Xor,
  Exch,
  Max,
  Min,
  NanMax,
  NanMin,
  Inc,
  Dec,
  Cas,
  Cas0
};
}

namespace fe {

ExprInfo typeAtomicBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                           const Builtin &b);

using S = Scalar;

std::span<const Builtin> atomicBuiltins() {
  auto row = [](const char *name, AtomicOp op) {
    return Builtin{name, unsigned(op), &typeAtomicBuiltin, &ir::lowerAtomicBuiltin};
  };
  static const Builtin table[] = {
      row("cuda.atomic.add", AtomicOp::Add),       row("cuda.atomic.sub", AtomicOp::Sub),
      row("cuda.atomic.and_", AtomicOp::And),      row("cuda.atomic.or_", AtomicOp::Or),
      row("cuda.atomic.xor", AtomicOp::Xor),       row("cuda.atomic.exch", AtomicOp::Exch),
      row("cuda.atomic.max", AtomicOp::Max),       row("cuda.atomic.min", AtomicOp::Min),
      row("cuda.atomic.nanmax", AtomicOp::NanMax), row("cuda.atomic.nanmin", AtomicOp::NanMin),
      row("cuda.atomic.inc", AtomicOp::Inc),       row("cuda.atomic.dec", AtomicOp::Dec),
      row("cuda.atomic.cas", AtomicOp::Cas),       row("cuda.atomic.compare_and_swap", AtomicOp::Cas0),
  };
  return table;
}

ExprInfo typeAtomicBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                           const Builtin &b) {
  // The index is an integer or a tuple of one per dimension; values convert to the array's
  // type, and the element's old value is returned.
  AtomicOp op = AtomicOp(b.op);
  std::string what = std::string(b.name) + "()";
  bool cas = op == AtomicOp::Cas, cas0 = op == AtomicOp::Cas0;
  size_t arity = cas ? 4 : 3;
  if (args.size() != arity)
    cx.error(c.loc, what + " takes " + std::to_string(arity) + " arguments, " + std::to_string(args.size()) +
                        " given");
  const Type &at = args[0].type;
  if (!at.isArray() || at.isRecordArray() || at.pointer)
    cx.error(c.args[0]->loc, what + " needs an array as its first argument, not " + at.str());
  if (at.space == MemSpace::Const)
    cx.error(c.args[0]->loc, what + ": the array is read-only (constant memory)");
  S t = at.scalar;
  bool isInt = t == S::I32 || t == S::I64 || t == S::U32 || t == S::U64;
  bool isFloat = t == S::F32 || t == S::F64;
  bool ok = isInt; // and_ or_ xor exch cas
  switch (op) {
  case AtomicOp::Add:
  case AtomicOp::Sub:
  case AtomicOp::Max:
  case AtomicOp::Min:
  case AtomicOp::NanMax:
  case AtomicOp::NanMin: ok = isInt || isFloat; break;
  case AtomicOp::Inc:
  case AtomicOp::Dec: ok = t == S::U32 || t == S::U64; break;
  case AtomicOp::And:
  case AtomicOp::Or:
  case AtomicOp::Xor:
  case AtomicOp::Exch:
  case AtomicOp::Cas:
  case AtomicOp::Cas0: break;
  }
  if (!ok)
    cx.error(c.args[0]->loc, what + " does not support arrays of " + scalarName(t));
  ExprInfo info;
  info.type = Type::scalarOf(t);
  if (cas0) {
    if (at.ndim != 1)
      cx.error(c.args[0]->loc, what + " works on element 0 of a 1-D array");
  } else {
    const Type &it = args[1].type;
    if (it.isScalar() && isInteger(it.scalar) && at.ndim == 1) {
      info.operandTypes.push_back(it.scalar);
    } else if (it.isTuple() && it.elems.size() == at.ndim) {
      for (auto &e : it.elems) {
        if (!e.isScalar() || !isInteger(e.scalar))
          cx.error(c.args[1]->loc, what + ": indices must be integers, not " + e.str());
        info.operandTypes.push_back(e.scalar);
      }
    } else {
      cx.error(c.args[1]->loc, what + ": the index of a " + std::to_string(at.ndim) +
                                   "-D array is an integer per dimension, not " + it.str());
    }
  }
  for (size_t i = cas0 ? 1 : 2; i < args.size(); ++i) {
    if (!args[i].type.isScalar() || isComplex(args[i].type.scalar))
      cx.error(c.args[i]->loc, what + ": values are numbers, not " + args[i].type.str());
    info.operandTypes.push_back(t);
  }
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

static Value *floatAtomicExtreme(LoweringContext &cx, bool isMax, bool nanAware, Value *addr, Value *v,
                                 Scalar t);

Value *lowerAtomicBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  AtomicOp op = AtomicOp(ci.function->op);
  const Type &at = cx.info(*c.args[0]).type;
  Scalar t = at.scalar;
  Value *arr = cx.lowerExpr(*c.args[0]);
  std::vector<Value *> idx;
  std::vector<Scalar> idxTypes;
  size_t next = 1; // first value argument
  auto *i64 = llvm::Type::getInt64Ty(cx.context());
  if (op == AtomicOp::Cas0) { // element 0
    idx.push_back(ConstantInt::get(i64, 0));
    idxTypes.push_back(Scalar::I64);
  } else {
    const fe::Expr &ie = *c.args[1];
    const Type &it = cx.info(ie).type;
    Value *iv = cx.lowerExpr(ie);
    if (it.isTuple())
      for (unsigned k = 0; k < it.elems.size(); ++k)
        idx.push_back(irb.CreateExtractValue(iv, {k}));
    else
      idx.push_back(iv);
    idxTypes.assign(ci.operandTypes.begin(), ci.operandTypes.begin() + idx.size());
    next = 2;
  }
  std::vector<Value *> vals;
  for (size_t i = next; i < c.args.size(); ++i)
    vals.push_back(cx.lowerAs(*c.args[i], Type::scalarOf(t)));
  Value *addr = cx.elementAddress(arr, at, idx, idxTypes, c.loc);
  cx.setLoc(c.loc);
  MaybeAlign align(fe::byteSize(t));
  const auto ord = AtomicOrdering::Monotonic;
  if (op == AtomicOp::Cas || op == AtomicOp::Cas0) {
    Value *pair = irb.CreateAtomicCmpXchg(addr, vals[0], vals[1], align, ord, ord);
    return irb.CreateExtractValue(pair, {0});
  }
  bool isFloat = fe::isFloat(t), isSigned = fe::isSigned(t);
  Value *v = vals[0];
  AtomicRMWInst::BinOp max = isSigned ? AtomicRMWInst::Max : AtomicRMWInst::UMax;
  AtomicRMWInst::BinOp min = isSigned ? AtomicRMWInst::Min : AtomicRMWInst::UMin;
  AtomicRMWInst::BinOp rmw = AtomicRMWInst::Xchg;
  switch (op) {
  case AtomicOp::Max:
  case AtomicOp::Min:
  case AtomicOp::NanMax:
  case AtomicOp::NanMin: { // integers have no NaN: the nan-aware forms are max/min there
    bool isMax = op == AtomicOp::Max || op == AtomicOp::NanMax;
    if (isFloat)
      return floatAtomicExtreme(cx, isMax, op == AtomicOp::NanMax || op == AtomicOp::NanMin, addr, v, t);
    rmw = isMax ? max : min;
    break;
  }
  case AtomicOp::Add: rmw = isFloat ? AtomicRMWInst::FAdd : AtomicRMWInst::Add; break;
  case AtomicOp::Sub:
    rmw = isFloat ? AtomicRMWInst::FAdd : AtomicRMWInst::Sub;
    if (isFloat)
      v = irb.CreateFNeg(v); // x - v is x + (-v), exactly
    break;
  case AtomicOp::And: rmw = AtomicRMWInst::And; break;
  case AtomicOp::Or: rmw = AtomicRMWInst::Or; break;
  case AtomicOp::Xor: rmw = AtomicRMWInst::Xor; break;
  case AtomicOp::Exch: rmw = AtomicRMWInst::Xchg; break;
  case AtomicOp::Inc: rmw = AtomicRMWInst::UIncWrap; break; // old >= v ? 0 : old + 1
  case AtomicOp::Dec: rmw = AtomicRMWInst::UDecWrap; break; // old == 0 || old > v ? v : old - 1
  case AtomicOp::Cas:
  case AtomicOp::Cas0: break; // above
  }
  return irb.CreateAtomicRMW(rmw, addr, v, align, ord);
}

static Value *floatAtomicExtreme(LoweringContext &cx, bool isMax, bool nanAware, Value *addr, Value *v,
                                 Scalar t) {
  IRBuilder<> &irb = cx.builder();
  // numba's semantics: max/min leave the element when it or the value is NaN; nanmax/
  // nanmin ignore a NaN value and replace a NaN element. A compare-and-swap loop on the
  // bits, retried while the element still loses to the value.
  llvm::Type *ft = cx.scalarType(t);
  llvm::Type *it = llvm::Type::getIntNTy(cx.context(), fe::bitWidth(t));
  MaybeAlign align(fe::byteSize(t));
  const auto ord = AtomicOrdering::Monotonic;
  BasicBlock *entry = irb.GetInsertBlock();
  auto *check = BasicBlock::Create(cx.context(), "atomic.check", &cx.function());
  auto *attempt = BasicBlock::Create(cx.context(), "atomic.attempt", &cx.function());
  auto *done = BasicBlock::Create(cx.context(), "atomic.done", &cx.function());
  LoadInst *first = irb.CreateAlignedLoad(ft, addr, align, true, "atomic.first");
  Value *skip = nanAware ? irb.CreateFCmpUNO(v, v) : irb.CreateFCmpUNO(v, first);
  irb.CreateCondBr(skip, done, check);
  irb.SetInsertPoint(check);
  PHINode *old = irb.CreatePHI(ft, 2, "atomic.old");
  old->addIncoming(first, entry);
  // Loses: old < v (max) / old > v (min), or old is NaN for the nan-aware forms.
  Value *loses = isMax ? (nanAware ? irb.CreateFCmpULT(old, v) : irb.CreateFCmpOLT(old, v))
                       : (nanAware ? irb.CreateFCmpUGT(old, v) : irb.CreateFCmpOGT(old, v));
  irb.CreateCondBr(loses, attempt, done);
  irb.SetInsertPoint(attempt);
  Value *pair =
      irb.CreateAtomicCmpXchg(addr, irb.CreateBitCast(old, it), irb.CreateBitCast(v, it), align, ord, ord);
  Value *seen = irb.CreateBitCast(irb.CreateExtractValue(pair, {0}), ft);
  old->addIncoming(seen, attempt);
  irb.CreateCondBr(irb.CreateExtractValue(pair, {1}), done, check);
  irb.SetInsertPoint(done);
  PHINode *result = irb.CreatePHI(ft, 3, "atomic.result");
  result->addIncoming(first, entry);
  result->addIncoming(old, check);
  result->addIncoming(old, attempt);
  return result;
}

} // namespace ir
} // namespace cutwin
