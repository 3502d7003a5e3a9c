// Type inference of the warp operations: shuffles, votes, match, activemask, syncwarp.
// The types are numba's: masks are int32; shuffles move int32, int64, float32 or float64
// (narrower integers widen to int32, uint32 to int64); votes take a predicate and give a
// bool, ballot_sync and match_any_sync an int32 mask, match_all_sync (int32, bool).
#include "frontend/sema/builtins.h"
#include "frontend/sema/function_typer.h"

namespace cutwin::fe {

using S = Scalar;

namespace {
const char *const kWarpFunctions[] = {"cuda.shfl_sync",      "cuda.shfl_up_sync", "cuda.shfl_down_sync",
                                      "cuda.shfl_xor_sync",  "cuda.all_sync",     "cuda.any_sync",
                                      "cuda.eq_sync",        "cuda.ballot_sync",  "cuda.match_any_sync",
                                      "cuda.match_all_sync", "cuda.activemask",   "cuda.syncwarp"};

/// The type a shuffled or matched value travels as, or nullopt if it cannot.
std::optional<S> warpValueType(S t) {
  switch (t) {
  case S::Bool:
  case S::I8:
  case S::I16:
  case S::I32:
  case S::U8:
  case S::U16: return S::I32;
  case S::U32:
  case S::I64:
  case S::U64: return S::I64;
  case S::F32: return S::F32;
  case S::F64: return S::F64;
  default: return std::nullopt;
  }
}
} // namespace

bool isWarpFunction(const std::string &fn) {
  for (const char *w : kWarpFunctions)
    if (fn == w)
      return true;
  return false;
}

ExprInfo FunctionTyper::typeWarpCall(const CallExpr &c, const std::string &fn,
                                     const std::vector<ExprInfo> &args) {
  ExprInfo info;
  info.builtin = fn;
  std::string name = fn.substr(5) + "()";
  auto arity = [&](size_t lo, size_t hi) {
    if (args.size() < lo || args.size() > hi)
      error(c.loc, name + " takes " +
                       (lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi)) +
                       " argument" + (hi == 1 ? "" : "s") + ", " + std::to_string(args.size()) + " given");
  };
  auto integer = [&](size_t i, const char *what) {
    const Type &t = args[i].type;
    if (!t.isScalar() || !(isInteger(t.scalar) || t.scalar == S::Bool))
      error(c.args[i]->loc, name + ": the " + what + " must be an integer, not " + t.str());
  };
  if (fn == "cuda.activemask") {
    arity(0, 0);
    info.type = Type::scalarOf(S::U32);
    return info;
  }
  if (fn == "cuda.syncwarp") {
    arity(0, 1);
    if (!args.empty())
      integer(0, "mask");
    info.type = Type::none();
    info.operandTypes = {S::I32};
    return info;
  }
  arity(2, fn.rfind("cuda.shfl", 0) == 0 ? 3 : 2);
  integer(0, "mask");
  const Type &v = args[1].type;
  if (fn.rfind("cuda.shfl", 0) == 0 || fn.rfind("cuda.match", 0) == 0) {
    if (fn.rfind("cuda.shfl", 0) == 0) {
      arity(3, 3);
      integer(2, fn == "cuda.shfl_sync" ? "source lane" : fn == "cuda.shfl_xor_sync" ? "lane mask" : "delta");
    }
    std::optional<S> vt = v.isScalar() ? warpValueType(v.scalar) : std::nullopt;
    if (!vt)
      error(c.args[1]->loc, name + " moves int32, int64, float32 or float64 values, not " + v.str());
    info.operandTypes = {S::I32, *vt, S::I32};
    if (fn == "cuda.match_all_sync")
      info.type = Type::tuple({Type::scalarOf(S::I32), Type::scalarOf(S::Bool)});
    else
      info.type = Type::scalarOf(fn == "cuda.match_any_sync" ? S::I32 : *vt);
    return info;
  }
  // votes: a predicate of any number type
  checkTruthTestable(v, c.args[1]->loc);
  info.operandTypes = {S::I32, S::Bool};
  info.type = Type::scalarOf(fn == "cuda.ballot_sync" ? S::I32 : S::Bool);
  return info;
}

} // namespace cutwin::fe
