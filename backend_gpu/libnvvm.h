/// The CUDA toolkit's libNVVM, loaded at run time: NVVM IR text (nvvm_printer.h) plus
/// libdevice in, PTX out.
#pragma once

#include <string>

namespace cutwin::gpu {

struct NvvmOptions {
  std::string arch = "sm_90"; ///< becomes -arch=compute_90
  bool ftz = false;           ///< fastmath: -ftz=1 -prec-div=0 -prec-sqrt=0
  int opt = 3;
  bool lineInfo = false; ///< -generate-line-info: `.loc` directives from the IR's !dbg locations
  bool lto = false;      ///< -gen-lto: LTO-IR (for nvJitLink) instead of PTX
};

/// True if libNVVM can be loaded ($CUTWIN_LIBNVVM, else the toolkit's nvvm/lib64, lib64, lib).
bool libnvvmAvailable(std::string *whyNot = nullptr);
/// The libNVVM file loaded (ir::fileIdentity; empty if none is): part of the GPU's code identity.
std::string libnvvmIdentity();

/// Compiles one NVVM IR module (with libdevice added lazily) to PTX. FMA contraction is
/// off (-fma=0): the frontend already decided every FMA. Throws CompileError with
/// libNVVM's log on failure.
std::string compileWithLibnvvm(const std::string &nvvmIR, const std::string &name, const NvvmOptions &opts);

} // namespace cutwin::gpu
