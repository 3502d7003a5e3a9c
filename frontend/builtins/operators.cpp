// Python's operator module in kernels: `operator.add(a, b)` (or a global bound to
// operator.add) is the operator itself, typed and lowered as `a + b` is. operator.abs and
// operator.truth are the builtins abs and bool (module_scope's moduleMember).
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerOperatorBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace fe {

ExprInfo typeOperatorBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                             const Builtin &b);

struct OperatorFunction {
  enum class Kind { Binary, Compare, Unary, Not };
  Kind kind;
  BinOp bin = BinOp::Add;
  CmpOp cmp = CmpOp::Eq;
  UnaryOp unary = UnaryOp::Neg;
};

namespace {
/// The functions, in-place forms as the plain ones (numbers are immutable).
const std::vector<std::pair<std::string, OperatorFunction>> &operatorTable() {
  using K = OperatorFunction::Kind;
  static const std::vector<std::pair<std::string, OperatorFunction>> table = [] {
    std::vector<std::pair<std::string, OperatorFunction>> t;
    const std::pair<const char *, BinOp> binary[] = {
        {"add", BinOp::Add},     {"sub", BinOp::Sub},           {"mul", BinOp::Mul},
        {"truediv", BinOp::Div}, {"floordiv", BinOp::FloorDiv}, {"mod", BinOp::Mod},
        {"pow", BinOp::Pow},     {"lshift", BinOp::LShift},     {"rshift", BinOp::RShift},
        {"and_", BinOp::BitAnd}, {"or_", BinOp::BitOr},         {"xor", BinOp::BitXor},
    };
    for (auto &[n, op] : binary) {
      OperatorFunction f{K::Binary};
      f.bin = op;
      t.emplace_back(n, f);
      std::string inplace = std::string("i") + n; // iadd, iand_ -> iand
      if (inplace.back() == '_')
        inplace.pop_back();
      t.emplace_back(inplace, f);
    }
    const std::pair<const char *, CmpOp> compare[] = {{"eq", CmpOp::Eq}, {"ne", CmpOp::NotEq},
                                                      {"lt", CmpOp::Lt}, {"le", CmpOp::LtE},
                                                      {"gt", CmpOp::Gt}, {"ge", CmpOp::GtE}};
    for (auto &[n, op] : compare) {
      OperatorFunction f{K::Compare};
      f.cmp = op;
      t.emplace_back(n, f);
    }
    const std::pair<const char *, UnaryOp> unary[] = {
        {"neg", UnaryOp::Neg}, {"pos", UnaryOp::Pos}, {"invert", UnaryOp::Invert}, {"inv", UnaryOp::Invert}};
    for (auto &[n, op] : unary) {
      OperatorFunction f{K::Unary};
      f.unary = op;
      t.emplace_back(n, f);
    }
    t.emplace_back("not_", OperatorFunction{K::Not});
    return t;
  }();
  return table;
}

} // namespace

std::span<const Builtin> operatorBuiltins() {
  static const BuiltinRows rows([](BuiltinRows &r) {
    for (unsigned i = 0; i < operatorTable().size(); ++i)
      r.add("operator." + operatorTable()[i].first, i, &typeOperatorBuiltin, &ir::lowerOperatorBuiltin);
  });
  return rows.rows();
}

ExprInfo typeOperatorBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                             const Builtin &b) {
  using K = OperatorFunction::Kind;
  const OperatorFunction &f = operatorTable()[b.op].second;
  const std::string fn = operatorTable()[b.op].first;
  size_t arity = f.kind == K::Binary || f.kind == K::Compare ? 2 : 1;
  if (args.size() != arity || !c.keywords.empty())
    cx.error(c.loc, "operator." + fn + "() takes " + std::to_string(arity) + " positional argument" +
                        (arity == 1 ? "" : "s") + ", " + std::to_string(args.size()) + " given");
  for (auto &a : args)
    if (a.type.isUnknown())
      return ExprInfo{};
  ExprInfo info;
  switch (f.kind) {
  case K::Binary: info = cx.typeBinary(f.bin, args[0].type, args[1].type, c.loc); break;
  case K::Compare: {
    if (!args[0].type.isScalar() || !args[1].type.isScalar())
      cx.error(c.loc, "operator." + fn + "() compares numbers in kernels, not " + args[0].type.str() +
                          " and " + args[1].type.str());
    auto cs = fe::typeCompare(f.cmp, args[0].type.scalar, args[1].type.scalar);
    if (!cs)
      cx.error(c.loc, "cannot compare '" + args[0].type.str() + "' and '" + args[1].type.str() + "'");
    info.operandTypes = cs->args;
    info.type = Type::scalarOf(Scalar::Bool);
    break;
  }
  case K::Unary: {
    if (!args[0].type.isScalar())
      cx.error(c.loc, "operator." + fn + "() takes a number in kernels, not " + args[0].type.str());
    auto cs = fe::typeUnaryOp(f.unary, args[0].type.scalar);
    if (!cs)
      cx.error(c.loc, "bad operand type for operator." + fn + "(): '" + args[0].type.str() + "'");
    info.operandTypes = cs->args;
    info.type = Type::scalarOf(cs->result);
    break;
  }
  case K::Not:
    cx.checkTruthTestable(args[0].type, c.args[0]->loc);
    info.type = Type::scalarOf(Scalar::Bool);
    break;
  }
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *lowerOperatorBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  using K = fe::OperatorFunction::Kind;
  const fe::OperatorFunction &f = fe::operatorTable()[ci.function->op].second;
  if (f.kind == K::Not)
    return irb.CreateNot(cx.truth(cx.lowerExpr(*c.args[0]), cx.info(*c.args[0]).type));
  std::vector<Value *> a;
  for (size_t i = 0; i < c.args.size(); ++i)
    a.push_back(cx.lowerAs(*c.args[i], Type::scalarOf(ci.operandTypes[i])));
  cx.setLoc(c.loc);
  if (f.kind == K::Binary)
    return cx.binaryOperation(f.bin, a[0], a[1], ci.operandTypes[0], ci.operandTypes[1], ci.type.scalar);
  if (f.kind == K::Compare)
    return cx.compare(f.cmp, a[0], a[1], ci.operandTypes[0]);
  return cx.unaryOperation(f.unary, cx.convertScalar(a[0], ci.operandTypes[0], ci.type.scalar),
                           ci.type.scalar);
}

} // namespace ir
} // namespace cutwin
