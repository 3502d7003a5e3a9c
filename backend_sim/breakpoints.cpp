#include "backend_sim/breakpoints.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>

namespace cutwin::sim {

namespace {
std::mutex handlerMutex;
BreakpointHandler &handler() {
  static BreakpointHandler h;
  return h;
}

/// What JIT code reads (kDebugArmedSymbol).
std::atomic<uint8_t> debugArmed{0};

int depthOf(const DebugFrameRecord *r) {
  int d = 0;
  for (; r; r = r->caller)
    ++d;
  return d;
}
} // namespace

std::vector<StackFrame> callStack(const std::vector<ir::BreakpointSite> &sites, const DebugFrameRecord *top,
                                  const ir::BreakpointSite *innermost) {
  std::vector<StackFrame> out;
  for (const DebugFrameRecord *r = top; r; r = r->caller) {
    const ir::BreakpointSite *site = r == top && innermost    ? innermost
                                     : r->site < sites.size() ? &sites[r->site]
                                                              : nullptr;
    if (site)
      out.push_back({site, r->variables, r});
  }
  return out;
}

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
  const ir::BreakpointSite *s = e.stack.empty() ? nullptr : e.stack[0].site;
  std::fprintf(stderr,
               "cutwin: breakpoint in kernel '%s' at %s:%d, thread (%u, %u, %u), block (%u, %u, %u)\n",
               e.kernel->c_str(), s ? s->file.c_str() : "?", s ? s->loc.line : 0, e.tid[0], e.tid[1],
               e.tid[2], e.ctaid[0], e.ctaid[1], e.ctaid[2]);
  return true;
}

void *debugArmedAddress() { return &debugArmed; }

void setArmed(uint8_t bit, bool on) {
  if (on)
    debugArmed.fetch_or(bit, std::memory_order_relaxed);
  else
    debugArmed.fetch_and(uint8_t(~bit), std::memory_order_relaxed);
}

namespace {

struct LineBreakpoint {
  std::string file;
  int line = 0;
  std::optional<Dim> tid, ctaid;
};

struct Step {
  StepMode mode = StepMode::None;
  Dim tid{}, ctaid{};
  const DebugFrameRecord *frame = nullptr; ///< the function it was asked in
  int depth = 0;                           ///< ... and its depth on the debug stack
  int line = 0;                            ///< Until
};

struct LineRequests {
  std::mutex mutex;
  Step step;
  int nextId = 1;
  std::map<int, LineBreakpoint> lines;
  void rearm() { setArmed(kArmedLines, step.mode != StepMode::None || !lines.empty()); }
};
LineRequests &requests() {
  static LineRequests r;
  return r;
}

bool sameThread(const Step &s, const ThreadContext &tc) {
  return std::equal(tc.tid, tc.tid + 3, s.tid.begin()) && std::equal(tc.ctaid, tc.ctaid + 3, s.ctaid.begin());
}

/// Whether the step `s` of this thread ends at `site` (a line or return event).
bool stepEnds(const Step &s, const ir::BreakpointSite &site, const ThreadContext &tc) {
  bool atReturn = site.kind == ir::StopKind::Return;
  const DebugFrameRecord *top = tc.debugTop;
  switch (s.mode) {
  case StepMode::None: return false;
  case StepMode::Into: return true;
  case StepMode::Over: return depthOf(top) <= s.depth;
  case StepMode::Out: return atReturn && top == s.frame;
  case StepMode::Until: return top == s.frame && (atReturn || site.loc.line >= s.line);
  }
  return false;
}

} // namespace

void requestStep(StepMode mode, const Dim &tid, const Dim &ctaid, const DebugFrameRecord *frame, int line) {
  LineRequests &r = requests();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.step = {mode, tid, ctaid, frame, depthOf(frame), line};
  r.rearm();
}

int addLineBreakpoint(const std::string &file, int line, std::optional<Dim> tid, std::optional<Dim> ctaid) {
  LineRequests &r = requests();
  std::lock_guard<std::mutex> lock(r.mutex);
  int id = r.nextId++;
  r.lines[id] = {file, line, tid, ctaid};
  r.rearm();
  return id;
}

void removeLineBreakpoint(int id) {
  LineRequests &r = requests();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.lines.erase(id);
  r.rearm();
}

void clearLineBreakpoints() {
  LineRequests &r = requests();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.lines.clear();
  r.rearm();
}

std::optional<StopCause> lineStop(const ir::BreakpointSite &site, const ThreadContext &tc,
                                  std::vector<int> &ids) {
  if (!(debugArmed.load(std::memory_order_relaxed) & kArmedLines))
    return std::nullopt;
  LineRequests &r = requests();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.step.mode != StepMode::None && sameThread(r.step, tc)) {
    if (stepEnds(r.step, site, tc)) {
      r.step.mode = StepMode::None;
      r.rearm();
      return StopCause::Step;
    }
    if (site.kind == ir::StopKind::Return && tc.debugTop && !tc.debugTop->caller) {
      r.step.mode = StepMode::None; // the thread ends: nothing of it is left to stop at
      r.rearm();
    }
  }
  if (site.kind != ir::StopKind::Line)
    return std::nullopt;
  for (const auto &[id, b] : r.lines) {
    if (b.line != site.loc.line || b.file != site.file)
      continue;
    if (b.tid && !std::equal(tc.tid, tc.tid + 3, b.tid->begin()))
      continue;
    if (b.ctaid && !std::equal(tc.ctaid, tc.ctaid + 3, b.ctaid->begin()))
      continue;
    ids.push_back(id);
  }
  if (ids.empty())
    return std::nullopt;
  return StopCause::LineBreakpoint;
}

void endLaunchSteps() {
  if (!(debugArmed.load(std::memory_order_relaxed) & kArmedLines))
    return;
  LineRequests &r = requests();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.step.mode = StepMode::None;
  r.rearm();
}

} // namespace cutwin::sim
