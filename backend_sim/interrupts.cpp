#include "backend_sim/interrupts.h"

#include "backend_sim/fiber.h"
#include "backend_sim/kernel_faults.h"
#include "backend_sim/thread_context.h"
#include "runtime/interrupt_scope.h"

namespace cutwin::sim {

bool recordInterrupt(const ThreadContext &tc, const BlockState &bs, uint32_t line) {
  // (asked between every block and round of a launch: a plain test, nothing returned
  // through memory on the way out)
  KernelErrorKind kind = KernelErrorKind::Interrupted;
  if (rt::ctrlCCount() == bs.ctrlCAtStart) {
    if (!bs.deadline || std::chrono::steady_clock::now() <= bs.deadline->at)
      return false;
    kind = KernelErrorKind::Timeout;
  }
  int64_t ms =
      bs.deadline ? std::chrono::duration_cast<std::chrono::milliseconds>(bs.deadline->limit).count() : 0;
  recordError(bs.err, tc.tid, tc.ctaid, uint32_t(kind), UINT32_MAX, int64_t(line), ms, 0);
  bs.abort->store(true, std::memory_order_relaxed);
  return true;
}

} // namespace cutwin::sim
