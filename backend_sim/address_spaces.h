/// Step sim-address-spaces: in a kernel, every load, store and atomic through its global
/// array arguments is marked as never reaching the block's shared memory, and the other
/// way round. On the GPU they are different state spaces; on the CPU both are ordinary
/// memory, and without the marks the optimiser must assume that an element read from a
/// global array may be one a loop writes to shared memory. The loop vectoriser cannot
/// check that at run time either (it compares addresses of one address space only), so
/// the loop that copies a block's slice of a global array into shared memory (a tree
/// reduction's first region, a tile of a tiled matrix product) stayed scalar. Accesses
/// are classed by where their pointer comes from (a kernel argument; the context's shared
/// memory), not by its address space: a shared array passed to a device function declared
/// with a signature is converted to the global space; accesses of unknown origin, and those
/// in functions not yet inlined into the kernel, stay unmarked.
#pragma once

#include <llvm/IR/Module.h>

namespace cutwin::sim {

void markAddressSpaces(llvm::Module &m);

} // namespace cutwin::sim
