/// float16 → integer conversions on the CPU with the GPU's result on every host. The frontend
/// converts saturating (llvm.fpto[su]i.sat: NaN gives 0, as the GPU's cvt.rzi does), which
/// LLVM defines for every input; but LLVM 16's x86 code for a signed conversion straight from
/// half, on a host with AVX512-FP16 (Sapphire Rapids and later), forgets the NaN case and
/// returns the most negative integer. Converting the half to float32 first (exact) takes the
/// code path every x86 host shares.
#pragma once

namespace llvm {
class Module;
}

namespace cutwin::sim {

/// Rewrites every llvm.fptosi.sat / llvm.fptoui.sat of a half (or vector of halves) into
/// an fpext to float32 and the same conversion of that.
void convertHalfToIntThroughFloat(llvm::Module &m);

} // namespace cutwin::sim
