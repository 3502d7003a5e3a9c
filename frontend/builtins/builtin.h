/// The builtin functions kernels call (`cuda.syncthreads`, `math.sin`, `np.add`, `abs`, ...),
/// one registry: each builtin is a row of its family's table, in that family's file here,
/// beside the family's typing rule and lowering. The typer finds the row by the callee's
/// name and hands the lowerer the row itself (ExprInfo::function), not a string; each rule
/// switches over the family's own enumerator (the row's `op`) with no default, so a row
/// without a typing or a lowering case does not compile. Families whose members come from a
/// data table (math functions, ufuncs, cmath, the operator module, libdevice) make one row
/// per entry, its `op` the entry's index.
///
/// Families, one file each: thread_index (cuda.grid, gridsize, lanemask_lt, threadIdx.x...),
/// sync (barriers, block votes, grid sync, fences, nanosleep), warp (shuffles, votes,
/// match, activemask, syncwarp), atomics (cuda.atomic.*), bits (popc, clz, ffs, brev,
/// int.bit_count), arithmetic (cuda.fma/cbrt/selp, abs, round, pow, min, max, len, complex,
/// conjugate), conversions (int, float, bool, np.float32(x)...), iteration (range,
/// enumerate, zip), memory (cuda.shared/local.array, cuda.const.array_like), math (math.*),
/// cmath (cmath.*), ufuncs (NumPy ufuncs), operators (the operator module), libdevice
/// (numba.cuda.libdevice.*), random (numba.cuda.random's device functions), print, debug
/// (breakpoint(), pdb.set_trace(), cuda.breakpoint(cond)), half (numba.cuda.fp16's functions),
/// cache_hints (cuda.ldca and the other loads and stores with a cache policy).
/// Adding a builtin to a family touches its file; a new family is its file and one line in
/// builtinFamilies() (registry.cpp): its typing and lowering rules are free functions of
/// its file over TypingContext and LoweringContext, declared nowhere else.
#pragma once

#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class Value;
}

namespace cutwin::ir {
class LoweringContext;
}

namespace cutwin::fe {

class TypingContext;
struct CallExpr;
struct ExprInfo;
struct Builtin;

/// Types a call: checks its arguments, gives the result type and the operand types. A free
/// function of the family's file over the typer's TypingContext (frontend/sema/typing_context.h).
using BuiltinTypeRule = ExprInfo (*)(TypingContext &, const CallExpr &, const std::vector<ExprInfo> &,
                                     const Builtin &);
/// Lowers a typed call (its ExprInfo's `function` is the row); null for no value. A free
/// function of the family's file over the lowerer's LoweringContext
/// (frontend/lower/lowering_context.h).
using BuiltinLowerRule = llvm::Value *(*)(ir::LoweringContext &, const CallExpr &, const ExprInfo &);

struct Builtin {
  const char *name; ///< the callee's path: "cuda.popc", "builtins.abs", "scalar.bit_count"
  unsigned op;      ///< the family's enumerator for it (or its index in the family's data)
  BuiltinTypeRule type;
  /// Null where the call is no value of its own: its user reads the typed call (a for loop
  /// iterates range(...)) or it is a compile-time constant (cuda.const.array_like).
  BuiltinLowerRule lower;
  /// The rule types the arguments itself (shapes, dtypes, keywords): the typer passes none.
  bool rawArguments = false;
};

/// The builtin called `name`, or null. `cuda.libdevice.<any name>` has a row (its typing
/// rule reports names libdevice does not have).
const Builtin *findBuiltin(std::string_view name);

/// Rows made once from a family's data table (names built from its entries): the
/// constructor's `fill` adds them all, in place (rows point at the names kept here).
class BuiltinRows {
public:
  template <class Fill> explicit BuiltinRows(Fill fill) { fill(*this); }
  BuiltinRows(const BuiltinRows &) = delete;
  BuiltinRows &operator=(const BuiltinRows &) = delete;
  void add(std::string name, unsigned op, BuiltinTypeRule type, BuiltinLowerRule lower) {
    names_.push_back(std::move(name)); // a deque: earlier names stay where they are
    rows_.push_back(Builtin{names_.back().c_str(), op, type, lower});
  }
  std::span<const Builtin> rows() const { return rows_; }

private:
  std::deque<std::string> names_;
  std::vector<Builtin> rows_;
};

/// A family: its name, its file in frontend/builtins/ and its table.
struct BuiltinFamily {
  const char *name, *file;
  std::span<const Builtin> (*rows)();
};
/// Every family with a table (libdevice's rows are made on first use), in docs order: a new
/// family is one line here (registry.cpp).
std::span<const BuiltinFamily> builtinFamilies();
/// docs/language.md's table of the builtins (`cutwin builtins`): each family's names.
std::string builtinTableMarkdown();

/// `cuda.libdevice.<name>`'s row, made on first use (libdevice's names are read from its
/// bitcode only when a kernel calls one).
const Builtin *libdeviceBuiltin(std::string_view name);

} // namespace cutwin::fe
