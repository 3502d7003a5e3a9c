#include "backend_sim/kernel_faults.h"

#include "backend_sim/debug_stops.h"
#include "backend_sim/fiber.h"

#include "cutwin/errors.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

namespace cutwin::sim {

void recordError(ir::ErrorRecord *rec, const uint32_t tid[3], const uint32_t ctaid[3], uint32_t kind,
                 uint32_t site, int64_t a, int64_t b, int64_t c) {
  std::atomic_ref<uint32_t> flag(rec->flag);
  uint32_t expected = 0;
  if (!flag.compare_exchange_strong(expected, 1, std::memory_order_acq_rel))
    return; // the first error wins
  rec->kind = kind;
  rec->site = site;
  std::memcpy(rec->thread, tid, sizeof rec->thread);
  std::memcpy(rec->block, ctaid, sizeof rec->block);
  rec->payload[0] = a;
  rec->payload[1] = b;
  rec->payload[2] = c;
  flag.store(2, std::memory_order_release);
}

void endFaultedThread(ThreadContext *tc) {
  if (Fiber *f = tc->fiber) {
    f->state = Fiber::State::Faulted;
    leaveFiber(f);
  }
  siglongjmp(*tc->block->jmp, 1);
}

ActiveKernel &activeKernel() {
  thread_local ActiveKernel active;
  return active;
}

const ThreadContext *runningThread() { return activeKernel().tc; }

namespace {

struct sigaction previousSegv, previousBus;

/// A memory fault in a thread loop of a debug kernel: the thread whose frames the debugger
/// shows before the block runner unwinds.
struct FaultInLoop {
  const ThreadContext *tc = nullptr;
  sigjmp_buf *escape = nullptr;
};
thread_local FaultInLoop faultInLoop;
[[noreturn]] void stopAfterFault();

/// Turns a memory fault inside a kernel into a recorded error and unwinds to the block
/// runner; faults anywhere else go to the previous handler. In a debug kernel the debugger
/// sees the faulting thread first: a fiber's frames stay on its stack while the scheduler
/// shows them; a thread loop's frames are on the runner's stack, so the handler returns
/// into stopAfterFault below them, which unwinds after the debugger.
void onFault(int sig, siginfo_t *info, void *context) {
  ActiveKernel a = activeKernel();
  if (!a.tc) {
    sigaction(sig, sig == SIGBUS ? &previousBus : &previousSegv, nullptr);
    return; // re-executes the faulting instruction under the previous handler
  }
  activeKernel() = ActiveKernel{};
  auto addr = reinterpret_cast<const char *>(info->si_addr);
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  bool overflow = a.stackLow && addr < a.stackLow && addr >= a.stackLow - page;
  if (overflow)
    recordError(a.block->err, a.tc->tid, a.tc->ctaid, uint32_t(KernelErrorKind::StackOverflow), UINT32_MAX,
                int64_t(a.stackBytes), 0, 0);
  else
    recordError(a.block->err, a.tc->tid, a.tc->ctaid, uint32_t(KernelErrorKind::IllegalAddress), UINT32_MAX,
                int64_t(reinterpret_cast<uintptr_t>(addr)), sig, 0);
  a.block->abort->store(true, std::memory_order_relaxed);
  a.block->faulted = a.tc;
#if defined(__x86_64__)
  if (a.block->kernel->debug && !a.tc->fiber && a.tc->debugTop) {
    faultInLoop = {a.tc, a.escape};
    auto &regs = static_cast<ucontext_t *>(context)->uc_mcontext.gregs;
    greg_t sp = ((regs[REG_RSP] - 256) & ~greg_t(15)) - 8; // past the red zone, as after a call
    regs[REG_RSP] = sp;
    regs[REG_RIP] = greg_t(reinterpret_cast<uintptr_t>(&stopAfterFault));
    return;
  }
#else
  (void)context;
#endif
  if (a.tc->fiber)
    jumpingOutOfFiber(a.tc->fiber);
  siglongjmp(*a.escape, 1);
}

void stopAfterFault() {
  FaultInLoop f = faultInLoop;
  const ThreadContext &tc = *f.tc;
  const SimKernel &k = *tc.block->kernel;
  if (tc.debugTop->site < k.breakpoints.size()) {
    try {
      PendingStop stop;
      stop.site = tc.debugTop->site;
      BreakpointEvent e = stopEvent(k, tc, stop);
      e.cause = StopCause::Error;
      e.reason = ir::describeError(*tc.block->err, k.sites);
      stopInLoop(tc, e);
    } catch (...) { // the launch ends with the fault's error whatever the debugger did
    }
  }
  siglongjmp(*f.escape, 1);
}

} // namespace

void landedAfterJump() {
  sigset_t faults;
  sigemptyset(&faults);
  sigaddset(&faults, SIGSEGV);
  sigaddset(&faults, SIGBUS);
  pthread_sigmask(SIG_UNBLOCK, &faults, nullptr);
}

/// Installs the fault handler once per process, and an alternate signal stack once per
/// thread (a fiber that overflowed its stack cannot run the handler on it).
void prepareFaultHandling() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = onFault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previousSegv);
    sigaction(SIGBUS, &sa, &previousBus);
  });
  thread_local bool prepared = false;
  thread_local std::vector<char> altStack;
  if (!prepared) {
    prepared = true;
    // One the thread has already (a sanitizer's runtime, the host program's) is kept if it
    // holds the handler: whoever installed it frees it when the thread ends.
    stack_t current{};
    if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE) &&
        current.ss_size >= 32 * 1024)
      return;
    altStack.resize(64 * 1024);
    stack_t ss{};
    ss.ss_sp = altStack.data();
    ss.ss_size = altStack.size();
    sigaltstack(&ss, nullptr);
  }
}

} // namespace cutwin::sim
