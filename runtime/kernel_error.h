/// Turning a filled error record into the exception users see.
#pragma once

#include "frontend/ir/error_record.h"
#include "frontend/ir/kernel_ir.h"

namespace cutwin::rt {

/// "kernel.py:12 in vadd, thread (5,0,0) block (3,0,0): index 1024 out of bounds for
/// axis 0 with size 1024". Throws KernelError.
[[noreturn]] void throwKernelError(const ir::ErrorRecord &rec, const ir::KernelInfo &info);

} // namespace cutwin::rt
