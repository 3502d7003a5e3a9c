/// The kernel IR as the backends receive it: one LLVM module per kernel specialisation
/// (docs/ir.md) and what they need to know of the kernel besides the IR. This header is
/// the frontend's whole interface to the backends: it knows no syntax tree and no typer.
#pragma once

#include "cutwin/errors.h"
#include "frontend/ir/abi.h"
#include "frontend/sema/types.h"

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

/// A variable a debugger shows at a breakpoint: a local or argument of the function the
/// breakpoint is in, of a scalar or array type (docs/abi.md's layout in memory).
struct DebugLocal {
  std::string name;
  fe::Type type;
};

/// What a `cutwin.breakpoint` call of a debug kernel is for.
enum class StopKind : uint8_t {
  Breakpoint, ///< breakpoint(), pdb.set_trace(), cuda.breakpoint(cond), or an error exit
  Line,       ///< a statement's start: stops a thread being stepped, or at a line breakpoint
  Return,     ///< the function returns: stops a thread being stepped out of it
};

/// A `cutwin.breakpoint` call of a kernel compiled for debugging. The call passes the
/// site's index and the function's frame record, whose variables are the addresses of
/// `locals`' slots, in that order (one list per function, shared by its sites).
struct BreakpointSite {
  SourceLoc loc;
  std::string file;     ///< source path of the function containing it
  std::string function; ///< Python name of the function containing it
  std::shared_ptr<const std::vector<DebugLocal>> locals;
  /// Empty for a breakpoint; for a post-mortem stop (the error exit of a checked index,
  /// an assert or a raise in a debug kernel), the error about to be raised.
  std::string reason;
  StopKind kind = StopKind::Breakpoint;
};

/// Everything the backends and the runtime need to know about a compiled kernel besides
/// its IR.
struct KernelInfo {
  std::string name;   ///< Python name
  std::string irName; ///< LLVM function name of the kernel entry
  std::string file;   ///< kernel source path
  std::vector<fe::Type> argTypes;
  std::vector<std::string> argNames; ///< the kernel's parameters, as the source names them
  ArgLayout layout;
  std::vector<Site> sites;
  std::vector<BreakpointSite> breakpoints;
  bool debug = false;
  bool lineinfo = false; ///< @cuda.jit(lineinfo=True): what inspect_llvm and inspect_asm show (line tables)
  /// debug, compiled while a debugger (gdb) traces the process: the kernel declares the
  /// `cuda` variable for it and the simulator keeps functions out of line and unoptimised,
  /// so that gdb steps lines in order and shows each simulated thread as a frame.
  bool debuggerView = false;
  bool boundscheck = true;
  /// The simulator's sanitizer checks (ir::SanitizeCheck bits, sanitize_checks.h); the GPU ignores them.
  unsigned sanitize = 0;
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
  /// numba's compile-time warnings (its NumbaWarning; Python warns with each on the launch
  /// that compiled the kernel).
  std::vector<std::string> warnings;
};

struct KernelIR {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  KernelInfo info;
};

/// The LLVM data layout and triple the kernel IR is written for (NVPTX's, so that address
/// spaces and pointer sizes mean the same on both backends).
extern const char *const kKernelIRDataLayout;
extern const char *const kKernelIRTriple;

} // namespace cutwin::ir
