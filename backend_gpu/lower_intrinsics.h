/// GPU lowering of the kernel IR: `cutwin.*` calls become NVVM intrinsics (special
/// registers, bar.sync) and the error channel's compare-and-swap protocol; kernels get
/// their `nvvm.annotations`. The result is NVPTX-ready LLVM IR.
#pragma once

#include "frontend/ir/kernel_ir.h"

#include <llvm/IR/Module.h>

namespace cutwin::gpu {

struct GpuLoweringResult {
  bool usesBarrier = false;
  bool usesGridSync = false; ///< launch with cuLaunchCooperativeKernel
};

GpuLoweringResult lowerIntrinsicsForGpu(llvm::Module &m, const ir::KernelInfo &info);

} // namespace cutwin::gpu
