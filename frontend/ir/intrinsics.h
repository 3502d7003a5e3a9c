/// The `cutwin.*` functions the frontend emits for every CUDA operation. They are the
/// whole interface between the frontend and the backends: each backend replaces every
/// call (docs/ir.md lists them with their semantics).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace cutwin::ir {

/// One enumerator per row of intrinsics.def.
enum class Intrinsic {
#define CUTWIN_INTRINSIC(id, ...) id,
#include "frontend/ir/intrinsics.def"
#undef CUTWIN_INTRINSIC
};
inline constexpr unsigned kIntrinsicCount = 0
#define CUTWIN_INTRINSIC(...) +1
#include "frontend/ir/intrinsics.def"
#undef CUTWIN_INTRINSIC
    ;

/// What an intrinsic may do, which fixes its LLVM attributes (intrinsics.def explains each).
enum class IntrinsicEffect { Pure, Convergent, NoReturn, Effect };

/// A row of intrinsics.def.
struct IntrinsicInfo {
  const char *name;
  const char *type; ///< LLVM syntax, e.g. "void (i32)"
  IntrinsicEffect effect;
  const char *meaning, *simulator, *gpu;
};
const IntrinsicInfo &intrinsicInfo(Intrinsic id);

/// The operations of `cutwin.warp`, its first (constant) operand. The value operand holds
/// the lane's 32-bit value zero-extended, or a 64-bit value with kWarpWide set; `b` is the
/// shuffle's source lane, delta or xor mask (PTX uses its low five bits).
enum class WarpOp : unsigned {
  ShflIdx = 0,     ///< the value of lane b
  ShflUp = 1,      ///< the value of lane (lane - b), or the caller's own when that is below 0
  ShflDown = 2,    ///< the value of lane (lane + b), or the caller's own when that is above 31
  ShflXor = 3,     ///< the value of lane (lane ^ b)
  VoteAll = 4,     ///< 1 if every participating lane's predicate (value != 0) is true
  VoteAny = 5,     ///< 1 if any is
  VoteUni = 6,     ///< 1 if all are equal
  Ballot = 7,      ///< the participating lanes whose predicate is true, as a bit mask
  MatchAny = 8,    ///< the participating lanes whose value equals the caller's
  MatchAll = 9,    ///< the mask if every participating lane has the caller's value, else 0
  ActiveMask = 10, ///< the lanes executing this call together (mask and value unused)
  SyncWarp = 11,   ///< a barrier of the lanes in the mask
};
inline constexpr unsigned kWarpWide = 0x100; ///< or'ed into the op: a 64-bit value
inline constexpr unsigned kWarpOpMask = 0xff;

/// The units of `cutwin.approx`, its first (constant) operand: PTX's float32 approximation
/// instructions as numba-cuda's fastmath and float16 functions use them.
enum class ApproxUnit : unsigned {
  Ex2Ftz = 0,    ///< ex2.approx.ftz.f32
  Lg2Ftz = 1,    ///< lg2.approx.ftz.f32
  RcpFtz = 2,    ///< rcp.approx.ftz.f32
  RsqrtFtz = 3,  ///< rsqrt.approx.ftz.f32
  SqrtFtz = 4,   ///< sqrt.approx.ftz.f32
  Tanh = 5,      ///< tanh.approx.f32
  TanhF16 = 6,   ///< tanh.approx.f16 of x, a float16 value held as float32 (the result is one too)
  Ex2 = 7,       ///< ex2.approx.f32 (subnormals kept: cuda_bf16.h's functions use these five)
  Lg2 = 8,       ///< lg2.approx.f32
  Rcp = 9,       ///< rcp.approx.f32
  Rsqrt = 10,    ///< rsqrt.approx.f32
  Sqrt = 11,     ///< sqrt.approx.f32
  TanhBF16 = 12, ///< tanh.approx.bf16 of x, a bfloat16 value held as float32 (the result is one too)
};
inline constexpr unsigned kApproxUnitCount = 13;

/// The cache policies of `cutwin.cache.load` / `cutwin.cache.store` (PTX's names).
enum class CachePolicy : unsigned { Ca, Cg, Cs, Lu, Cv, Wb, Wt };
const char *cachePolicyName(CachePolicy p); ///< "ca", "cg", ...

/// The one declaration every `cuda.shared.array(0, dtype)` aliases: the launch's dynamic
/// shared memory (an external, zero-length addrspace(3) array).
inline constexpr const char *kDynamicSharedName =
    "cutwin_dynamic_shared"; // a PTX identifier: it stays external
/// Metadata of a `cuda.shared.array` global: !{i64 line, i64 itemsize, i64 dims...} (the
/// simulator's sanitizer names the array and element an access touched).
inline constexpr const char *kSharedArrayMetadata = "cutwin.shared.array";

const char *intrinsicName(Intrinsic id);
std::optional<Intrinsic> lookupIntrinsic(std::string_view name);
/// Declares (or finds) the intrinsic in `m` with its fixed type and attributes.
llvm::Function *getIntrinsic(llvm::Module &m, Intrinsic id);
/// The end of a backend's lowering step: removes the intrinsics' declarations, now unused,
/// and throws naming `step` and the first `cutwin.*` intrinsic still called in `m`.
void removeLoweredIntrinsics(llvm::Module &m, std::string_view step);
/// docs/ir.md's intrinsic table, generated from intrinsics.def (`cutwin intrinsics`).
std::string intrinsicTableMarkdown();

/// Special-register reads: tid/ctaid/ntid/nctaid; `dim` 0..2 is x, y, z.
Intrinsic threadIdxIntrinsic(unsigned dim);
Intrinsic blockIdxIntrinsic(unsigned dim);
Intrinsic blockDimIntrinsic(unsigned dim);
Intrinsic gridDimIntrinsic(unsigned dim);

} // namespace cutwin::ir
