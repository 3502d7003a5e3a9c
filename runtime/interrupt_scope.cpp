#include "runtime/interrupt_scope.h"

#include "cutwin/errors.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <mutex> // (std::call_once)
#include <thread>

namespace cutwin::rt {

namespace {

std::atomic<uint64_t> gCtrlC{0}; ///< how many SIGINTs came while some wait held a scope
std::atomic<int> gScopes{0};     ///< waits running
struct sigaction gPrevious;      ///< the handler before ours (the host program's, Python's)

/// Installed once, at the first wait (two sigaction calls per launch cost 0.5 us, an
/// eighth of a simulator launch): during a wait SIGINT sets the flag; between waits it
/// goes to the handler that was there before, as if ours were not.
void onSigint(int sig, siginfo_t *info, void *context) {
  if (gScopes.load(std::memory_order_relaxed) > 0) {
    gCtrlC.fetch_add(1, std::memory_order_relaxed);
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

// A scope counts the Ctrl-Cs that came since it began: one that an earlier wait reported
// never ends a later one, however waits of several threads overlap.
InterruptScope::InterruptScope() : start_((installHandler(), gScopes.fetch_add(1), gCtrlC.load())) {}

InterruptScope::~InterruptScope() { gScopes.fetch_sub(1); }

bool InterruptScope::interrupted() const { return gCtrlC.load() != start_; }

uint64_t ctrlCCount() { return gCtrlC.load(std::memory_order_relaxed); }

void waitInterruptibly(const std::function<bool()> &ready, const std::function<std::string()> &interrupted) {
  InterruptScope scope;
  auto start = std::chrono::steady_clock::now();
  while (!ready()) {
    if (scope.interrupted()) {
      std::string what = interrupted();
      throw Interrupted(what, KernelErrorKind::Interrupted, "", "", {}, {}, {}, what);
    }
    if (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1))
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

} // namespace cutwin::rt
