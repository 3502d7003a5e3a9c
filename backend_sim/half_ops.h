/// float16 on the CPU as the GPU computes it. x86 has no half arithmetic: LLVM widens each
/// operation to float32 and rounds back, which is exact for +, -, *, / and sqrt (float32
/// holds more than twice half's precision) but not for fma, where the GPU's fma.rn.f16
/// rounds once. This step rounds fma once too.
#pragma once

namespace llvm {
class Module;
}

namespace cutwin::sim {

/// Replaces every llvm.fma.f16 / llvm.fmuladd.f16 by a call of `cutwin_sim_fma_f16` (a host
/// callback: fma of three float16 bit patterns, rounded once to nearest, ties to even; a NaN
/// result is the GPU's canonical 0x7fff).
void roundHalfFmaOnce(llvm::Module &m);

} // namespace cutwin::sim
