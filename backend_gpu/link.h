/// Linking a kernel's PTX with the files named by `@cuda.jit(link=[...])` through the CUDA
/// driver's JIT linker: `.cu` (compiled by NVRTC), `.ptx`, `.cubin`, `.fatbin`, `.o`, `.a`.
#pragma once

#include "backend_gpu/cuda_driver.h"

#include <string>
#include <vector>

namespace cutwin::gpu {

/// Loads the module made of `ptx` and `files` (paths that exist) for `arch` ("sm_90");
/// `kernel` names the kernel in error messages.
CUmodule loadLinkedModule(const CudaDriver &d, const std::string &ptx, const std::vector<std::string> &files,
                          const std::string &arch, const std::string &kernel);

} // namespace cutwin::gpu
