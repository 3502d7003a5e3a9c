/// Step sim-shared-atomics: atomics on shared memory become plain read-modify-writes. A
/// block's shared memory is only ever touched by the one OS thread running the block: its
/// threads run one after another there (as loops over the threads, as regions, or as
/// fibers switching at calls), and a block never runs on two workers at once. An atomic
/// on it therefore has no other thread to be atomic against, and what the GPU's atomics
/// guarantee (each update whole, none lost) holds for the plain operation; the `lock`
/// prefix it would cost is the shared-memory histogram's main cost. Atomics on global
/// memory, which other blocks' workers reach at the same time, stay atomic.
#pragma once

#include <llvm/IR/Module.h>

namespace cutwin::sim {

void plainSharedAtomics(llvm::Module &m);

} // namespace cutwin::sim
