/// The host functions that JIT-compiled kernels call on the simulator, defined once: the
/// table below gives each its C symbol and prototype; the C declaration, the LLVM
/// declaration the lowering emits (its type derived from the prototype), its symbol by id
/// and the JIT's symbol registration all come from it. The approximation units' own functions, which
/// kernels call by their symbols too, are approx_ops.h's table (CUTWIN_SIM_APPROX_UNITS).
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

/// X(Id, symbol, effect, result, (parameters)). A leading ThreadContext* is the calling
/// thread's context, which the callee only reads (so loads of blockIdx stay hoistable).
/// effect (cutwin::sim::CallbackEffect): Plain, NoReturn, NoThrow (a math helper), Pure
/// (touches no memory: the optimiser may merge, hoist or drop calls) or Shadow (reads what
/// its pointers point to and writes only state of its own: the sanitizer's checks, which
/// kernel loads may move around but stores to the address checked may not).
#define CUTWIN_SIM_HOST_CALLBACKS(X)                                                                         \
  X(Barrier, cutwin_sim_barrier, Plain, void, (cutwin::sim::ThreadContext *, uint32_t site))                 \
  X(GridSync, cutwin_sim_grid_sync, Plain, void, (cutwin::sim::ThreadContext *, uint32_t site))              \
  X(Warp, cutwin_sim_warp, Plain, uint64_t,                                                                  \
    (cutwin::sim::ThreadContext *, uint32_t op, uint32_t mask, uint64_t value, uint32_t b, uint32_t site))   \
  X(Print, cutwin_sim_print, Plain, void, (const char *format, const void *args))                            \
  X(Breakpoint, cutwin_sim_breakpoint, Plain, void,                                                          \
    (cutwin::sim::ThreadContext *, uint32_t site, void *const *frame))                                       \
  X(WatchStore, cutwin_sim_watch_store, Plain, void,                                                         \
    (cutwin::sim::ThreadContext *, const void *address, uint64_t size))                                      \
  X(Spin, cutwin_sim_spin, Plain, void, (cutwin::sim::ThreadContext *, uint32_t line))                       \
  X(Poll, cutwin_sim_poll, Plain, void, (cutwin::sim::ThreadContext *, uint32_t line))                       \
  X(Raise, cutwin_sim_raise, NoReturn, void,                                                                 \
    (cutwin::sim::ThreadContext *, cutwin::ir::ErrorRecord * record, uint32_t kind, uint32_t site,           \
     int64_t a, int64_t b, int64_t c))                                                                       \
  /* the sanitizer (sanitizer.cpp; the calls are sanitize_accesses.cpp's) */                                 \
  X(SanitizeAccess, cutwin_sim_sanitize_access, Shadow, void,                                                \
    (cutwin::sim::ThreadContext *, const void *address, uint64_t size, uint32_t access, uint32_t site,       \
     uint64_t value))                                                                                        \
  X(SanitizeLocalArray, cutwin_sim_sanitize_local_array, Shadow, void,                                       \
    (cutwin::sim::ThreadContext *, const void *address, uint64_t size, uint64_t itemSize))                   \
  /* (a fence changes what the inline checks read after it: a plain call) */                                 \
  X(SanitizeFence, cutwin_sim_sanitize_fence, Plain, void, (cutwin::sim::ThreadContext *, uint32_t site))    \
  /* libdevice on the CPU (fp_helpers.cpp): operations in a directed rounding mode, the */                   \
  /* approximation units' sequences; float16 fma rounded once (half_ops.cpp) */                              \
  X(F32Op, cutwin_sim_f32op, NoThrow, float, (int op, int mode, float a, float b, float c))                  \
  X(F64Op, cutwin_sim_f64op, NoThrow, double, (int op, int mode, double a, double b, double c))              \
  X(ToF32, cutwin_sim_tof32, NoThrow, float, (int kind, int mode, int64_t bits))                             \
  X(ToF64, cutwin_sim_tof64, NoThrow, double, (int kind, int mode, int64_t bits))                            \
  X(ApproxSequenceF32, cutwin_sim_approx_f32, NoThrow, float, (int op, float x, float y))                    \
  X(ApproxSequenceF64, cutwin_sim_approx_f64, NoThrow, double, (int op, double x))                           \
  X(FmaF16, cutwin_sim_fma_f16, Pure, uint16_t, (uint16_t a, uint16_t b, uint16_t c))

namespace cutwin::sim {
enum class CallbackEffect { Plain, NoReturn, NoThrow, Pure, Shadow };
}

extern "C" {
#define CUTWIN_DECLARE_CALLBACK(id, symbol, effect, result, params) result symbol params;
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
/// The callback's C symbol (what a module calls it by).
const char *hostCallbackSymbol(HostCallback id);
/// Every callback's symbol and address, for the JIT.
std::vector<std::pair<const char *, void *>> hostCallbackSymbols();

} // namespace cutwin::sim
