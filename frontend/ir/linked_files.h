/// The files a kernel links (`@cuda.jit(link=[...])`) and the foreign device functions it
/// calls (`cuda.declare_device`): where the files are, and what each backend needs.
#pragma once

#include "frontend/ir/kernel_ir.h"

#include <string>
#include <vector>

namespace cutwin::ir {

/// `info.link` as paths that exist: absolute, relative to the working directory, or
/// relative to the kernel file's directory. Throws an Error naming a file not found, and
/// one for a kernel that calls foreign functions but links nothing.
std::vector<std::string> resolveLinkedFiles(const ir::KernelInfo &info);

/// "file:line:col" of the first call of foreign function `name`.
std::string foreignCallSite(const ir::KernelInfo &info, const std::string &name);

} // namespace cutwin::ir
