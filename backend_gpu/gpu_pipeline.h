/// The GPU's steps (stages Gpu, Nvptx and Nvvm in frontend/ir/pipeline_steps.def), from
/// kernel IR to PTX: gpu-lower, then gpu-libdevice, gpu-optimize and gpu-ptx with LLVM's
/// NVPTX backend, or gpu-hoist, gpu-nvvm-ir and gpu-ptx with libNVVM.
#pragma once

#include "backend_gpu/lower_intrinsics.h"
#include "backend_gpu/nvptx.h"
#include "frontend/ir/kernel_ir.h"
#include "frontend/ir/step_runner.h"

#include <optional>
#include <string>

namespace cutwin::gpu {

/// A kernel compiled for the GPU.
struct GpuProgram {
  std::string ptx;
  std::string ltoir; ///< instead of PTX when PipelineOptions::lto
  bool usesBarrier = false;
  bool cooperative = false; ///< syncs the grid: launched with cuLaunchCooperativeKernel
};

/// The target for `info` on `arch` ("sm_XY"): fastmath flushes denormals.
GpuTarget gpuTarget(const ir::KernelInfo &info, const std::string &arch);

/// The module steps: gpu-lower, then gpu-libdevice and gpu-optimize (NVPTX) or gpu-hoist
/// (libNVVM), as opts.codegen says; or only the step `only`.
void runGpuModuleSteps(llvm::Module &m, const ir::KernelInfo &info, const ir::PipelineOptions &opts,
                       const GpuTarget &target, ir::StepRunner &steps, GpuLoweringResult &lowered,
                       std::optional<ir::Step> only = {});

/// Step gpu-nvvm-ir: the module in the LLVM 7 dialect libNVVM reads.
std::string printForNvvm(llvm::Module &m, ir::StepRunner &steps);
/// Step gpu-ptx with libNVVM: PTX (or LTO-IR when opts.lto) from gpu-nvvm-ir's text.
std::string ptxFromNvvm(const llvm::Module &m, const std::string &text, const ir::KernelInfo &info,
                        const ir::PipelineOptions &opts, const GpuTarget &target);
/// Ends step gpu-ptx, printing the PTX when asked.
void printPtx(const std::string &ptx, ir::StepRunner &steps);

/// Every GPU step.
GpuProgram compileGpuProgram(ir::KernelIR ir, const ir::PipelineOptions &opts, const std::string &arch,
                             ir::StepRunner &steps);

/// A kernel compiled for the GPU.
struct GpuCompiled {
  std::string name;
  std::string entry; ///< PTX entry name (the kernel IR function name)
  std::string ptx;
  std::string ltoir;             ///< instead of PTX when PipelineOptions::lto
  std::vector<std::string> link; ///< files to link (resolved by the runtime)
  bool usesBarrier = false;
  bool cooperative = false; ///< syncs the grid: launched with cuLaunchCooperativeKernel
};

/// The GPU's steps: gpu-lower, then with LLVM's NVPTX backend gpu-libdevice, gpu-optimize,
/// gpu-ptx; with libNVVM gpu-hoist, gpu-nvvm-ir (the printed LLVM 7 dialect) and gpu-ptx.
/// `arch` is "sm_XY"; opts.codegen chooses the code generator.
GpuCompiled compileForGpu(ir::KernelIR ir, const ir::PipelineOptions &opts,
                          const std::string &arch = "sm_90");

} // namespace cutwin::gpu
