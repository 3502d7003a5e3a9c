#include "backend_sim/debug_stops.h"

#include "cutwin/errors.h"

#include <algorithm>
#include <string_view>

namespace cutwin::sim {

BreakpointEvent stopEvent(const SimKernel &k, const ThreadContext &tc, const PendingStop &s) {
  BreakpointEvent e;
  e.kernel = &k.name;
  const ir::BreakpointSite &site = k.breakpoints.at(s.site);
  e.cause = !site.reason.empty() ? StopCause::Error : s.cause;
  e.reason = site.reason;
  e.lineBreaks = s.lineBreaks;
  e.watch = s.watch;
  // At a return event the function is at the line it ran last (its record's).
  e.atReturn = site.kind == ir::StopKind::Return;
  bool ranLine = tc.debugTop && tc.debugTop->site < k.breakpoints.size();
  e.stack = callStack(k.breakpoints, tc.debugTop, e.atReturn && ranLine ? nullptr : &site);
  if (e.stack.empty()) // a stop outside any frame record (not made by the frontend)
    e.stack.push_back({&site, nullptr});
  std::copy(tc.tid, tc.tid + 3, e.tid.begin());
  std::copy(tc.ctaid, tc.ctaid + 3, e.ctaid.begin());
  std::copy(tc.ntid, tc.ntid + 3, e.ntid.begin());
  std::copy(tc.nctaid, tc.nctaid + 3, e.nctaid.begin());
  return e;
}

std::string endedInDebugger(const BreakpointEvent &e) {
  auto dim = [](const Dim &d) {
    return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
  };
  const ir::BreakpointSite &site = *e.stack.at(0).site;
  return "kernel '" + *e.kernel + "': the launch was ended in the debugger at " + site.file + ":" +
         std::to_string(site.loc.line) + ", thread " + dim(e.tid) + ", block " + dim(e.ctaid);
}

void describeThreads(const SimKernel &k, const std::vector<Fiber> &fibers, uint32_t n,
                     std::vector<ThreadAtStop> &out) {
  for (uint32_t i = 0; i < n; ++i) {
    const Fiber &o = fibers[i];
    ThreadAtStop t;
    std::copy(o.tc.tid, o.tc.tid + 3, t.tid.begin());
    std::copy(o.tc.ctaid, o.tc.ctaid + 3, t.ctaid.begin());
    auto waitLine = [&] { return o.site < k.sites.size() ? k.sites[o.site].loc.line : 0; };
    const ir::BreakpointSite *stopSite = nullptr;
    switch (o.state) {
    case Fiber::State::Ready: break;
    case Fiber::State::Spinning: t.state = "spinning", t.line = o.spinLine; break;
    case Fiber::State::AtBarrier: t.state = "barrier", t.line = waitLine(); break;
    case Fiber::State::AtGridBarrier: t.state = "grid barrier", t.line = waitLine(); break;
    case Fiber::State::AtWarp: t.state = "warp", t.line = waitLine(); break;
    case Fiber::State::AtBreakpoint:
      stopSite = &k.breakpoints.at(o.stop.site);
      t.state = "breakpoint", t.line = stopSite->loc.line;
      break;
    case Fiber::State::Done: t.state = "exited"; break;
    case Fiber::State::Faulted: t.state = "faulted"; break;
    }
    if (o.state != Fiber::State::Done)
      t.stack = callStack(k.breakpoints, o.tc.debugTop, stopSite);
    out.push_back(std::move(t));
  }
}

std::string indexText(const uint32_t v[3]) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}

std::string threadsInWords(const std::vector<ThreadAtStop> &threads) {
  struct Group {
    const ThreadAtStop *first;
    size_t count;
  };
  std::vector<Group> groups; // by state and line, in thread order
  for (const ThreadAtStop &t : threads) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group &g) {
      return std::string_view(g.first->state) == t.state && g.first->line == t.line;
    });
    if (g == groups.end())
      groups.push_back({&t, 1});
    else
      ++g->count;
  }
  std::string out;
  for (const Group &g : groups) {
    std::string_view state = g.first->state;
    out += (out.empty() ? "" : ", ") + std::to_string(g.count) + " ";
    if (state == "running") // (a fiber not waiting anywhere: it runs when its turn comes)
      out += "ready to run";
    else if (state == "stopped") // the thread that noticed Ctrl-C or the watchdog
      out += g.first->line ? "stopped in the loop at line " + std::to_string(g.first->line) : "stopped";
    else if (state == "exited")
      out += "finished";
    else if (state == "faulted")
      out += "faulted";
    else if (state == "spinning")
      out += "spinning in the loop at line " + std::to_string(g.first->line);
    else
      out += "at the " + std::string(state == "warp" ? "warp operation" : state) + " at line " +
             std::to_string(g.first->line);
    if (g.count == 1 && state != "exited")
      out += " (thread " + indexText(g.first->tid.data()) + ")";
  }
  return out;
}

void stopFiber(const SimKernel &k, BreakpointEvent &e, const BlockState &bs, const std::vector<Fiber> &fibers,
               uint32_t n) {
  describeThreads(k, fibers, n, e.threads);
  if (bs.otherBlocks)
    bs.otherBlocks(e.threads);
  if (!handleBreakpoint(e))
    throw LaunchError(endedInDebugger(e));
}

void postMortem(const SimKernel &k, const BlockState &bs, const Fiber &f, const std::vector<Fiber> &fibers,
                uint32_t n, std::string reason) {
  const DebugFrameRecord *top = f.tc.debugTop;
  if (!k.debug || !top || top->site >= k.breakpoints.size())
    return;
  PendingStop stop;
  stop.site = top->site;
  BreakpointEvent e = stopEvent(k, f.tc, stop);
  e.cause = StopCause::Error;
  e.reason = std::move(reason);
  stopFiber(k, e, bs, fibers, n);
}

bool stopInLoop(const ThreadContext &tc, BreakpointEvent &e) {
  BlockState &bs = *tc.block;
  uint64_t self = tc.tid[0] + uint64_t(tc.ntid[0]) * (tc.tid[1] + uint64_t(tc.ntid[1]) * tc.tid[2]);
  uint64_t linear = 0;
  for (uint32_t z = 0; z < tc.ntid[2]; ++z)
    for (uint32_t y = 0; y < tc.ntid[1]; ++y)
      for (uint32_t x = 0; x < tc.ntid[0]; ++x, ++linear) {
        ThreadAtStop t;
        t.tid = {x, y, z};
        t.ctaid = e.ctaid;
        t.state = linear < self ? "exited" : linear == self ? "breakpoint" : "running";
        if (linear == self) {
          t.line = e.stack.at(0).site->loc.line;
          t.stack = e.stack;
        }
        e.threads.push_back(std::move(t));
      }
  if (handleBreakpoint(e))
    return true;
  if (bs.endedInDebugger->empty())
    *bs.endedInDebugger = endedInDebugger(e);
  bs.abort->store(true, std::memory_order_relaxed);
  return false;
}

} // namespace cutwin::sim
