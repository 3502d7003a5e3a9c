/// numba's typing of operators and builtin calls on scalars: concrete case lists
/// (typing/builtins.py, cudamath.py) resolved by numba's conversion rating.
#pragma once

#include "frontend/sema/types.h"
#include "frontend/syntax/ast.h"

#include <optional>
#include <vector>

namespace cutwin::fe {

/// One overload: argument scalars and the result.
struct ScalarCase {
  std::vector<Scalar> args;
  Scalar result;
};

/// The case numba would pick for `actual` (fewest unsafe, then safe, then promoting
/// conversions; first wins ties), or nullopt.
std::optional<ScalarCase> resolveOverload(const std::vector<ScalarCase> &cases,
                                          const std::vector<Scalar> &actual, bool allowUnsafe = true);

/// Binary arithmetic/bitwise operator on two scalars: the operand types both sides are
/// converted to and the result. nullopt if numba has no such operator.
std::optional<ScalarCase> typeBinOp(BinOp op, Scalar a, Scalar b);
/// `-x`, `+x`, `~x` (not `not`).
std::optional<ScalarCase> typeUnaryOp(UnaryOp op, Scalar a);
/// Ordered/unordered comparison: operand types to compare in (result is bool).
std::optional<ScalarCase> typeCompare(CmpOp op, Scalar a, Scalar b);

/// Cases for `math.<name>` (CUDA target), or empty if unknown.
std::vector<ScalarCase> mathCases(const std::string &name);
/// The case of math function `name` for arguments `in`, with integer operands of a
/// floating result converted to that type (numba's float64(int64) cases compute in
/// float64); pow's int32 exponent stays an integer (powi). nullopt if none applies.
std::optional<ScalarCase> mathCase(const std::string &name, const std::vector<Scalar> &in);

} // namespace cutwin::fe
