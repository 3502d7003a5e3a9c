/// Lowering of typed functions to the kernel IR: one LLVM 16 module per kernel
/// specialisation, target-neutral, with `cutwin.*` intrinsic calls, NVPTX address spaces
/// and DWARF line tables pointing at the .py source.
#pragma once

#include "frontend/ir/abi.h"
#include "frontend/sema/typer.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <vector>

namespace cutwin::ir {

/// A source position that can raise an error or wait at a barrier.
struct Site {
  SourceLoc loc;
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

/// The LLVM data layout and triple the kernel IR is written for (NVPTX's, so that address
/// spaces and pointer sizes mean the same on both backends).
extern const char *const kKernelIRDataLayout;
extern const char *const kKernelIRTriple;

} // namespace cutwin::ir
