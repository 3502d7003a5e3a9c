/// Linking NVIDIA's libdevice into a kernel module: the `__nv_*` functions the module
/// declares, and what they call, from the CUDA toolkit's libdevice.10.bc. Both backends
/// use it; the simulator then rewrites the linked code for the CPU.
#pragma once

#include <set>
#include <string>

namespace llvm {
class Module;
}

namespace cutwin::ir {

/// Where libdevice.10.bc is read from: $CUTWIN_LIBDEVICE, else the toolkit found at build time.
std::string libdevicePath();

/// Links what `m` needs; returns the names of the functions that were added (empty if the
/// module calls no libdevice function). Throws Error if libdevice cannot be read.
std::set<std::string> linkLibdevice(llvm::Module &m);

} // namespace cutwin::ir
