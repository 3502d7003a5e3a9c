#include "backend_sim/interrupts.h"

#include "backend_sim/fiber.h"
#include "backend_sim/kernel_faults.h"
#include "backend_sim/thread_context.h"

#include <atomic>
#include <csignal>
#include <mutex> // (std::call_once)

namespace cutwin::sim {

namespace {

std::atomic<bool> gCtrlC{false}; ///< SIGINT came while some launch held a scope
std::atomic<int> gScopes{0};     ///< launches running
struct sigaction gPrevious;      ///< the handler before ours (the host program's, Python's)

/// Installed once, on the first launch (two sigaction calls per launch cost 0.5 us, an
/// eighth of a simulator launch): during a launch SIGINT sets the flag; between launches
/// it goes to the handler that was there before, as if ours were not.
void onSigint(int sig, siginfo_t *info, void *context) {
  if (gScopes.load(std::memory_order_relaxed) > 0) {
    gCtrlC.store(true, std::memory_order_relaxed);
    return;
  }
  if (gPrevious.sa_flags & SA_SIGINFO) {
    gPrevious.sa_sigaction(sig, info, context);
  } else if (gPrevious.sa_handler == SIG_DFL) { // the default action: end the process
    signal(sig, SIG_DFL);
    raise(sig);
  } else if (gPrevious.sa_handler != SIG_IGN) {
    gPrevious.sa_handler(sig);
  }
}

void installHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa = {};
    sa.sa_sigaction = &onSigint;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &gPrevious);
  });
}

} // namespace

InterruptScope::InterruptScope() {
  installHandler();
  if (gScopes.fetch_add(1) == 0) // a Ctrl-C of an earlier launch was reported with it
    gCtrlC.store(false);
}

InterruptScope::~InterruptScope() { gScopes.fetch_sub(1); }

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
