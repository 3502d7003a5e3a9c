/// Breakpoints on the simulator: a thread that calls `cutwin_sim_breakpoint` stops, and the
/// process's breakpoint handler runs with the thread's frame (the addresses of its
/// variables) and the state of every thread of the block: for fibers, in the scheduler on
/// its own stack after the fiber switched to it; for a thread loop (a kernel without
/// barriers), in place on the block runner's stack. The thread resumes when the handler
/// returns; a handler that quits ends the launch with LaunchError.
#pragma once

#include "frontend/ir/kernel_ir.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cutwin::sim {

/// One thread of the stopped thread's block, for a debugger's thread table.
struct ThreadAtStop {
  std::array<uint32_t, 3> tid;
  /// "running" (not yet at a barrier), "barrier", "grid barrier", "warp", "breakpoint" or
  /// "exited"
  const char *state;
  int line = 0; ///< the source line it waits at (0: running or exited)
  /// Waiting at a barrier of a debug kernel: the frame it left there, and the site
  /// describing it (its variables); null otherwise.
  void *const *frame = nullptr;
  const ir::BreakpointSite *frameSite = nullptr;
};

struct BreakpointEvent {
  const std::string *kernel = nullptr;
  const ir::BreakpointSite *site = nullptr;
  void *const *frame = nullptr; ///< the addresses of site->locals, in order
  std::array<uint32_t, 3> tid{}, ctaid{}, ntid{}, nctaid{};
  std::vector<ThreadAtStop> threads; ///< every thread of the block, the stopped one included
};

/// Returns false to end the launch.
using BreakpointHandler = std::function<bool(const BreakpointEvent &)>;

/// The process's handler (null: each stop is printed to stderr and the thread goes on).
void setBreakpointHandler(BreakpointHandler handler);

/// Stepping, as a handler asks before it resumes a thread: Into stops the thread at its
/// next statement, Over at its next statement in the same function (`function`).
enum class StepMode { None, Into, Over };
void requestStep(StepMode mode, const std::array<uint32_t, 3> &tid, const std::array<uint32_t, 3> &ctaid,
                 const std::string &function);
/// Line breakpoints: every thread that reaches a statement of `file`:`line` stops there.
void setLineBreakpoint(const std::string &file, int line, bool enabled);
void clearLineBreakpoints();
/// Whether the thread (tid, ctaid) at line event `site` stops: a step that ends there
/// (which this clears) or a breakpoint on its line. Cheap while nothing is asked.
bool lineStopWanted(const ir::BreakpointSite &site, const uint32_t tid[3], const uint32_t ctaid[3]);
/// A launch ended: a step not completed does not carry over to the next one.
void endLaunchSteps();
/// The JIT symbol of a byte that is non-zero while a step or a line breakpoint exists:
/// line events test it inline and call the host only then.
inline constexpr const char *kLineEventsArmedSymbol = "cutwin_sim_line_events_armed";
void *lineEventsArmedAddress();
/// Calls the handler (the scheduler, for a thread that stopped).
bool handleBreakpoint(const BreakpointEvent &event);

} // namespace cutwin::sim
