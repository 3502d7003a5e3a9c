/// A kernel's KernelInfo as bytes and back, for the kernel cache on disk
/// (runtime/kernel_cache.h): what the runtime needs of a kernel it did not compile in this
/// process. Kernels compiled for debugging (breakpoint sites) and exported device functions
/// are not kept.
#pragma once

#include "frontend/ir/byte_stream.h"
#include "frontend/ir/kernel_ir.h"

namespace cutwin::ir {

/// Whether writeKernelInfo keeps everything of `info`, a kernel compiled for `argTypes`.
bool kernelInfoKeepable(const KernelInfo &info, const std::vector<fe::Type> &argTypes);
void writeKernelInfo(ByteWriter &w, const KernelInfo &info);
/// The KernelInfo writeKernelInfo wrote of a kernel compiled for `argTypes`; Error if the
/// bytes are not one.
KernelInfo readKernelInfo(ByteReader &r, const std::vector<fe::Type> &argTypes);

} // namespace cutwin::ir
