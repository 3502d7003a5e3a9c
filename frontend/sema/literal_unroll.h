/// numba's `literal_unroll`: `for x in literal_unroll(t): body` over a tuple whose elements
/// differ in type becomes one copy of the body per element, each with its own `x` (renamed
/// `x.k` in copy k, so that every copy types `x` as its own element). A step of the typer,
/// before it reads the function: the tuple's length must be known then (a global, an
/// argument or a tuple written in place).
#pragma once

#include "frontend/syntax/ast.h"

#include <functional>
#include <memory>

namespace cutwin::fe {

struct LiteralUnrollHooks {
  /// Is this call `literal_unroll(...)` (the callee resolved by the typer)?
  std::function<bool(const CallExpr &)> isLiteralUnroll;
  /// The length of the tuple `e` stands for; reports an error if it is not known.
  std::function<size_t(const Expr &e)> tupleLength;
  /// Reports an error at `loc` (throws).
  std::function<void(SourceLoc loc, const std::string &message)> error;
};

/// A copy of `def` with its literal_unroll loops unrolled, or null if it has none.
std::unique_ptr<FunctionDefStmt> unrollLiteralLoops(const FunctionDefStmt &def,
                                                    const LiteralUnrollHooks &hooks);

} // namespace cutwin::fe
