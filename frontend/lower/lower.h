/// Lowering of typed functions to the kernel IR: one LLVM 16 module per kernel
/// specialisation, target-neutral, with `cutwin.*` intrinsic calls, NVPTX address spaces
/// and DWARF line tables pointing at the .py source.
#pragma once

#include "frontend/ir/kernel_ir.h"
#include "frontend/sema/typer.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cutwin::ir {

struct LowerOptions {
  bool boundscheck = true; ///< emit index checks (simulator default; GPU only with debug)
  unsigned sanitize = 0;   ///< the simulator sanitizer's checks (ir::SanitizeCheck bits)
  bool debugInfo = true;   ///< DWARF line tables (and locals) for the .py source
  /// Only line directives (numba's lineinfo): what the GPU gets, since full debug info
  /// makes PTX `.target sm_XY, debug`, which the driver compiles unoptimised.
  bool lineDirectivesOnly = false;
  bool debuggerView = false; ///< a debugger traces the process (KernelInfo::debuggerView)
};

/// Lowers `kernel` and every device function it reaches into a fresh module.
KernelIR lowerKernel(const fe::Typer &typer, const fe::FunctionSpec &kernel, const LowerOptions &opts);

/// How code outside cutwin calls a device function compiled on its own (numba's
/// `compile_ptx(..., device=True, abi=...)`).
enum class ExportAbi {
  Numba, ///< `i32 name(T *ret, args...)`: the result stored through `ret`, status 0 returned
  C,     ///< `T name(args...)`: plain parameters and result
};

/// Lowers device function `fn` (typed for its arguments) with an external wrapper named
/// `name` in `abi`. The result converts to `returnType`. Scalars pass by value (bool as
/// i8); arrays as numba's flattened array (meminfo, parent, nitems, itemsize, data,
/// shape..., strides...).
KernelIR lowerDeviceExport(const fe::Typer &typer, const fe::FunctionSpec &fn, const LowerOptions &opts,
                           ExportAbi abi, const std::string &name, const fe::Type &returnType);

/// Adds the files the typed functions ask to link (`link=[...]`) to `files`, each once.
void addLinkedFiles(const fe::Typer &typer, std::vector<std::string> &files);

} // namespace cutwin::ir
