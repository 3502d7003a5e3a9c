/// float32 add, sub, mul and fma in a directed rounding mode, compiled into kernels
/// (libdevice's expf rounds one fma down, its float helpers many more). The exact result
/// is formed in double and the nearest float moved one step where it lies on the wrong
/// side: the method of fp_helpers.cpp's directedF32, without a host call and without
/// switching the FPU's mode; cases it does not cover (zero, overflow, NaN) call that
/// helper, which gives the same bits.
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace cutwin::sim {

/// A function float(float a, float b, float c) in `m`: a + b (op 0), a * b (1),
/// fma(a, b, c) (3) or a - b (6) rounded down (mode 1), up (2) or toward zero (3), as
/// cutwin_sim_f32op(op, mode, a, b, c) computes it; null for other ops and modes.
llvm::Function *compiledDirectedF32(llvm::Module &m, int op, int mode);

} // namespace cutwin::sim
