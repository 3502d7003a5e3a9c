/// The builtin functions kernels call (`cuda.syncthreads`, `cuda.popc`, `abs`, ...), one
/// registry: each builtin is a row of its family's table, in that family's file here,
/// beside the family's typing rule and lowering. The typer finds the row by the callee's
/// name and hands the lowerer the row itself (ExprInfo::function), not a string; each rule
/// switches over the family's own enumerator (the row's `op`) with no default, so a row
/// without a typing or a lowering case does not compile.
///
/// Families: thread_index.cpp (cuda.grid, gridsize, lanemask_lt), sync.cpp (barriers,
/// block votes, grid sync, fences, nanosleep), bits.cpp (popc, clz, ffs, brev,
/// int.bit_count), arithmetic.cpp (cuda.fma/cbrt/selp and Python's abs, round, pow, min,
/// max, len, complex, complex.conjugate). Adding a builtin to a family touches its file;
/// a new family adds its table to registry.cpp.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace llvm {
class Value;
}

namespace cutwin::ir {
class Lowerer;
}

namespace cutwin::fe {

class FunctionTyper;
struct CallExpr;
struct ExprInfo;

struct Builtin {
  const char *name; ///< the callee's path: "cuda.popc", "builtins.abs", "scalar.bit_count"
  unsigned op;      ///< the family's enumerator for it
  /// Types a call: checks its arguments, gives the result type and the operand types.
  ExprInfo (FunctionTyper::*type)(const CallExpr &, const std::vector<ExprInfo> &, const Builtin &);
  /// Lowers a typed call (its ExprInfo's `function` is this row); null for no value.
  llvm::Value *(ir::Lowerer::*lower)(const CallExpr &, const ExprInfo &);
};

/// The builtin called `name`, or null.
const Builtin *findBuiltin(std::string_view name);

// The families' tables (one per file in frontend/builtins/).
std::span<const Builtin> threadIndexBuiltins();
std::span<const Builtin> syncBuiltins();
std::span<const Builtin> bitBuiltins();
std::span<const Builtin> arithmeticBuiltins();

} // namespace cutwin::fe
