// Iteration: range, enumerate and zip. A call of one is typed here and read by the for
// loop that iterates it (lower_iter.cpp), so the rows have no lowering of their own.
#include "frontend/builtins/builtin.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/sema/typing_context.h"

namespace cutwin::fe {

ExprInfo typeIterationBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                              const Builtin &b);

namespace {
enum class IterationOp : unsigned { Range, Enumerate, Zip };
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
  }
  return info;
}

} // namespace cutwin::fe
