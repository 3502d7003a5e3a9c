#include "backend_gpu/gpu_pipeline.h"

#include "backend_gpu/libnvvm.h"
#include "backend_gpu/nvvm_printer.h"
#include "cutwin/errors.h"
#include "frontend/ir/libdevice_link.h"
#include "frontend/ir/passes.h"

#include <algorithm>
#include <ostream>

namespace cutwin::gpu {

namespace {

/// launch_bounds' third value, the max cluster rank: a PTX directive after the kernel's
/// .maxntid (neither code generator annotates it).
std::string withClusterRank(std::string ptx, const ir::KernelInfo &info) {
  if (info.launchBounds.size() < 3)
    return ptx;
  size_t at = ptx.find(".maxntid");
  if (at == std::string::npos)
    return ptx;
  size_t eol = ptx.find('\n', at);
  ptx.insert(eol == std::string::npos ? ptx.size() : eol,
             "\n.maxclusterrank " + std::to_string(info.launchBounds[2]));
  return ptx;
}

} // namespace

GpuTarget gpuTarget(const ir::KernelInfo &info, const std::string &arch) {
  GpuTarget target;
  target.arch = arch;
  target.ftz = info.fastmath;
  return target;
}

void runGpuModuleSteps(llvm::Module &m, const ir::KernelInfo &info, const ir::PipelineOptions &opts,
                       const GpuTarget &target, ir::StepRunner &steps, GpuLoweringResult &lowered,
                       std::optional<ir::Step> only) {
  steps.run(ir::Step::GpuLower, only, m, [&](llvm::Module &m) {
    lowered = lowerIntrinsicsForGpu(m, info);
    prepareModuleForNvptx(m, target);
  });
  if (opts.codegen == "nvvm") {
    // libNVVM leaves loop-invariant index arithmetic in conditional blocks inside loops
    // (e.g. a row offset under a bounds test); hoisting it first saves a 64-bit multiply
    // per iteration.
    steps.run(ir::Step::GpuHoist, only, m, [](llvm::Module &m) { ir::hoistLoopInvariants(m); });
    return;
  }
  if (opts.codegen != "nvptx")
    throw Error("unknown GPU code generator '" + opts.codegen + "' (expected nvptx or nvvm)");
  // Reflection answered as libNVVM answers it for the same options (LLVM's NVVMReflect
  // knows only __CUDA_FTZ and __CUDA_ARCH and would take __CUDA_PREC_SQRT as 0), shifts
  // and nvvm.round with PTX's meaning, as libNVVM reads them.
  steps.run(ir::Step::GpuLibdevice, only, m, [&](llvm::Module &m) {
    ir::linkLibdevice(
        m, ir::ReflectValues::forKernel(info.fastmath, unsigned(std::stoi(target.arch.substr(3))) * 10));
  });
  steps.run(ir::Step::GpuOptimize, only, m,
            [&](llvm::Module &m) { optimizeForNvptx(m, target, std::min(opts.optLevel + 1, info.opt)); });
}

std::string printForNvvm(llvm::Module &m, ir::StepRunner &steps) {
  prepareForNvvm(m);
  std::string text = printNvvmIR(m);
  if (steps.dumps(ir::Step::GpuNvvmIR))
    steps.out() << "; *** NVVM IR after gpu-nvvm-ir ***\n" << text;
  steps.finished(ir::Step::GpuNvvmIR, &m);
  return text;
}

std::string ptxFromNvvm(const llvm::Module &m, const std::string &text, const ir::KernelInfo &info,
                        const ir::PipelineOptions &opts, const GpuTarget &target) {
  NvvmOptions no;
  no.arch = target.arch;
  no.ftz = target.ftz;
  no.opt = std::min(3, info.opt);
  no.lineInfo = m.getNamedMetadata("llvm.dbg.cu") != nullptr;
  no.lto = opts.lto;
  return compileWithLibnvvm(text, info.name, no);
}

void printPtx(const std::string &ptx, ir::StepRunner &steps) {
  if (steps.dumps(ir::Step::GpuPtx))
    steps.out() << "// *** PTX after gpu-ptx ***\n" << ptx;
  steps.finished(ir::Step::GpuPtx);
}

GpuProgram compileGpuProgram(ir::KernelIR ir, const ir::PipelineOptions &opts, const std::string &arch,
                             ir::StepRunner &steps) {
  llvm::Module &m = *ir.module;
  GpuTarget target = gpuTarget(ir.info, arch);
  if (opts.lto && opts.codegen != "nvvm")
    throw Error("LTO-IR is made by libNVVM: compile with the nvvm code generator");
  GpuProgram out;
  GpuLoweringResult lowered;
  runGpuModuleSteps(m, ir.info, opts, target, steps, lowered);
  out.usesBarrier = lowered.usesBarrier;
  out.cooperative = lowered.usesGridSync;
  if (opts.codegen == "nvvm") {
    std::string text = printForNvvm(m, steps);
    out.ptx = withClusterRank(ptxFromNvvm(m, text, ir.info, opts, target), ir.info);
    if (opts.lto) {
      out.ltoir = std::move(out.ptx);
      out.ptx.clear();
      return out;
    }
  } else {
    out.ptx = withClusterRank(emitPtx(m, target), ir.info);
  }
  printPtx(out.ptx, steps);
  return out;
}

GpuCompiled compileForGpu(ir::KernelIR ir, const ir::PipelineOptions &opts, const std::string &arch) {
  ir::StepRunner steps(opts);
  GpuCompiled out;
  out.name = ir.info.name;
  out.entry = ir.info.irName;
  GpuProgram p = compileGpuProgram(std::move(ir), opts, arch, steps);
  out.ptx = std::move(p.ptx);
  out.ltoir = std::move(p.ltoir);
  out.usesBarrier = p.usesBarrier;
  out.cooperative = p.cooperative;
  return out;
}

} // namespace cutwin::gpu
