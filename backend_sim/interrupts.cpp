#include "backend_sim/interrupts.h"

#include "backend_sim/fiber.h"
#include "backend_sim/kernel_faults.h"
#include "backend_sim/thread_context.h"

#include <atomic>
#include <csignal>
#include <mutex>

namespace cutwin::sim {

namespace {

std::atomic<bool> gCtrlC{false}; ///< SIGINT came while some launch held a scope
std::mutex gScopesMu;
int gScopes = 0; ///< launches running (the handler is ours while any does)
struct sigaction gPrevious;

void onSigint(int) { gCtrlC.store(true, std::memory_order_relaxed); }

} // namespace

InterruptScope::InterruptScope() {
  std::lock_guard<std::mutex> lock(gScopesMu);
  if (gScopes++ > 0)
    return;
  gCtrlC.store(false);
  struct sigaction sa = {};
  sa.sa_handler = &onSigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &gPrevious);
  first_ = true;
}

InterruptScope::~InterruptScope() {
  std::lock_guard<std::mutex> lock(gScopesMu);
  if (--gScopes == 0)
    sigaction(SIGINT, &gPrevious, nullptr);
}

bool InterruptScope::interrupted() { return gCtrlC.load(); }

std::optional<KernelErrorKind> interruptOf(const BlockState &bs) {
  if (gCtrlC.load(std::memory_order_relaxed))
    return KernelErrorKind::Interrupted;
  if (bs.deadline && std::chrono::steady_clock::now() > bs.deadline->at)
    return KernelErrorKind::Timeout;
  return std::nullopt;
}

bool recordInterrupt(const ThreadContext &tc, const BlockState &bs, uint32_t line) {
  auto kind = interruptOf(bs);
  if (!kind)
    return false;
  int64_t ms =
      bs.deadline ? std::chrono::duration_cast<std::chrono::milliseconds>(bs.deadline->limit).count() : 0;
  recordError(bs.err, tc.tid, tc.ctaid, uint32_t(*kind), UINT32_MAX, int64_t(line), ms, 0);
  bs.abort->store(true, std::memory_order_relaxed);
  return true;
}

} // namespace cutwin::sim
