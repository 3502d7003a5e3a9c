/// Walking syntax trees: the direct subexpressions of an expression and the expressions of
/// a statement, for analyses that look at every expression of a function (which names it
/// reads, how deep it nests).
#pragma once

#include "frontend/syntax/ast.h"

#include <cstddef>
#include <functional>

namespace cutwin::fe {

/// Calls `f` with each direct subexpression of `e`, in evaluation order (a call's callee,
/// then its arguments and keyword values). A StarElement's tuple belongs to its call's
/// Starred argument, so it has none.
void forEachChild(const Expr &e, const std::function<void(const Expr &)> &f);

/// Calls `f` with each expression statement `s` holds itself and those the statements
/// nested in it hold (a function's decorators, annotations and defaults, then its body).
void forEachExpression(const Stmt &s, const std::function<void(const Expr &)> &f);

/// The number of expressions on the longest path down from `e` (a name alone is 1),
/// counted without recursion: any depth is measured.
size_t expressionDepth(const Expr &e);

} // namespace cutwin::fe
