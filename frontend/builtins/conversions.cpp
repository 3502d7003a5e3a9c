// Conversions: Python's int(), float() and bool(), and calls of a type object
// (`np.float32(x)`, `numba.int64(x)`): the argument converted to the result's scalar type.
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerConversionBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {
enum class ConversionOp : unsigned { Int, Float, Bool, TypeObject };
}

namespace fe {

ExprInfo typeConversionBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                               const Builtin &b);

using S = Scalar;

std::span<const Builtin> conversionBuiltins() {
  auto row = [](const char *name, ConversionOp op) {
    return Builtin{name, unsigned(op), &typeConversionBuiltin, &ir::lowerConversionBuiltin};
  };
  static const Builtin table[] = {
      row("builtins.int", ConversionOp::Int), row("builtins.float", ConversionOp::Float),
      row("builtins.bool", ConversionOp::Bool),
      row("scalar.type_object_call", ConversionOp::TypeObject), // typeCall's row for T(x)
  };
  return table;
}

ExprInfo typeConversionBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                               const Builtin &b) {
  ExprInfo info;
  ConversionOp op = ConversionOp(b.op);
  S r = S::Bool;
  if (op == ConversionOp::TypeObject) {
    const Type &to = cx.typeExpr(*c.func).type;
    if (to.typeObjectIsVoid)
      cx.error(c.loc, "cannot call 'void'");
    if (args.size() != 1)
      cx.error(c.loc, std::string(scalarName(to.scalar)) + "() takes exactly one argument");
    cx.scalarArgs(c, args, scalarName(to.scalar));
    r = to.scalar;
  } else {
    // numba: int() keeps integer types and makes floats int64; float() keeps float types
    // and makes integers float64.
    cx.checkArity(c, b.name, args.size(), 1, 1);
    std::string name = std::string(b.name).substr(9);
    S a = cx.scalarArgs(c, args, name.c_str())[0];
    switch (op) {
    case ConversionOp::Int: r = isInteger(a) ? a : S::I64; break;
    case ConversionOp::Float: r = isFloat(a) ? a : S::F64; break;
    case ConversionOp::Bool:
    case ConversionOp::TypeObject: r = S::Bool; break;
    }
  }
  info.type = Type::scalarOf(r);
  info.operandTypes = {r};
  return info;
}

} // namespace fe

namespace ir {

llvm::Value *lowerConversionBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  return cx.lowerAs(*c.args[0], Type::scalarOf(ci.operandTypes[0]));
}

} // namespace ir
} // namespace cutwin
