/// Step sim-address-spaces: every load, store and atomic through a global-memory pointer
/// (address space 1) is marked as never reaching shared memory (address space 3), and the
/// other way round. On the GPU they are different state spaces, which the kernel IR keeps
/// apart (a shared array passed to a device function keeps its address space); on the
/// CPU both are ordinary memory, and without the marks the optimiser must assume that an
/// element read from a global array may be one a loop writes to shared memory. The loop
/// vectoriser cannot check that at run time either (it compares addresses of one address
/// space only), so the loop that copies a block's slice of a global array into shared
/// memory (a tree reduction's first region, a tile of a tiled matrix product) stayed
/// scalar.
#pragma once

#include <llvm/IR/Module.h>

namespace cutwin::sim {

void markAddressSpaces(llvm::Module &m);

} // namespace cutwin::sim
