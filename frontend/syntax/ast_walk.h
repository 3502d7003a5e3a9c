/// Walking syntax trees: the direct subexpressions of an expression, for analyses that
/// look at every expression of a function (which names it reads).
#pragma once

#include "frontend/syntax/ast.h"

#include <functional>

namespace cutwin::fe {

/// Calls `f` with each direct subexpression of `e`, in evaluation order (a call's callee,
/// then its arguments and keyword values). A StarElement's tuple belongs to its call's
/// Starred argument, so it has none.
void forEachChild(const Expr &e, const std::function<void(const Expr &)> &f);

} // namespace cutwin::fe
