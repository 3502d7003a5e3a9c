#include "backend_sim/gdb_view.h"

#include "backend_sim/breakpoints.h"
#include "backend_sim/kernel_faults.h"

#include <cstdio>
#include <string>

namespace cutwin::sim {

namespace {

thread_local std::vector<GdbBlock> current;

void appendDim(std::string &out, const char *key, const uint32_t d[3]) {
  out += "\"" + std::string(key) + "\": [" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " +
         std::to_string(d[2]) + "]";
}

void appendString(std::string &out, const std::string &s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (uint8_t(c) < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      out += esc;
      continue;
    }
    out += c;
  }
  out += '"';
}

/// The callee-saved registers a suspended fiber resumes with. jump_fcontext (Boost.Context's
/// x86-64 System V assembly) leaves, from the context pointer up: MXCSR and the x87 control
/// word, r12, r13, r14, r15, rbx, rbp, then the return address; the stack pointer is above.
void appendRegisters(std::string &out, const void *fctx) {
  const auto *slot = static_cast<const uint64_t *>(fctx);
  const char *names[] = {"r12", "r13", "r14", "r15", "rbx", "rbp", "rip"};
  out += ", \"registers\": {";
  for (int k = 0; k < 7; ++k)
    out += "\"" + std::string(names[k]) + "\": " + std::to_string(slot[k + 1]) + ", ";
  out += "\"rsp\": " + std::to_string(reinterpret_cast<uint64_t>(fctx) + 0x40) + "}";
}

void appendThread(std::string &out, const SimKernel &k, const ThreadContext &tc, const char *state,
                  const void *fctx, uint32_t waitSite) {
  out += "{";
  appendDim(out, "threadIdx", tc.tid);
  out += ", ";
  appendDim(out, "blockIdx", tc.ctaid);
  out += ", \"state\": \"" + std::string(state) + "\"";
  std::vector<StackFrame> stack = callStack(k.breakpoints, tc.debugTop);
  if (!stack.empty()) {
    out += ", \"frames\": [";
    for (size_t i = 0; i < stack.size(); ++i) {
      out += i ? ", [" : "[";
      appendString(out, stack[i].site->function);
      out += ", ";
      appendString(out, stack[i].site->file);
      out += ", " + std::to_string(stack[i].site->loc.line) + "]";
    }
    out += "]";
  }
  if (waitSite < k.sites.size())
    out += ", \"waits_at\": " + std::to_string(k.sites[waitSite].loc.line);
  if (fctx)
    appendRegisters(out, fctx);
  out += "}";
}

const char *stateName(Fiber::State s) {
  switch (s) {
  case Fiber::State::Ready: return "ready";
  case Fiber::State::Spinning: return "spinning";
  case Fiber::State::AtBarrier: return "barrier";
  case Fiber::State::AtGridBarrier: return "grid barrier";
  case Fiber::State::AtWarp: return "warp";
  case Fiber::State::AtBreakpoint: return "breakpoint";
  case Fiber::State::Done: return "exited";
  case Fiber::State::Faulted: return "faulted";
  }
  return "?";
}

void appendBlock(std::string &out, const GdbBlock &b, const ThreadContext *running, bool &first) {
  auto sep = [&] {
    out += first ? "" : ", ";
    first = false;
  };
  if (b.loop) { // threads before the running one have exited, those after have not started
    uint32_t nx = b.loop->ntid[0], ny = b.loop->ntid[1];
    uint32_t now = b.loop->tid[0] + nx * (b.loop->tid[1] + ny * b.loop->tid[2]);
    for (uint32_t i = 0; i < b.n; ++i) {
      ThreadContext tc = *b.loop;
      tc.tid[0] = i % nx, tc.tid[1] = (i / nx) % ny, tc.tid[2] = i / (nx * ny);
      if (i != now)
        tc.debugTop = nullptr;
      sep();
      appendThread(out, *b.kernel, tc,
                   i < now    ? "exited"
                   : i == now ? "running"
                              : "not started",
                   nullptr, UINT32_MAX);
    }
    return;
  }
  for (uint32_t i = 0; i < b.n; ++i) {
    const Fiber &f = (*b.fibers)[i];
    bool isRunning = &f.tc == running;
    bool started = f.tc.debugTop != nullptr;
    const char *state = isRunning                                    ? "running"
                        : f.state == Fiber::State::Ready && !started ? "not started"
                                                                     : stateName(f.state);
    bool suspended =
        !isRunning && started && f.state != Fiber::State::Done && f.state != Fiber::State::Faulted;
    bool waiting = f.state == Fiber::State::AtBarrier || f.state == Fiber::State::AtGridBarrier ||
                   f.state == Fiber::State::AtWarp;
    sep();
    appendThread(out, *b.kernel, f.tc, state, suspended ? f.ctx : nullptr, waiting ? f.site : UINT32_MAX);
  }
}

} // namespace

GdbBlocksScope::GdbBlocksScope(std::vector<GdbBlock> blocks) : previous_(std::move(current)) {
  current = std::move(blocks);
}

GdbBlocksScope::~GdbBlocksScope() { current = std::move(previous_); }

} // namespace cutwin::sim

extern "C" __attribute__((visibility("default"), used)) const char *cutwin_gdb_threads() {
  using namespace cutwin::sim;
  static thread_local std::string out;
  if (current.empty())
    return "null";
  out = "{\"kernel\": ";
  appendString(out, current.front().kernel->name);
  out += ", \"threads\": [";
  bool first = true;
  for (const GdbBlock &b : current)
    appendBlock(out, b, runningThread(), first);
  out += "]}";
  return out.c_str();
}
