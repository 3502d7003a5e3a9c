#include "backend_sim/breakpoints.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <utility>

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

namespace {
/// Non-zero while a step or a line breakpoint exists; JIT code reads it too
/// (kLineEventsArmedSymbol).
std::atomic<uint8_t> lineEventsArmed{0};

struct LineRequests {
  std::mutex mutex;
  StepMode step = StepMode::None;
  std::array<uint32_t, 3> tid{}, ctaid{};
  std::string function;
  std::set<std::pair<std::string, int>> lines;
  void rearm() { lineEventsArmed.store(step != StepMode::None || !lines.empty(), std::memory_order_relaxed); }
};
LineRequests &requests() {
  static LineRequests r;
  return r;
}
} // namespace

void requestStep(StepMode mode, const std::array<uint32_t, 3> &tid, const std::array<uint32_t, 3> &ctaid,
                 const std::string &function) {
  LineRequests &r = requests();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.step = mode;
  r.tid = tid;
  r.ctaid = ctaid;
  r.function = function;
  r.rearm();
}

void setLineBreakpoint(const std::string &file, int line, bool enabled) {
  LineRequests &r = requests();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (enabled)
    r.lines.insert({file, line});
  else
    r.lines.erase({file, line});
  r.rearm();
}

void clearLineBreakpoints() {
  LineRequests &r = requests();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.lines.clear();
  r.rearm();
}

bool lineStopWanted(const ir::BreakpointSite &site, const uint32_t tid[3], const uint32_t ctaid[3]) {
  if (!lineEventsArmed.load(std::memory_order_relaxed))
    return false;
  LineRequests &r = requests();
  std::lock_guard<std::mutex> lock(r.mutex);
  bool self = r.step != StepMode::None && std::equal(tid, tid + 3, r.tid.begin()) &&
              std::equal(ctaid, ctaid + 3, r.ctaid.begin());
  if (self && (r.step == StepMode::Into || site.function == r.function)) {
    r.step = StepMode::None;
    r.rearm();
    return true;
  }
  return r.lines.count({site.file, site.loc.line}) != 0;
}

void *lineEventsArmedAddress() { return &lineEventsArmed; }

void endLaunchSteps() {
  if (!lineEventsArmed.load(std::memory_order_relaxed))
    return;
  LineRequests &r = requests();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.step = StepMode::None;
  r.rearm();
}

} // namespace cutwin::sim
