/// float32 add, sub, mul and fma in a directed rounding mode (libdevice's fma.rm and
/// friends) as straight-line IR, so that a thread loop calling them can be vectorised and
/// pays no call per operation. The other operations (division, square root, reciprocal)
/// call fp_helpers.cpp's cutwin_sim_f32op, which switches the FPU to the mode.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace cutwin::sim {

/// Whether emitDirectedF32 handles `op` (0 add, 1 mul, 3 fma, 6 sub; the codes of
/// cutwin_sim_f32op).
bool hasDirectedF32(int op);

/// The float32 result of `op` on a, b (and c for fma) rounded by `mode` (1 toward -inf,
/// 2 toward +inf, 3 toward zero), the operands neither flushed nor checked: in double the
/// exact value is s + e (a float product is exact; e is the TwoSum error of the sum), and
/// the float nearest s moves one step where it lies on the wrong side of s + e. A NaN
/// result is the GPU's canonical NaN, 0x7fffffff.
llvm::Value *emitDirectedF32(llvm::IRBuilderBase &b, int op, int mode, llvm::Value *a, llvm::Value *bv,
                             llvm::Value *c);

} // namespace cutwin::sim
