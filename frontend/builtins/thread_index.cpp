// Where a thread is: cuda.grid(n), cuda.gridsize(n), cuda.lanemask_lt().
#include "frontend/builtins/builtin.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerThreadIndexBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {
enum class ThreadIndexOp : unsigned { Grid, Gridsize, LanemaskLt };
}

namespace fe {

ExprInfo typeThreadIndexBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                                const Builtin &b);

std::span<const Builtin> threadIndexBuiltins() {
  static const Builtin table[] = {
      {"cuda.grid", unsigned(ThreadIndexOp::Grid), &typeThreadIndexBuiltin, &ir::lowerThreadIndexBuiltin},
      {"cuda.gridsize", unsigned(ThreadIndexOp::Gridsize), &typeThreadIndexBuiltin,
       &ir::lowerThreadIndexBuiltin},
      {"cuda.lanemask_lt", unsigned(ThreadIndexOp::LanemaskLt), &typeThreadIndexBuiltin,
       &ir::lowerThreadIndexBuiltin},
  };
  return table;
}

ExprInfo typeThreadIndexBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                                const Builtin &b) {
  ExprInfo info;
  switch (ThreadIndexOp(b.op)) {
  case ThreadIndexOp::Grid:
  case ThreadIndexOp::Gridsize: {
    cx.checkArity(c, b.name, args.size(), 1, 1);
    auto n = cx.constInt(*c.args[0]);
    if (!n || *n < 1 || *n > 3)
      cx.error(c.args[0]->loc,
               std::string(b.name) + "() takes a constant 1, 2 or 3 (numba: RequireLiteralValue)");
    info.type =
        *n == 1 ? Type::scalarOf(Scalar::I64) : Type::uniTuple(Type::scalarOf(Scalar::I64), unsigned(*n));
    info.constant = ConstValue::ofInt(*n);
    return info;
  }
  case ThreadIndexOp::LanemaskLt: // the lanes below this one: (1 << laneid) - 1
    cx.checkArity(c, b.name, args.size(), 0, 0);
    info.type = Type::scalarOf(Scalar::U32);
    return info;
  }
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *lowerThreadIndexBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  auto *i64 = llvm::Type::getInt64Ty(cx.context());
  auto reg = [&](Intrinsic id) { return irb.CreateSExt(irb.CreateCall(getIntrinsic(cx.module(), id)), i64); };
  switch (ThreadIndexOp(ci.function->op)) {
  case ThreadIndexOp::Grid:
  case ThreadIndexOp::Gridsize: {
    bool grid = ThreadIndexOp(ci.function->op) == ThreadIndexOp::Grid;
    unsigned n = unsigned(ci.constant->i);
    std::vector<Value *> vals;
    for (unsigned d = 0; d < n; ++d) { // one statement per read: the IR keeps this order
      if (grid) {
        Value *tid = reg(threadIdxIntrinsic(d));
        Value *ntid = reg(blockDimIntrinsic(d));
        Value *ctaid = reg(blockIdxIntrinsic(d));
        vals.push_back(irb.CreateAdd(irb.CreateMul(ntid, ctaid), tid));
      } else {
        Value *ntid = reg(blockDimIntrinsic(d));
        Value *nctaid = reg(gridDimIntrinsic(d));
        vals.push_back(irb.CreateMul(ntid, nctaid));
      }
    }
    if (n == 1)
      return vals[0];
    Value *agg = UndefValue::get(cx.llvmType(ci.type));
    for (unsigned d = 0; d < n; ++d)
      agg = irb.CreateInsertValue(agg, vals[d], {d});
    return agg;
  }
  case ThreadIndexOp::LanemaskLt:
    return irb.CreateSub(irb.CreateShl(irb.getInt32(1), cx.laneId()), irb.getInt32(1));
  }
  return nullptr;
}

} // namespace ir
} // namespace cutwin
