/// NVIDIA's libdevice compiled for the CPU, so that kernel math on the simulator is the
/// GPU's math (ARCHITECTURE.md, numerics policy). The functions a kernel calls are linked
/// from the toolkit's libdevice.10.bc; `__nvvm_reflect` is resolved as the GPU path
/// resolves it; every NVVM intrinsic and inline-PTX block they reach becomes an exact CPU
/// equivalent (directed rounding through host helpers, the hardware approximation units
/// from measured tables: approx_tables.h).
#pragma once

#include "frontend/ir/libdevice_link.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class Module;
}

namespace cutwin::sim {

/// How `__nvvm_reflect` is answered: as on the GPU for the kernel's options.
using LibdeviceOptions = ir::ReflectValues;

/// Links the libdevice functions `m` declares (`__nv_*`) and rewrites them for the CPU.
/// No-op if `m` calls none. Throws Error if libdevice cannot be found or a function
/// needs something the simulator cannot reproduce.
void linkLibdeviceForCpu(llvm::Module &m, const LibdeviceOptions &opts);

/// Host functions the rewritten libdevice code calls (name, address). A helper `h` taking
/// and returning one number may come with `h` + kLanesSuffix, the same over lanes:
/// void(const T *in, T *out, int32 n), which vector variants call (vector_variants.h).
inline constexpr const char *kLanesSuffix = "_lanes";
std::vector<std::pair<std::string, void *>> libdeviceHostSymbols();

} // namespace cutwin::sim
