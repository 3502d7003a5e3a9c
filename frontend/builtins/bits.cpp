// Bit operations: cuda.popc, cuda.clz, cuda.ffs, cuda.brev and int.bit_count().
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerBitBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {
enum class BitOp : unsigned { Popc, Clz, Ffs, Brev, BitCount };
}

namespace fe {

ExprInfo typeBitBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                        const Builtin &b);

std::span<const Builtin> bitBuiltins() {
  auto row = [](const char *name, BitOp op) {
    return Builtin{name, unsigned(op), &typeBitBuiltin, &ir::lowerBitBuiltin};
  };
  static const Builtin table[] = {
      row("cuda.popc", BitOp::Popc),
      row("cuda.clz", BitOp::Clz),
      row("cuda.ffs", BitOp::Ffs),
      row("cuda.brev", BitOp::Brev),
      row("scalar.bit_count", BitOp::BitCount),
  };
  return table;
}

ExprInfo typeBitBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                        const Builtin &b) {
  ExprInfo info;
  BitOp op = BitOp(b.op);
  switch (op) {
  case BitOp::Popc:
  case BitOp::Clz:
  case BitOp::Ffs:
  case BitOp::Brev: {
    // numba: popc and clz keep the integer type, ffs gives uint32, brev takes uint32/uint64.
    cx.checkArity(c, b.name, args.size(), 1, 1);
    auto actual = cx.scalarArgs(c, args, b.name);
    std::vector<ScalarCase> cases;
    if (op == BitOp::Brev) {
      cases = {{{Scalar::U32}, Scalar::U32}, {{Scalar::U64}, Scalar::U64}};
    } else {
      for (Scalar s : {Scalar::I8, Scalar::I16, Scalar::I32, Scalar::I64, Scalar::U8, Scalar::U16,
                       Scalar::U32, Scalar::U64})
        cases.push_back({{s}, op == BitOp::Ffs ? Scalar::U32 : s});
    }
    auto cs = resolveOverload(cases, actual, op != BitOp::Brev);
    if (!cs || isFloat(actual[0]) || isComplex(actual[0]))
      cx.error(c.loc, std::string(b.name) + "() takes an integer, not " + scalarName(actual[0]));
    info.type = Type::scalarOf(cs->result);
    info.operandTypes = cs->args;
    return info;
  }
  case BitOp::BitCount: { // the ones of x's bits at its width, as numba-cuda counts them
    cx.checkArity(c, b.name, args.size(), 0, 0);
    ExprInfo recv = cx.typeExpr(methodReceiver(c));
    if (!recv.type.isScalar() || !isInteger(recv.type.scalar))
      cx.error(c.loc, "bit_count() is a method of integers");
    info.type = Type::scalarOf(Scalar::I64);
    info.operandTypes = {recv.type.scalar};
    return info;
  }
  }
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *lowerBitBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  Scalar t = ci.operandTypes[0];
  switch (BitOp(ci.function->op)) {
  case BitOp::Popc:
    return irb.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, cx.lowerAs(*c.args[0], Type::scalarOf(t)));
  case BitOp::Brev:
    return irb.CreateUnaryIntrinsic(llvm::Intrinsic::bitreverse, cx.lowerAs(*c.args[0], Type::scalarOf(t)));
  case BitOp::Clz:
    return irb.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, cx.lowerAs(*c.args[0], Type::scalarOf(t)),
                                     irb.getFalse());
  case BitOp::Ffs: { // 1 + the index of the lowest set bit, 0 when none is
    Value *v = cx.lowerAs(*c.args[0], Type::scalarOf(t));
    Value *tz = irb.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, v, irb.getFalse());
    Value *pos = irb.CreateAdd(irb.CreateZExtOrTrunc(tz, irb.getInt32Ty()), irb.getInt32(1));
    return irb.CreateSelect(irb.CreateICmpEQ(v, ConstantInt::get(v->getType(), 0)), irb.getInt32(0), pos);
  }
  case BitOp::BitCount: {
    Value *v = cx.lowerAs(fe::methodReceiver(c), Type::scalarOf(t));
    return irb.CreateZExtOrTrunc(irb.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, v), irb.getInt64Ty());
  }
  }
  return nullptr;
}

} // namespace ir
} // namespace cutwin
