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
/// Calls the handler (the scheduler, for a thread that stopped).
bool handleBreakpoint(const BreakpointEvent &event);

} // namespace cutwin::sim
