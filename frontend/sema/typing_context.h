/// What a builtin family's typing rule (frontend/builtins/) may ask of the typer: the rules
/// are free functions of their family's file over this interface, so that a new family
/// declares nothing in the typer's own header and recompiles only its file and the list of
/// families. FunctionTyper (function_typer.h) implements it.
#pragma once

#include "frontend/sema/typer.h"

#include <optional>
#include <string>
#include <vector>

namespace cutwin::fe {

class TypingContext {
public:
  using Args = std::vector<ExprInfo>;

  [[noreturn]] virtual void error(SourceLoc loc, const std::string &msg) const = 0;
  /// Errors unless a call of `fn` passes lo..hi arguments (`given`).
  virtual void checkArity(const CallExpr &c, const std::string &fn, size_t given, size_t lo, size_t hi) = 0;
  /// The arguments' scalar types; errors naming `what` for any other argument.
  virtual std::vector<Scalar> scalarArgs(const CallExpr &c, const Args &args, const char *what) = 0;
  /// An expression's type and facts; an Optional is converted to its value (checked).
  virtual ExprInfo typeExpr(const Expr &e) = 0;
  /// `l op r` as Python operators type it (numba's rules).
  virtual ExprInfo typeBinary(BinOp op, const Type &l, const Type &r, SourceLoc loc) = 0;
  virtual void checkTruthTestable(const Type &t, SourceLoc loc) = 0;
  /// The compile-time integer an expression stands for (literal, global or constant
  /// parameter), if any.
  virtual std::optional<int64_t> constInt(const Expr &e) = 0;
  /// The compile-time value of an expression over literals, globals and constant parameters.
  virtual std::optional<ConstValue> constantOf(const Expr &e) = 0;
  /// Whether `name` is a local variable whose value is known only at run time.
  virtual bool isRunTimeLocal(const std::string &name) const = 0;
  /// The type a for loop over a value of type `t` assigns its target.
  virtual Type iterElement(const Type &t, SourceLoc loc) = 0;

protected:
  ~TypingContext() = default;
};

} // namespace cutwin::fe
