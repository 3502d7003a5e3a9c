/// A simulator kernel as bytes, for the kernel cache on disk (runtime/kernel_cache.h):
/// what compileForSim found out about it and the object file the JIT linked, which
/// loadSimImage links again (Jit::loadObject) without running a compiler step.
#pragma once

#include "backend_sim/sim_pipeline.h"

#include <string>

namespace cutwin::sim {

std::string simImage(const SimCompiled &c, const std::string &object);
/// The kernel simImage wrote, linked into this process; Error if `image` is not one.
SimCompiled loadSimImage(const std::string &image, const ir::KernelInfo &info);
/// What the simulator's code depends on besides the kernel: the JIT's target (CPU and its
/// features) and the libdevice it links.
std::string simCodeIdentity();

} // namespace cutwin::sim
