/// The CUDA toolkit's NVRTC, loaded at run time: CUDA C++ source (a `.cu` file given to
/// `@cuda.jit(link=[...])`) in, relocatable PTX out, for the driver's linker.
#pragma once

#include <string>
#include <vector>

namespace cutwin::gpu {

/// True if NVRTC can be loaded ($CUTWIN_LIBNVRTC, else the toolkit's lib64).
bool nvrtcAvailable(std::string *whyNot = nullptr);

/// Compiles `source` (named `path` in messages; its directory is on the include path) for
/// `arch` ("sm_90") with -rdc=true and -fmad=false (no contraction, as on the simulator). Throws CompileError
/// with NVRTC's log on failure.
std::string compileCudaToPtx(const std::string &source, const std::string &path, const std::string &arch);

} // namespace cutwin::gpu
