/// The approximation units' table lookups compiled into kernels. A host call per lookup
/// costs more than the lookup: the call, the dispatch on the instruction and the
/// prologue, and it keeps the CPU from overlapping the lookups of neighbouring threads.
/// The functions here do the common case inline (a normal operand whose table chunk is
/// decoded) and call the host helper (fp_helpers.cpp) for everything else, which gives
/// the same bits (tests/unit/test_approx_inline.cpp checks the two against each other).
#pragma once

#include "backend_sim/approx_ops.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace cutwin::sim {

/// A function float(float x, float y) in `m` computing instruction `op` (y: div's
/// divisor, else unused); null where `op` has no compiled path (callers call the helper).
llvm::Function *compiledApproxF32(llvm::Module &m, ApproxF32 op);

/// A function double(double) in `m` computing `op`; null where it has no compiled path.
llvm::Function *compiledApproxF64(llvm::Module &m, ApproxF64 op);

} // namespace cutwin::sim
