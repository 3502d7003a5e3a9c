/// Turning a filled error record into the exception users see.
#pragma once

#include "frontend/ir/error_record.h"
#include "frontend/ir/kernel_ir.h"

#include <array>
#include <string>

namespace cutwin::rt {

/// "kernel.py:12 in vadd, thread (5,0,0) block (3,0,0): index 1024 out of bounds for
/// axis 0 with size 1024". Throws KernelError.
[[noreturn]] void throwKernelError(const ir::ErrorRecord &rec, const ir::KernelInfo &info);

/// The same message from its parts: `function` in `file`, called from `kernel` if they differ.
std::string kernelErrorText(const std::string &file, uint32_t line, const std::string &function,
                            const std::string &kernel, const std::array<uint32_t, 3> &thread,
                            const std::array<uint32_t, 3> &block, const std::string &detail);

} // namespace cutwin::rt
