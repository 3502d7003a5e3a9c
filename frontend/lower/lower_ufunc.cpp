// Lowering of NumPy ufuncs in kernels: the scalar operation, and the loop over an output
// array (C order; inputs indexed alike, numbers broadcast) when one is given.
#include "frontend/lower/lowerer.h"

#include "frontend/sema/numpy_ufuncs.h"

#include <llvm/IR/Intrinsics.h>

namespace cutwin::ir {

using namespace llvm;

Value *Lowerer::ufuncScalar(const std::string &name, ArrayRef<Value *> args, ArrayRef<Scalar> argTypes,
                            Scalar out) {
  using K = fe::Ufunc::Kind;
  const fe::Ufunc &u = *fe::numpyUfunc(name);
  Scalar t = argTypes[0];
  switch (u.kind) {
  case K::Math: return mathOp(u.math, args, argTypes, out);
  case K::Operator:
    if (u.op == fe::BinOp::Div && fe::isInteger(t)) // int / int is float64, as in Python
      return fdiv(convertScalar(args[0], t, Scalar::F64), convertScalar(args[1], argTypes[1], Scalar::F64));
    if (u.op == fe::BinOp::Div)
      return fdiv(args[0], args[1]);
    if (u.op == fe::BinOp::Pow)
      return power(args[0], args[1], t, argTypes[1], out);
    return binary(u.op, args[0], args[1], t);
  case K::Negative: return fe::isFloat(t) ? b_.CreateFNeg(args[0]) : b_.CreateNeg(args[0]);
  case K::Absolute:
    if (fe::isFloat(t))
      return b_.CreateUnaryIntrinsic(Intrinsic::fabs, args[0]);
    if (!fe::isSigned(t))
      return args[0];
    return b_.CreateSelect(b_.CreateICmpSLT(args[0], ConstantInt::get(args[0]->getType(), 0)),
                           b_.CreateNeg(args[0]), args[0]);
  default: {
    bool isMax = u.kind == K::Maximum || u.kind == K::FMax;
    Value *a = args[0], *b = args[1];
    Value *pick = compare(isMax ? fe::CmpOp::Gt : fe::CmpOp::Lt, a, b, t);
    Value *r = b_.CreateSelect(pick, a, b);
    if (!fe::isFloat(t))
      return r;
    Value *aNan = b_.CreateFCmpUNO(a, a), *bNan = b_.CreateFCmpUNO(b, b);
    if (u.kind == K::Maximum || u.kind == K::Minimum) // NaN propagates
      return b_.CreateSelect(aNan, a, b_.CreateSelect(bNan, b, r));
    return b_.CreateSelect(aNan, b, b_.CreateSelect(bNan, a, r)); // fmax/fmin: NaN is ignored
  }
  }
}

Value *Lowerer::lowerUfuncCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  bool withOut = ci.builtin.rfind("numpy.out.", 0) == 0;
  std::string name = ci.builtin.substr(withOut ? 10 : 6);
  std::vector<Scalar> argTypes(ci.operandTypes.begin(), ci.operandTypes.end() - 1);
  Scalar res = ci.operandTypes.back();
  size_t nin = argTypes.size();
  if (!withOut) {
    std::vector<Value *> args;
    for (size_t i = 0; i < nin; ++i)
      args.push_back(lowerAs(*c.args[i], Type::scalarOf(argTypes[i])));
    setLoc(c.loc);
    return ufuncScalar(name, args, argTypes, res);
  }
  // The output array and the inputs, evaluated once; numbers converted once.
  const Type &ot = info(*c.args[nin]).type;
  Value *outArr = lowerExpr(*c.args[nin]);
  std::vector<Value *> inputs;
  std::vector<const Type *> inTypes;
  for (size_t i = 0; i < nin; ++i) {
    const Type &t = info(*c.args[i]).type;
    inTypes.push_back(&t);
    inputs.push_back(t.isArray() ? lowerExpr(*c.args[i]) : lowerAs(*c.args[i], Type::scalarOf(argTypes[i])));
  }
  setLoc(c.loc);
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  Value *total = ConstantInt::get(i64, 1);
  for (unsigned d = 0; d < ot.ndim; ++d)
    total = b_.CreateMul(total, arrayField(outArr, 1, d));
  BasicBlock *pre = b_.GetInsertBlock();
  BasicBlock *body = BasicBlock::Create(ctx_, "ufunc.body", fn_);
  BasicBlock *done = BasicBlock::Create(ctx_, "ufunc.done", fn_);
  b_.CreateCondBr(b_.CreateICmpSGT(total, ConstantInt::get(i64, 0)), body, done);
  b_.SetInsertPoint(body);
  PHINode *k = b_.CreatePHI(i64, 2, "ufunc.k");
  k->addIncoming(ConstantInt::get(i64, 0), pre);
  // k in C order -> (i0, i1, i2) over the output's shape
  std::vector<Value *> idx(ot.ndim);
  Value *rest = k;
  for (unsigned d = ot.ndim; d-- > 0;) {
    Value *extent = arrayField(outArr, 1, d);
    idx[d] = d == 0 ? rest : b_.CreateURem(rest, extent);
    if (d > 0)
      rest = b_.CreateUDiv(rest, extent);
  }
  std::vector<Scalar> idxTypes(ot.ndim, Scalar::I64);
  std::vector<Value *> vals;
  for (size_t i = 0; i < nin; ++i) {
    if (!inTypes[i]->isArray()) {
      vals.push_back(inputs[i]);
      continue;
    }
    Value *v = loadElement(elementAddress(inputs[i], *inTypes[i], idx, idxTypes, c.loc), inTypes[i]->scalar);
    vals.push_back(convertScalar(v, inTypes[i]->scalar, argTypes[i]));
  }
  Value *r = ufuncScalar(name, vals, argTypes, res);
  storeElement(elementAddress(outArr, ot, idx, idxTypes, c.loc), convertScalar(r, res, ot.scalar), ot.scalar);
  Value *next = b_.CreateAdd(k, ConstantInt::get(i64, 1));
  k->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpSLT(next, total), body, done);
  b_.SetInsertPoint(done);
  return outArr;
}

} // namespace cutwin::ir
