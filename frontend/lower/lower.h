/// Lowering of typed functions to the kernel IR: one LLVM 16 module per kernel
/// specialisation, target-neutral, with `cutwin.*` intrinsic calls, NVPTX address spaces
/// and DWARF line tables pointing at the .py source.
#pragma once

#include "frontend/ir/abi.h"
#include "frontend/sema/typer.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cutwin::ir {

/// A source position that can raise an error or wait at a barrier.
struct Site {
  SourceLoc loc;
  std::string file;     ///< source path of the function containing it
  std::string function; ///< Python name of the function containing it
  std::string what;     ///< "index", "barrier", "assert", "raise"
  std::string detail;   ///< assert message, or "ValueError: text" for raise
};

/// Everything the backends and the runtime need to know about a compiled kernel besides
/// its IR.
struct KernelInfo {
  std::string name;   ///< Python name
  std::string irName; ///< LLVM function name of the kernel entry
  std::string file;   ///< kernel source path
  std::vector<fe::Type> argTypes;
  ArgLayout layout;
  std::vector<Site> sites;
  bool debug = false;
  bool boundscheck = true;
  bool fastmath = false;
  int opt = 3; ///< @cuda.jit(opt=...); debug=True compiles at 0 as numba does
  /// A device function compiled on its own (compile_ptx): irName is an external device
  /// function, not a kernel entry, and `layout` is empty.
  bool exported = false;
  fe::Type exportedReturnType; ///< exported: the result type the wrapper returns
  /// Device functions called from linked code (cuda.declare_device): their names there and
  /// the line of the first call, for the simulator's error when it has no CPU version.
  std::map<std::string, SourceLoc> foreign;
  /// Files to link with the kernel (@cuda.jit(link=[...]) of it and its device functions).
  std::vector<std::string> link;
  /// @cuda.jit(launch_bounds=...): max threads per block[, min blocks per SM[, max
  /// cluster rank]]; a launch with larger blocks is refused on both backends.
  std::vector<int> launchBounds;
};

struct KernelIR {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  KernelInfo info;
};

struct LowerOptions {
  bool boundscheck = true; ///< emit index checks (simulator default; GPU only with debug)
  bool debugInfo = true;   ///< DWARF line tables (and locals) for the .py source
  /// Only line directives (numba's lineinfo): what the GPU gets, since full debug info
  /// makes PTX `.target sm_XY, debug`, which the driver compiles unoptimised.
  bool lineDirectivesOnly = false;
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

/// The LLVM data layout and triple the kernel IR is written for (NVPTX's, so that address
/// spaces and pointer sizes mean the same on both backends).
extern const char *const kKernelIRDataLayout;
extern const char *const kKernelIRTriple;

} // namespace cutwin::ir
