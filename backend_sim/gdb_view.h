/// What gdb's cutwin extension (python/cutwin/gdb_extension.py) reads while the process
/// is stopped in a debug kernel: the blocks this OS thread runs (one, or every resident
/// block of a cooperative launch) and where each simulated thread is. gdb calls
/// `cutwin_gdb_threads()`, which answers in JSON.
#pragma once

#include "backend_sim/fiber.h"

#include <vector>

namespace cutwin::sim {

/// One block as gdb sees it: its fibers, or (a thread loop) the context of the thread
/// running now.
struct GdbBlock {
  const SimKernel *kernel = nullptr;
  const std::vector<Fiber> *fibers = nullptr;
  uint32_t n = 0;                      ///< its threads
  const ThreadContext *loop = nullptr; ///< loop mode: the running thread's context
};

/// While `Scope` lives, gdb sees `blocks` as what this OS thread runs (debug kernels only:
/// they run their blocks on one OS thread).
class GdbBlocksScope {
public:
  explicit GdbBlocksScope(std::vector<GdbBlock> blocks);
  ~GdbBlocksScope();
  GdbBlocksScope(const GdbBlocksScope &) = delete;
  GdbBlocksScope &operator=(const GdbBlocksScope &) = delete;

private:
  std::vector<GdbBlock> previous_;
};

} // namespace cutwin::sim

/// The simulated threads of the blocks running on the calling OS thread, as JSON (for gdb:
/// `call (const char *) cutwin_gdb_threads()`); "null" when none runs a debug kernel. The
/// string lives until the next call.
extern "C" const char *cutwin_gdb_threads();
