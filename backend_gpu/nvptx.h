/// PTX generation with LLVM's NVPTX backend: target machine, optimisation with NVVM
/// reflection (libdevice's __nvvm_reflect), and emission of PTX text.
#pragma once

#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace cutwin::gpu {

/// The target a kernel is compiled for: compute capability and PTX ISA version.
struct GpuTarget {
  std::string arch = "sm_90"; ///< "sm_XY"
  std::string features = "+ptx78";
  bool ftz = false; ///< flush denormals (fastmath): libdevice's __CUDA_FTZ
};

/// NVPTX target machine for `t`, without FMA contraction (the frontend decided it).
llvm::TargetMachine &nvptxTargetMachine(const GpuTarget &t);

/// Sets the triple, data layout and the `nvvm-reflect-ftz` flag libdevice reads.
void prepareModuleForNvptx(llvm::Module &m, const GpuTarget &t);

/// The standard pipeline at `level` with NVPTX's own passes (NVVM reflection first).
void optimizeForNvptx(llvm::Module &m, const GpuTarget &t, int level);

/// PTX text for `m`.
std::string emitPtx(llvm::Module &m, const GpuTarget &t);

} // namespace cutwin::gpu
