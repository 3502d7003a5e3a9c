// Iteration: range, enumerate, zip and literal_unroll. A call of range, enumerate or zip is
// typed here and read by the for loop that iterates it (lower_iter.cpp), so those rows have
// no lowering of their own. A loop over literal_unroll(t) is unrolled before typing
// (frontend/sema/literal_unroll.cpp); elsewhere the call is its argument, as in numba.
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/sema/typing_context.h"

namespace cutwin::fe {

ExprInfo typeIterationBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                              const Builtin &b);
llvm::Value *lowerLiteralUnroll(ir::LoweringContext &cx, const CallExpr &c, const ExprInfo &);

namespace {
enum class IterationOp : unsigned { Range, Enumerate, Zip, LiteralUnroll };
}

using S = Scalar;

std::span<const Builtin> iterationBuiltins() {
  auto row = [](const char *name, IterationOp op) {
    return Builtin{name, unsigned(op), &typeIterationBuiltin, nullptr};
  };
  static const Builtin table[] = {
      row("builtins.range", IterationOp::Range),
      row("builtins.enumerate", IterationOp::Enumerate),
      row("builtins.zip", IterationOp::Zip),
      Builtin{"cuda.literal_unroll", unsigned(IterationOp::LiteralUnroll), &typeIterationBuiltin,
              &lowerLiteralUnroll},
  };
  return table;
}

ExprInfo typeIterationBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                              const Builtin &b) {
  ExprInfo info;
  switch (IterationOp(b.op)) {
  case IterationOp::Range: {
    cx.checkArity(c, b.name, args.size(), 1, 3);
    auto actual = cx.scalarArgs(c, args, "range");
    for (size_t i = 0; i < actual.size(); ++i)
      if (!isInteger(actual[i]) && actual[i] != S::Bool)
        cx.error(c.args[i]->loc,
                 std::string("range() arguments must be integers, not ") + scalarName(actual[i]));
    std::vector<ScalarCase> cases;
    for (S t : {S::I32, S::I64, S::U64})
      cases.push_back({std::vector<S>(actual.size(), t), t});
    auto cs = resolveOverload(cases, actual);
    if (!cs)
      cx.error(c.loc, "range() arguments cannot be combined");
    if (args.size() == 3)
      if (auto step = cx.constInt(*c.args[2]); step && *step == 0)
        cx.error(c.args[2]->loc, "range() step must not be zero");
    info.type = Type::range(cs->result);
    info.operandTypes = cs->args;
    return info;
  }
  case IterationOp::Enumerate:
  case IterationOp::Zip: {
    // Iterators of for loops: the element type is the loop's (iterElement).
    bool isEnum = IterationOp(b.op) == IterationOp::Enumerate;
    if (isEnum)
      cx.checkArity(c, b.name, args.size(), 1, 2);
    else if (args.empty())
      cx.error(c.loc, "zip() needs at least one iterable in kernels");
    Type it = Type::make(TypeKind::Iterator);
    it.path = isEnum ? "enumerate" : "zip";
    for (size_t i = 0; i < (isEnum ? 1 : args.size()); ++i) {
      cx.iterElement(args[i].type, c.args[i]->loc); // checks it is iterable
      it.elems.push_back(args[i].type);
    }
    if (isEnum && args.size() == 2 && !args[1].type.isInt())
      cx.error(c.args[1]->loc, "enumerate()'s start must be an integer, not " + args[1].type.str());
    info.type = it;
    return info;
  }
  case IterationOp::LiteralUnroll:
    cx.checkArity(c, b.name, args.size(), 1, 1);
    if (!args[0].type.isTuple())
      cx.error(c.args[0]->loc, "literal_unroll() needs a tuple, not " + args[0].type.str());
    return args[0];
  }
  return info;
}

llvm::Value *lowerLiteralUnroll(ir::LoweringContext &cx, const CallExpr &c, const ExprInfo &) {
  return cx.lowerExpr(*c.args[0]);
}

} // namespace cutwin::fe
