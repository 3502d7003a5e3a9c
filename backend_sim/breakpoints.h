/// The debugger on the simulator: where a thread of a debug kernel stops and what the
/// process's breakpoint handler sees there. A thread stops at a `breakpoint()`, at the line
/// event of a statement while a step or a line breakpoint asks for it, at the return event
/// of a function it steps out of, after a store that changed a watched element
/// (watchpoints.h), and before an error ends it (post-mortem). Its fiber switches to the
/// scheduler, which calls the handler on its own stack; in a thread loop (a kernel without
/// barriers) the handler runs in place. The handler sees the thread's call stack (each
/// function's frame record: backend_sim/thread_context.h) and every thread of its block;
/// the thread resumes when the handler returns, and a handler that quits ends the launch
/// with LaunchError.
#pragma once

#include "backend_sim/thread_context.h"
#include "frontend/ir/kernel_ir.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cutwin::sim {

using Dim = std::array<uint32_t, 3>;

/// One function of a thread's call stack: where it is and the addresses of its variables
/// (`site->locals`, in order).
struct StackFrame {
  const ir::BreakpointSite *site = nullptr;
  void *const *variables = nullptr;
  const DebugFrameRecord *record = nullptr; ///< which call of the function it is
};

/// A thread's call stack from its debug stack, innermost first; `innermost` (a stop's own
/// site) replaces the innermost record's current site when given.
std::vector<StackFrame> callStack(const std::vector<ir::BreakpointSite> &sites, const DebugFrameRecord *top,
                                  const ir::BreakpointSite *innermost = nullptr);

/// One thread of a resident block, for a debugger's thread table.
struct ThreadAtStop {
  Dim tid{}, ctaid{};
  /// "running" (not yet at a barrier), "barrier", "grid barrier", "warp", "breakpoint",
  /// "exited" or "faulted"
  const char *state = "running";
  int line = 0;                  ///< the source line it waits at (0: running or exited)
  std::vector<StackFrame> stack; ///< where its functions are (empty where not known)
};

/// Why a thread stopped.
enum class StopCause : uint8_t {
  Breakpoint,     ///< breakpoint(), pdb.set_trace(), cuda.breakpoint(cond)
  Step,           ///< a step, next, finish or until the handler asked for ended here
  LineBreakpoint, ///< a line breakpoint (`lineBreakpoints` says which)
  Watch,          ///< a store changed a watched element (`watch`)
  Error,          ///< post-mortem: `reason` is about to end the launch
};

/// A watched element that a store changed: its bytes before and after.
struct WatchHit {
  int id = 0;
  std::vector<uint8_t> before, after;
};

struct BreakpointEvent {
  const std::string *kernel = nullptr;
  StopCause cause = StopCause::Breakpoint;
  bool atReturn = false;         ///< at the return event of stack[0]'s function
  std::string reason;            ///< Error: the error about to be raised
  std::vector<int> lineBreaks;   ///< LineBreakpoint: the ids that matched
  WatchHit watch;                ///< Watch
  std::vector<StackFrame> stack; ///< the stopped thread's functions, innermost first
  Dim tid{}, ctaid{}, ntid{}, nctaid{};
  /// Every thread of the block, the stopped one included; in a cooperative launch also the
  /// threads of the other resident blocks.
  std::vector<ThreadAtStop> threads;
};

/// Returns false to end the launch.
using BreakpointHandler = std::function<bool(const BreakpointEvent &)>;

/// The process's handler (null: each stop is printed to stderr and the thread goes on).
void setBreakpointHandler(BreakpointHandler handler);
/// Calls the handler (the scheduler, for a thread that stopped).
bool handleBreakpoint(const BreakpointEvent &event);

/// What the stopped thread does next, as a handler asks before it resumes a thread.
enum class StepMode {
  None,
  Into,  ///< stop at its next statement (or return)
  Over,  ///< ... in this function or a caller
  Out,   ///< stop where this function returns
  Until, ///< stop at a statement of this function at `line` or later, or where it returns
};
void requestStep(StepMode mode, const Dim &tid, const Dim &ctaid, const DebugFrameRecord *frame,
                 int line = 0);

/// A line breakpoint: a thread of a debug kernel (of the given threadIdx and blockIdx, if
/// any) that reaches a statement of `file`:`line` stops there. Returns its id.
int addLineBreakpoint(const std::string &file, int line, std::optional<Dim> tid = {},
                      std::optional<Dim> ctaid = {});
void removeLineBreakpoint(int id);
void clearLineBreakpoints();

/// Whether a thread at line or return event `site` stops: a step that ends there (which
/// this clears) or line breakpoints of its line (their ids in `ids`).
std::optional<StopCause> lineStop(const ir::BreakpointSite &site, const ThreadContext &tc,
                                  std::vector<int> &ids);
/// A launch ended: a step not completed does not carry over to the next one.
void endLaunchSteps();

/// The JIT symbol of a byte that debug kernels test inline before calling the host: bit 0
/// while a step or a line breakpoint exists (line and return events), bit 1 while a
/// watchpoint exists (stores).
inline constexpr const char *kDebugArmedSymbol = "cutwin_sim_debug_armed";
inline constexpr uint8_t kArmedLines = 1, kArmedWatches = 2;
void *debugArmedAddress();
void setArmed(uint8_t bit, bool on);

} // namespace cutwin::sim
