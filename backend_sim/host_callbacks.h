/// The host functions that JIT-compiled kernels call on the simulator, defined once: the
/// table below gives each its C symbol and prototype; the C declaration, the LLVM
/// declaration the lowering emits (its type derived from the prototype) and the JIT's
/// symbol registration all come from it.
#pragma once

#include "backend_sim/thread_context.h"
#include "frontend/ir/error_record.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace llvm {
class Module;
class Function;
} // namespace llvm

/// X(Id, symbol, noreturn, result, (parameters)). A leading ThreadContext* is the calling
/// thread's context, which the callee only reads (so loads of blockIdx stay hoistable).
#define CUTWIN_SIM_HOST_CALLBACKS(X)                                                                         \
  X(Barrier, cutwin_sim_barrier, false, void, (cutwin::sim::ThreadContext *, uint32_t site))                 \
  X(GridSync, cutwin_sim_grid_sync, false, void, (cutwin::sim::ThreadContext *, uint32_t site))              \
  X(Warp, cutwin_sim_warp, false, uint64_t,                                                                  \
    (cutwin::sim::ThreadContext *, uint32_t op, uint32_t mask, uint64_t value, uint32_t b, uint32_t site))   \
  X(Print, cutwin_sim_print, false, void, (const char *format, const void *args))                            \
  X(Breakpoint, cutwin_sim_breakpoint, false, void,                                                          \
    (cutwin::sim::ThreadContext *, uint32_t site, void *const *frame))                                       \
  X(WatchStore, cutwin_sim_watch_store, false, void,                                                         \
    (cutwin::sim::ThreadContext *, const void *address, uint64_t size))                                      \
  X(Spin, cutwin_sim_spin, false, void, (cutwin::sim::ThreadContext *, uint32_t line))                       \
  X(Raise, cutwin_sim_raise, true, void,                                                                     \
    (cutwin::sim::ThreadContext *, cutwin::ir::ErrorRecord * record, uint32_t kind, uint32_t site,           \
     int64_t a, int64_t b, int64_t c))

extern "C" {
#define CUTWIN_DECLARE_CALLBACK(id, symbol, noreturn, result, params) result symbol params;
CUTWIN_SIM_HOST_CALLBACKS(CUTWIN_DECLARE_CALLBACK)
#undef CUTWIN_DECLARE_CALLBACK
}

namespace cutwin::sim {

enum class HostCallback {
#define CUTWIN_CALLBACK_ID(id, ...) id,
  CUTWIN_SIM_HOST_CALLBACKS(CUTWIN_CALLBACK_ID)
#undef CUTWIN_CALLBACK_ID
};

/// Declares (or finds) the callback in `m`, with its attributes.
llvm::Function *declareHostCallback(llvm::Module &m, HostCallback id);
/// Every callback's symbol and address, for the JIT.
std::vector<std::pair<const char *, void *>> hostCallbackSymbols();

} // namespace cutwin::sim
