// Conversions: Python's int(), float() and bool(), and calls of a type object
// (`np.float32(x)`, `numba.int64(x)`): the argument converted to the result's scalar type.
// tuple() and tuple(t) of a tuple (a named tuple or vector gives its plain tuple). And the
// type test isinstance(x, T), a compile-time constant as numba makes it.
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

#include <cctype>
#include <cstdlib>
#include <limits>
#include <optional>

namespace cutwin {

namespace ir {
llvm::Value *lowerConversionBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {
enum class ConversionOp : unsigned { Int, Float, Bool, TypeObject, IsInstance, Tuple };
}

namespace fe {

ExprInfo typeConversionBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                               const Builtin &b);

using S = Scalar;

namespace {

/// Python's float(text): surrounding spaces, a sign, then "inf", "infinity" or "nan" in any
/// case, or a decimal literal (underscores between digits); nullopt for anything else.
std::optional<double> parseFloat(std::string text) {
  auto space = [](char ch) { return std::isspace(static_cast<unsigned char>(ch)) != 0; };
  while (!text.empty() && space(text.back()))
    text.pop_back();
  size_t k = 0;
  while (k < text.size() && space(text[k]))
    ++k;
  text = text.substr(k);
  std::string body = text.substr(!text.empty() && (text[0] == '+' || text[0] == '-'));
  std::string lower;
  for (char ch : body)
    lower += char(std::tolower(static_cast<unsigned char>(ch)));
  bool negative = !text.empty() && text[0] == '-';
  if (lower == "inf" || lower == "infinity" || lower == "nan") {
    double v =
        lower == "nan" ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    return negative ? -v : v;
  }
  // digits [. digits] [e [sign] digits], an underscore only between two digits
  std::string plain;
  size_t digits = 0, i = 0;
  auto run = [&](bool required) {
    size_t start = plain.size();
    while (i < body.size() && (std::isdigit(static_cast<unsigned char>(body[i])) || body[i] == '_')) {
      if (body[i] == '_' && (plain.size() == start || i + 1 >= body.size() ||
                             !std::isdigit(static_cast<unsigned char>(body[i + 1]))))
        return false;
      if (body[i] != '_')
        plain += body[i];
      ++i;
    }
    return !required || plain.size() > start;
  };
  size_t before = plain.size();
  if (!run(false))
    return std::nullopt;
  digits += plain.size() - before;
  if (i < body.size() && body[i] == '.') {
    plain += body[i++];
    before = plain.size();
    if (!run(false))
      return std::nullopt;
    digits += plain.size() - before;
  }
  if (digits == 0)
    return std::nullopt;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    plain += body[i++];
    if (i < body.size() && (body[i] == '+' || body[i] == '-'))
      plain += body[i++];
    if (!run(true))
      return std::nullopt;
  }
  if (i != body.size())
    return std::nullopt;
  double v = std::strtod(plain.c_str(), nullptr); // correctly rounded, as Python's
  return negative ? -v : v;
}

} // namespace

std::span<const Builtin> conversionBuiltins() {
  auto row = [](const char *name, ConversionOp op) {
    return Builtin{name, unsigned(op), &typeConversionBuiltin, &ir::lowerConversionBuiltin};
  };
  static const Builtin table[] = {
      row("builtins.int", ConversionOp::Int),
      row("builtins.float", ConversionOp::Float),
      row("builtins.bool", ConversionOp::Bool),
      row("scalar.type_object_call", ConversionOp::TypeObject), // typeCall's row for T(x)
      row("builtins.isinstance", ConversionOp::IsInstance),
      row("builtins.tuple", ConversionOp::Tuple),
  };
  return table;
}

ExprInfo typeConversionBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                               const Builtin &b) {
  ExprInfo info;
  ConversionOp op = ConversionOp(b.op);
  S r = S::Bool;
  if (op == ConversionOp::IsInstance) {
    // numba's: by the value's type - a scalar type object names its type exactly; int,
    // float, complex and bool name the integer, float, complex and boolean types; a tuple of
    // them any of them.
    cx.checkArity(c, b.name, args.size(), 2, 2);
    const Type &v = args[0].type;
    auto matches = [&](const Type &t, auto &self) -> bool {
      if (t.isTuple() && t.path.empty()) {
        for (const Type &e : t.elems)
          if (self(e, self))
            return true;
        return false;
      }
      if (t.kind == TypeKind::TypeObject && !t.typeObjectIsVoid && t.elems.empty())
        return v.isScalar(t.scalar);
      if (t.kind == TypeKind::Function && t.path == "builtins.int")
        return v.isScalar() && isInteger(v.scalar);
      if (t.kind == TypeKind::Function && t.path == "builtins.float")
        return v.isScalar() && isFloat(v.scalar);
      if (t.kind == TypeKind::Function && t.path == "builtins.complex")
        return v.isScalar() && isComplex(v.scalar);
      if (t.kind == TypeKind::Function && t.path == "builtins.bool")
        return v.isBool();
      cx.error(c.args[1]->loc, "isinstance() in kernels takes a scalar type, int, float, complex, bool or a "
                               "tuple of them, not " +
                                   t.str());
    };
    info.type = Type::scalarOf(S::Bool);
    info.constant = ConstValue::ofBool(matches(args[1].type, matches));
    return info;
  }
  if (op == ConversionOp::Tuple) {
    cx.checkArity(c, "tuple()", args.size(), 0, 1);
    if (!args.empty() && !args[0].type.isTuple())
      cx.error(c.args[0]->loc, "tuple() in kernels takes a tuple, not " + args[0].type.str());
    info.type = Type::tuple(args.empty() ? std::vector<Type>{} : args[0].type.elems);
    if (args.empty()) {
      info.constant = ConstValue();
      info.constant->kind = ConstValue::Kind::Tuple;
    } else {
      info.constant = args[0].constant;
    }
    return info;
  }
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
    if (op == ConversionOp::Float && args[0].type.kind == TypeKind::String && args[0].constant) {
      // float("nan"), float("-inf"), float("1e3"): a constant of the kernel, as numba folds it
      auto v = parseFloat(args[0].constant->s);
      if (!v)
        cx.error(c.loc, "could not convert string to float: '" + args[0].constant->s + "'");
      info.type = Type::scalarOf(S::F64);
      info.constant = ConstValue::ofFloat(*v);
      return info;
    }
    S a = cx.scalarArgs(c, args, name.c_str())[0];
    if (isComplex(a) && op != ConversionOp::Bool) // (Python: TypeError; numba: a typing error)
      cx.error(c.args[0]->loc, name + "() of a complex number: take its .real or abs() first");
    switch (op) {
    case ConversionOp::Int: r = isInteger(a) ? a : S::I64; break;
    case ConversionOp::Float: r = isFloat(a) ? a : S::F64; break;
    case ConversionOp::Bool:
    case ConversionOp::TypeObject:
    case ConversionOp::IsInstance:
    case ConversionOp::Tuple: r = S::Bool; break;
    }
  }
  info.type = Type::scalarOf(r);
  info.operandTypes = {r};
  return info;
}

} // namespace fe

namespace ir {

llvm::Value *lowerConversionBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  if (ci.constant) // float("nan") and friends
    return cx.constant(*ci.constant, ci.type);
  if (ConversionOp(ci.function->op) == ConversionOp::Tuple) { // the elements, as a plain tuple
    llvm::Value *t = cx.lowerExpr(*c.args[0]), *r = llvm::UndefValue::get(cx.llvmType(ci.type));
    for (unsigned k = 0; k < ci.type.elems.size(); ++k)
      r = cx.builder().CreateInsertValue(r, cx.builder().CreateExtractValue(t, {k}), {k});
    return r;
  }
  return cx.lowerAs(*c.args[0], Type::scalarOf(ci.operandTypes[0]));
}

} // namespace ir
} // namespace cutwin
