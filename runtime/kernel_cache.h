/// The kernel cache on disk: kernels compiled by one process, loaded by the next without
/// running the compiler (numba's `cache=True`; on by default for the simulator). An entry
/// is a file named by its key (runtime/cache_key.h) holding the kernel's KernelInfo and the
/// backend's image of its code (KernelCompiler::compile / load); docs/simulator.md "Kernel
/// cache" says what is kept, where, and how to turn it off.
///
/// Safe under concurrent processes: an entry is written to a file of its own and renamed
/// into place, so a reader sees a whole entry or none; a damaged or foreign file is a miss
/// (and is removed), never a wrong kernel.
#pragma once

#include "cutwin/cutwin.h"
#include "frontend/ir/kernel_ir.h"
#include "runtime/backend.h"

#include <filesystem>
#include <optional>
#include <string>

namespace cutwin::rt {

/// Whether kernels of a backend like `caps` are kept: CUTWIN_CACHE=1 or 0 decides for
/// every module, else the module's CompileOptions::cache, else the backend's default.
bool kernelCacheEnabled(std::optional<bool> requested, const BackendCapabilities &caps);

/// Where entries are: $CUTWIN_CACHE_DIR/kernels, else $XDG_CACHE_HOME/cutwin/kernels, else
/// ~/.cache/cutwin/kernels.
std::filesystem::path kernelCacheDirectory();

struct CachedKernel {
  ir::KernelInfo info;
  std::string image; ///< what KernelCompiler::load takes
};

/// The entry of `key` for a kernel compiled for `types`, if there is a whole one.
std::optional<CachedKernel> readCachedKernel(const std::string &key, const std::vector<fe::Type> &types);
/// Keeps `info` and `image` under `key`, replacing what was there (errors writing are
/// ignored: the cache is an optimisation). Past the size limit ($CUTWIN_CACHE_SIZE_MB, 1024
/// by default; checked at a process's first write unless the folder was pruned in the last
/// hour, and after each eighth of the limit it writes) the least recently used entries go.
void writeCachedKernel(const std::string &key, const ir::KernelInfo &info, const std::string &image);

} // namespace cutwin::rt
