// The public breakpoint API (cutwin/debug.h) over the simulator's breakpoints
// (backend_sim/breakpoints.h): a stop described in the runtime's terms.
#include "cutwin/debug.h"

#include "backend_sim/breakpoints.h"

namespace cutwin {

namespace {
/// The variables of `site` in `frame` (their addresses, in the site's order).
std::vector<BreakpointStop::Variable> variables(const ir::BreakpointSite &site, void *const *frame) {
  std::vector<BreakpointStop::Variable> out;
  for (size_t k = 0; k < site.locals->size(); ++k) {
    const ir::DebugLocal &v = (*site.locals)[k];
    out.push_back({v.name, fe::scalarName(v.type.scalar), v.type.isArray() ? int(v.type.ndim) : 0, frame[k]});
  }
  return out;
}
} // namespace

void setBreakpointHandler(BreakpointHandler handler) {
  if (!handler) {
    sim::setBreakpointHandler(nullptr);
    return;
  }
  sim::setBreakpointHandler([handler = std::move(handler)](const sim::BreakpointEvent &e) {
    BreakpointStop s;
    s.kernel = *e.kernel;
    s.function = e.site->function;
    s.file = e.site->file;
    s.line = e.site->loc.line;
    s.column = e.site->loc.col;
    s.reason = e.site->reason;
    s.threadIdx = e.tid;
    s.blockIdx = e.ctaid;
    s.blockDim = e.ntid;
    s.gridDim = e.nctaid;
    s.variables = variables(*e.site, e.frame);
    for (const sim::ThreadAtStop &t : e.threads) {
      BreakpointStop::Thread th{t.tid, t.state, t.line};
      if (t.frame) {
        th.function = t.frameSite->function;
        th.variables = variables(*t.frameSite, t.frame);
      }
      s.threads.push_back(std::move(th));
    }
    switch (handler(s)) {
    case Resume::Continue: return true;
    case Resume::Quit: return false;
    case Resume::StepInto: sim::requestStep(sim::StepMode::Into, e.tid, e.ctaid, s.function); return true;
    case Resume::StepOver: sim::requestStep(sim::StepMode::Over, e.tid, e.ctaid, s.function); return true;
    }
    return true;
  });
}

void setLineBreakpoint(const std::string &file, int line, bool enabled) {
  sim::setLineBreakpoint(file, line, enabled);
}

void clearLineBreakpoints() { sim::clearLineBreakpoints(); }

} // namespace cutwin
