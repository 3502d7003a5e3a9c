#include "backend_sim/breakpoints.h"

#include <cstdio>
#include <mutex>

namespace cutwin::sim {

namespace {
std::mutex handlerMutex;
BreakpointHandler &handler() {
  static BreakpointHandler h;
  return h;
}
} // namespace

void setBreakpointHandler(BreakpointHandler h) {
  std::lock_guard<std::mutex> lock(handlerMutex);
  handler() = std::move(h);
}

bool handleBreakpoint(const BreakpointEvent &e) {
  BreakpointHandler h;
  {
    std::lock_guard<std::mutex> lock(handlerMutex);
    h = handler();
  }
  if (h)
    return h(e);
  std::fprintf(stderr,
               "cutwin: breakpoint in kernel '%s' at %s:%d, thread (%u, %u, %u), block (%u, %u, %u)\n",
               e.kernel->c_str(), e.site->file.c_str(), e.site->loc.line, e.tid[0], e.tid[1], e.tid[2],
               e.ctaid[0], e.ctaid[1], e.ctaid[2]);
  return true;
}

} // namespace cutwin::sim
