#include "frontend/lower/datetime.h"

#include "cutwin/errors.h"

#include <limits>

namespace cutwin::ir {

using fe::Scalar;
using llvm::Value;

namespace {

constexpr int64_t kNaT = std::numeric_limits<int64_t>::min();

/// How many of unit u + 1 make one of unit u (0 between months and weeks: no fixed ratio).
constexpr int64_t kFiner[] = {12, 0, 7, 24, 60, 60, 1000, 1000, 1000};

Value *isNaT(llvm::IRBuilderBase &b, Value *v) { return b.CreateICmpEQ(v, b.getInt64(uint64_t(kNaT))); }

} // namespace

Value *convertTime(llvm::IRBuilderBase &b, Value *v, Scalar from, Scalar to) {
  if (from == to)
    return v;
  bool sameKind = fe::sameTimeKind(from, to);
  unsigned f = unsigned(fe::timeUnit(from)), t = sameKind ? unsigned(fe::timeUnit(to)) : 0;
  int64_t factor = 1;
  for (unsigned u = f; sameKind && u < t; ++u)
    factor = kFiner[u] ? factor * kFiner[u] : 0;
  if (!sameKind || t < f || factor == 0)
    throw Error(std::string("internal error: no conversion of ") + fe::scalarName(from) + " to " +
                fe::scalarName(to));
  return b.CreateSelect(isNaT(b, v), v, b.CreateMul(v, b.getInt64(uint64_t(factor))));
}

Value *timeBinary(llvm::IRBuilderBase &b, fe::BinOp op, Value *l, Value *r, Scalar la, Scalar rb,
                  Scalar res) {
  Value *nat = fe::isTime(la) && fe::isTime(rb) ? b.CreateOr(isNaT(b, l), isNaT(b, r))
                                                : isNaT(b, fe::isTime(la) ? l : r);
  if (op == fe::BinOp::Div) { // timedelta / timedelta: a float64, NaN with NaT
    Value *q = b.CreateFDiv(b.CreateSIToFP(l, b.getDoubleTy()), b.CreateSIToFP(r, b.getDoubleTy()));
    return b.CreateSelect(nat, llvm::ConstantFP::getNaN(b.getDoubleTy()), q);
  }
  Value *v = op == fe::BinOp::Add   ? b.CreateAdd(l, r)
             : op == fe::BinOp::Sub ? b.CreateSub(l, r)
                                    : b.CreateMul(l, r);
  if (op != fe::BinOp::Add && op != fe::BinOp::Sub && op != fe::BinOp::Mul)
    throw Error(std::string("internal error: no ") + fe::binOpSymbol(op) + " of " + fe::scalarName(la) +
                " and " + fe::scalarName(rb) + " giving " + fe::scalarName(res));
  return b.CreateSelect(nat, b.getInt64(uint64_t(kNaT)), v);
}

Value *timeCompare(llvm::IRBuilderBase &b, fe::CmpOp op, Value *l, Value *r) {
  Value *nat = b.CreateOr(isNaT(b, l), isNaT(b, r));
  Value *c;
  switch (op) {
  case fe::CmpOp::Eq: c = b.CreateICmpEQ(l, r); break;
  case fe::CmpOp::NotEq: return b.CreateOr(nat, b.CreateICmpNE(l, r)); // NaT != anything
  case fe::CmpOp::Lt: c = b.CreateICmpSLT(l, r); break;
  case fe::CmpOp::LtE: c = b.CreateICmpSLE(l, r); break;
  case fe::CmpOp::Gt: c = b.CreateICmpSGT(l, r); break;
  case fe::CmpOp::GtE: c = b.CreateICmpSGE(l, r); break;
  case fe::CmpOp::Is:
  case fe::CmpOp::IsNot:
  case fe::CmpOp::In:
  case fe::CmpOp::NotIn: throw Error("internal error: a datetime comparison the typer does not allow");
  }
  return b.CreateAnd(b.CreateNot(nat), c);
}

} // namespace cutwin::ir
