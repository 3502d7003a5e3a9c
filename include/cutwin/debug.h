/// Breakpoints in kernels (`breakpoint()`, `pdb.set_trace()`, `cuda.breakpoint(cond)`):
/// in a kernel compiled with debug=True, a simulated thread that reaches one stops, and
/// the process's breakpoint handler runs with what the thread sees; the thread goes on
/// when the handler returns. The Python package's prompt (`cutwin.debug`) is such a
/// handler. GPU kernels do not stop.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cutwin {

/// A simulated thread stopped at a breakpoint.
struct BreakpointStop {
  std::string kernel;   ///< the kernel launched
  std::string function; ///< the (device) function the breakpoint is in
  std::string file;
  int line = 0, column = 0;
  /// Empty at a breakpoint; at a post-mortem stop (before a debug kernel raises an error:
  /// an index out of bounds, an assert, a raise) the error about to be raised.
  std::string reason;
  std::array<uint32_t, 3> threadIdx{}, blockIdx{}, blockDim{}, gridDim{};
  /// A variable of the function, where it lives in the thread's frame. Scalars: the value
  /// (numpy's `dtype`, one byte for bool). Arrays: a struct of the data address, then
  /// `ndim` extents and `ndim` byte strides (int64 each): the array is writable through it.
  struct Variable {
    std::string name;
    std::string dtype; ///< "float32", "int64", "bool", "complex128", ...
    int ndim = 0;      ///< 0 for a scalar
    void *address = nullptr;
  };
  std::vector<Variable> variables;
  /// Every thread of the block: where it is ("running", "barrier", "grid barrier",
  /// "warp", "breakpoint", "exited") and the line it waits at (0 if none). A thread
  /// waiting at a barrier also shows its variables there (`function` and `variables`).
  struct Thread {
    std::array<uint32_t, 3> threadIdx{};
    std::string state;
    int line = 0;
    std::string function;
    std::vector<Variable> variables;
  };
  std::vector<Thread> threads;
};

/// How the launch goes on after a stop.
enum class Resume {
  Continue, ///< the thread goes on
  Quit,     ///< the launch ends: it throws LaunchError naming where
  StepInto, ///< the thread goes on and stops at its next statement
  StepOver, ///< ... at its next statement in the same function
};
using BreakpointHandler = std::function<Resume(const BreakpointStop &)>;

/// Sets the process's handler; an empty one prints each stop to stderr and goes on.
void setBreakpointHandler(BreakpointHandler handler);

/// Line breakpoints: every thread of a debug kernel that reaches a statement of
/// `file`:`line` stops there (file as the kernel's source path).
void setLineBreakpoint(const std::string &file, int line, bool enabled = true);
void clearLineBreakpoints();

} // namespace cutwin
