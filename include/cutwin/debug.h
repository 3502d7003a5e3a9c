/// The debugger for kernels on the simulator (`breakpoint()`, `pdb.set_trace()`,
/// `cuda.breakpoint(cond)`, line breakpoints, steps, watchpoints, post-mortem stops): in a
/// kernel compiled with debug=True, a simulated thread that stops calls the process's
/// breakpoint handler with what the thread sees; the thread goes on as the handler says.
/// The Python package's prompt (`cutwin.debug`) is such a handler. GPU kernels do not stop.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cutwin {

/// A simulated thread stopped for the debugger.
struct BreakpointStop {
  enum class Cause {
    Breakpoint,     ///< breakpoint(), pdb.set_trace(), cuda.breakpoint(cond)
    Step,           ///< a step, next, finish or until ended here
    LineBreakpoint, ///< a line breakpoint (`lineBreakpoints`)
    Watch,          ///< a store changed a watched element (`watch`)
    Error,          ///< post-mortem: `reason` is about to end the launch
  };
  Cause cause = Cause::Breakpoint;
  std::string kernel;   ///< the kernel launched
  std::string function; ///< the (device) function it stopped in: frames[0]'s
  std::string file;
  int line = 0, column = 0;
  bool atReturn = false; ///< the function is about to return (after its last statement)
  /// Error: the error about to be raised (an index out of bounds, an assert, a raise,
  /// barrier or warp divergence, an illegal address).
  std::string reason;
  std::vector<int> lineBreakpoints; ///< LineBreakpoint: the ids of the breakpoints of this line
  struct WatchChange {
    int id = 0;
    std::vector<uint8_t> before, after; ///< the element's bytes
  } watch;                              ///< Watch
  std::array<uint32_t, 3> threadIdx{}, blockIdx{}, blockDim{}, gridDim{};
  /// A variable of a function, where it lives in the thread's frame. Scalars: the value
  /// (numpy's `dtype`, one byte for bool). Arrays: a struct of the data address, then
  /// `ndim` extents and `ndim` byte strides (int64 each): the array is writable through it.
  struct Variable {
    std::string name;
    std::string dtype; ///< "float32", "int64", "bool", "complex128", ...
    int ndim = 0;      ///< 0 for a scalar
    void *address = nullptr;
    /// An array's memory: "global", "shared", "const" or "local" (the thread's own; its address is
    /// another thread's after this one ends). Empty for a scalar.
    std::string memory;
  };
  std::vector<Variable> variables; ///< frames[0]'s
  /// One function of the thread's call stack: where it is (for a caller, the line of its
  /// call) and its variables there.
  struct Frame {
    std::string function, file;
    int line = 0;
    std::vector<Variable> variables;
  };
  std::vector<Frame> frames; ///< innermost first
  /// Every thread of the block (in a cooperative launch, of every resident block): where it
  /// is ("running", "barrier", "grid barrier", "warp", "breakpoint", "exited", "faulted"),
  /// the line it waits at (0 if none), and the functions it is in (empty where unknown:
  /// not started, exited).
  struct Thread {
    std::array<uint32_t, 3> threadIdx{}, blockIdx{};
    std::string state;
    int line = 0;
    std::vector<Frame> frames;
  };
  std::vector<Thread> threads;
};

/// How the stopped thread goes on.
enum class Resume {
  Continue, ///< the thread goes on
  Quit,     ///< the launch ends: it throws LaunchError naming where
  StepInto, ///< the thread goes on and stops at its next statement (or where its function returns)
  StepOver, ///< ... at its next statement in this function or a caller
  StepOut,  ///< ... where this function returns
  Until,    ///< ... at a statement of this function at `line` or later, or where it returns
};
struct Action {
  Resume resume = Resume::Continue;
  int line = 0; ///< Until
  Action(Resume r = Resume::Continue, int l = 0) : resume(r), line(l) {}
};
using BreakpointHandler = std::function<Action(const BreakpointStop &)>;

/// Sets the process's handler; an empty one prints each stop to stderr and goes on.
void setBreakpointHandler(BreakpointHandler handler);

using ThreadFilter = std::optional<std::array<uint32_t, 3>>;

/// A line breakpoint: every thread of a debug kernel (of threadIdx `thread` and blockIdx
/// `block`, if given) that reaches a statement of `file`:`line` stops there (file as the
/// kernel's source path). Returns its id.
int addLineBreakpoint(const std::string &file, int line, ThreadFilter thread = {}, ThreadFilter block = {});
void removeLineBreakpoint(int id);
void clearLineBreakpoints();

/// A watchpoint: a store by a thread of a debug kernel (of `thread` and `block`, if given)
/// that changes any of the `bytes` bytes at `address` (simulated memory: a device array's
/// element, or shared or local memory seen at a stop) stops that thread just after it.
/// `launchScoped`: removed when the launch running now ends. Returns its id.
int addWatchpoint(void *address, size_t bytes, ThreadFilter thread = {}, ThreadFilter block = {},
                  bool launchScoped = false);
void removeWatchpoint(int id);
void clearWatchpoints();
/// The watchpoints that exist (those scoped to a launch that ended are gone).
std::vector<int> watchpointIds();

} // namespace cutwin
