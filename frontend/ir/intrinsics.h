/// The `cutwin.*` functions the frontend emits for every CUDA operation. They are the
/// whole interface between the frontend and the backends: each backend replaces every
/// call (docs/ir.md lists them with their semantics).
#pragma once

#include <optional>
#include <string_view>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace cutwin::ir {

enum class Intrinsic {
  TidX,
  TidY,
  TidZ, ///< i32 (): threadIdx
  CtaidX,
  CtaidY,
  CtaidZ, ///< i32 (): blockIdx
  NtidX,
  NtidY,
  NtidZ, ///< i32 (): blockDim
  NctaidX,
  NctaidY,
  NctaidZ,    ///< i32 (): gridDim
  Barrier,    ///< void (i32 site): __syncthreads
  RaiseError, ///< void (ptr addrspace(1) record, i32 kind, i32 site, i64, i64, i64), noreturn
  DynamicSharedSize, ///< i32 (): bytes of dynamic shared memory of the launch
  GridSync,          ///< void (i32 site): cuda.cg.this_grid().sync(); the launch is cooperative
  Nanosleep,         ///< void (i32 ns): cuda.nanosleep, a hint (the simulator does nothing)
};
inline constexpr unsigned kIntrinsicCount = unsigned(Intrinsic::Nanosleep) + 1;

/// The one declaration every `cuda.shared.array(0, dtype)` aliases: the launch's dynamic
/// shared memory (an external, zero-length addrspace(3) array).
inline constexpr const char *kDynamicSharedName = "cutwin_dynamic_shared"; // a PTX identifier: it stays external

const char *intrinsicName(Intrinsic id);
std::optional<Intrinsic> lookupIntrinsic(std::string_view name);
/// Declares (or finds) the intrinsic in `m` with its fixed type and attributes.
llvm::Function *getIntrinsic(llvm::Module &m, Intrinsic id);

/// Special-register reads: tid/ctaid/ntid/nctaid; `dim` 0..2 is x, y, z.
Intrinsic threadIdxIntrinsic(unsigned dim);
Intrinsic blockIdxIntrinsic(unsigned dim);
Intrinsic blockDimIntrinsic(unsigned dim);
Intrinsic gridDimIntrinsic(unsigned dim);

} // namespace cutwin::ir
