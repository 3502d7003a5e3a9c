// The public debugger API (cutwin/debug.h) over the simulator's breakpoints and watchpoints
// (backend_sim/breakpoints.h, watchpoints.h): a stop described in the runtime's terms.
#include "cutwin/debug.h"

#include "backend_sim/breakpoints.h"
#include "backend_sim/watchpoints.h"
#include "runtime/module_impl.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cutwin {

namespace {
std::string memoryOf(const fe::Type &t) {
  if (!t.isArray())
    return "";
  switch (t.space) {
  case fe::MemSpace::Shared: return "shared";
  case fe::MemSpace::Local: return "local";
  case fe::MemSpace::Const: return "const";
  default: return "global";
  }
}

/// The variables of `f` (their addresses, in its site's order); the return value only where
/// the function returns.
std::vector<BreakpointStop::Variable> variables(const sim::StackFrame &f, bool atReturn) {
  std::vector<BreakpointStop::Variable> out;
  if (!f.variables || !f.site->locals)
    return out;
  for (size_t k = 0; k < f.site->locals->size(); ++k) {
    const ir::DebugLocal &v = (*f.site->locals)[k];
    if (v.name == "__return__" && !atReturn)
      continue;
    out.push_back({v.name, fe::scalarName(v.type.scalar), v.type.isArray() ? int(v.type.ndim) : 0,
                   f.variables[k], memoryOf(v.type)});
  }
  return out;
}

std::vector<BreakpointStop::Frame> frames(const std::vector<sim::StackFrame> &stack, bool atReturn = false) {
  std::vector<BreakpointStop::Frame> out;
  for (const sim::StackFrame &f : stack)
    out.push_back(
        {f.site->function, f.site->file, int(f.site->loc.line), variables(f, atReturn && out.empty())});
  return out;
}

BreakpointStop::Cause cause(sim::StopCause c) {
  switch (c) {
  case sim::StopCause::Breakpoint: return BreakpointStop::Cause::Breakpoint;
  case sim::StopCause::Step: return BreakpointStop::Cause::Step;
  case sim::StopCause::LineBreakpoint: return BreakpointStop::Cause::LineBreakpoint;
  case sim::StopCause::Watch: return BreakpointStop::Cause::Watch;
  case sim::StopCause::Error: return BreakpointStop::Cause::Error;
  }
  return BreakpointStop::Cause::Breakpoint;
}

BreakpointStop describe(const sim::BreakpointEvent &e) {
  BreakpointStop s;
  const ir::BreakpointSite &site = *e.stack.at(0).site;
  s.cause = cause(e.cause);
  s.kernel = *e.kernel;
  s.function = site.function;
  s.file = site.file;
  s.line = site.loc.line;
  s.column = site.loc.col;
  s.atReturn = e.atReturn;
  s.reason = e.reason;
  s.lineBreakpoints = e.lineBreaks;
  s.watch = {e.watch.id, e.watch.before, e.watch.after};
  s.threadIdx = e.tid;
  s.blockIdx = e.ctaid;
  s.blockDim = e.ntid;
  s.gridDim = e.nctaid;
  s.frames = frames(e.stack, e.atReturn);
  s.variables = s.frames.at(0).variables;
  for (const sim::ThreadAtStop &t : e.threads)
    s.threads.push_back({t.tid, t.ctaid, t.state, t.line, frames(t.stack)});
  return s;
}

sim::StepMode stepMode(Resume r) {
  switch (r) {
  case Resume::Continue:
  case Resume::Quit: return sim::StepMode::None;
  case Resume::StepInto: return sim::StepMode::Into;
  case Resume::StepOver: return sim::StepMode::Over;
  case Resume::StepOut: return sim::StepMode::Out;
  case Resume::Until: return sim::StepMode::Until;
  }
  return sim::StepMode::None;
}
} // namespace

void setBreakpointHandler(BreakpointHandler handler) {
  if (!handler) {
    sim::setBreakpointHandler(nullptr);
    return;
  }
  sim::setBreakpointHandler([handler = std::move(handler)](const sim::BreakpointEvent &e) {
    Action a = handler(describe(e));
    if (a.resume == Resume::Quit)
      return false;
    sim::StepMode mode = stepMode(a.resume);
    if (mode == sim::StepMode::None)
      return true;
    const sim::DebugFrameRecord *frame = e.stack.at(0).record;
    if (e.atReturn && (mode == sim::StepMode::Out || mode == sim::StepMode::Until)) {
      // the function is returning: finish means its caller's return, until its caller's next line
      if (mode == sim::StepMode::Until)
        mode = sim::StepMode::Over;
      else if (e.stack.size() > 1)
        frame = e.stack[1].record;
      else
        return true; // the kernel itself returns: nothing is left to finish
    }
    sim::requestStep(mode, e.tid, e.ctaid, frame, a.line);
    return true;
  });
}

int addLineBreakpoint(const std::string &file, int line, ThreadFilter thread, ThreadFilter block) {
  return sim::addLineBreakpoint(file, line, thread, block);
}

void removeLineBreakpoint(int id) { sim::removeLineBreakpoint(id); }

void clearLineBreakpoints() { sim::clearLineBreakpoints(); }

int addWatchpoint(void *address, size_t bytes, ThreadFilter thread, ThreadFilter block, bool launchScoped) {
  return sim::addWatch(address, bytes, thread, block, launchScoped);
}

void removeWatchpoint(int id) { sim::removeWatch(id); }

void clearWatchpoints() { sim::clearWatches(); }

std::vector<int> watchpointIds() { return sim::watchIds(); }

namespace rt {

bool debuggerAttached() {
  std::FILE *f = std::fopen("/proc/self/status", "r");
  if (!f)
    return false;
  char line[256];
  long tracer = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "TracerPid:", 10) == 0) {
      tracer = std::strtol(line + 10, nullptr, 10);
      break;
    }
  std::fclose(f);
  return tracer != 0;
}

} // namespace rt

} // namespace cutwin
