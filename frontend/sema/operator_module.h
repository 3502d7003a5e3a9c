/// Python's `operator` module in kernels: `operator.add(a, b)` (or a global bound to
/// operator.add) is the operator itself, typed and lowered as `a + b` is.
#pragma once

#include "frontend/syntax/ast.h"

#include <string>

namespace cutwin::fe {

struct OperatorFunction {
  enum class Kind { Binary, Compare, Unary, Not };
  Kind kind;
  BinOp bin = BinOp::Add;
  CmpOp cmp = CmpOp::Eq;
  UnaryOp unary = UnaryOp::Neg;
};

/// The function `operator.<name>` names (in-place forms as the plain ones: numbers are
/// immutable), or null. `abs` is the builtin's entity and `truth` is bool's.
const OperatorFunction *operatorFunction(const std::string &name);

} // namespace cutwin::fe
