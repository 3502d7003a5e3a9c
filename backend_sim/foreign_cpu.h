/// CPU versions of foreign device functions (`cuda.declare_device` + `link=[...]`) for
/// the simulator: each linked C++/CUDA source (a `.cu`, `.cpp`, `.cc` or `.c` file, or one
/// of those beside a `.ptx`/`.cubin`/`.o`/... of the same stem) is compiled by the host's
/// C++ compiler into a shared library, with `__device__` and friends defined away, and the
/// functions are taken from it. Libraries are cached by content hash.
#pragma once

#include "frontend/ir/kernel_ir.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cutwin::sim {

struct ForeignRequest {
  std::string kernel;                           ///< for messages
  std::vector<std::string> files;               ///< linked files (existing paths)
  std::map<std::string, std::string> functions; ///< name -> call site "file:line:col"
};

/// The address of each requested function; throws Error naming a function with no CPU
/// version, or the compiler's message when a source does not compile.
std::map<std::string, uint64_t> foreignFunctionsForCpu(const ForeignRequest &request);
/// What a kernel asks for: the foreign functions it calls and the files it links (none:
/// an empty request).
ForeignRequest foreignRequestOf(const ir::KernelInfo &info);

} // namespace cutwin::sim
