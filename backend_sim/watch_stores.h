/// Step sim-watch (debug kernels): after each store a kernel makes to memory other than a
/// variable's own slot (array elements in global, shared and local memory, atomics, copies),
/// a test of the armed byte's watch bit and, while a watchpoint exists, a call reporting
/// the address and size (`cutwin_sim_watch_store`: backend_sim/watchpoints.h).
#pragma once

#include <llvm/IR/Module.h>

namespace cutwin::sim {

/// Instruments the kernel's functions (every defined function but the entry points).
void instrumentStoresForWatches(llvm::Module &m);

} // namespace cutwin::sim
