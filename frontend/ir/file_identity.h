/// Files as the kernel cache's keys name them (runtime/cache_key.h): what a compiled
/// kernel's code depends on besides its inputs - the cutwin build, LLVM, libdevice,
/// libNVVM - so that a replaced file is a new key.
#pragma once

#include <string>

namespace cutwin::ir {

/// `path` with its inode, size and modification time; just `path` if there is no such file.
std::string fileIdentity(const std::string &path);
/// fileIdentity of the shared library or program whose code holds `address` (empty if
/// none can be found).
std::string identityOfFileHolding(const void *address);

} // namespace cutwin::ir
