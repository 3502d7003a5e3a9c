/// Simulator lowering of the kernel IR: every `cutwin.*` call becomes a read of the
/// thread context or a call into the scheduler, shared-memory globals become offsets into
/// the block's shared buffer, and entry points are generated that unpack the packed
/// argument buffer (one thread per call, or a whole block as a loop when the kernel never
/// synchronises).
#pragma once

#include "backend_sim/barrier_regions.h"
#include "backend_sim/sanitize_accesses.h"
#include "frontend/ir/kernel_ir.h"

#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace cutwin::sim {

struct SimLoweringResult {
  uint64_t staticSharedBytes = 0;
  bool usesBarrier = false;                  ///< false: threads of a block may run as a plain loop
  bool usesGridSync = false;                 ///< the launch is cooperative: all blocks stay resident
  std::vector<SharedArrayInfo> sharedArrays; ///< where the shared arrays went (sanitizer reports)
  std::vector<AccessSite> accessSites;       ///< step sim-sanitize's
  BarrierRegions regions;                    ///< step sim-regions'
};

SimLoweringResult lowerIntrinsicsForSim(llvm::Module &m, const ir::KernelInfo &info);

// Pieces of the entry points, shared with step sim-regions (barrier_regions.cpp).

/// The LLVM struct of ThreadContext (thread_context.h), `%cutwin.ctx`.
llvm::StructType *contextType(llvm::LLVMContext &c);
/// An entry point `void name(ptr noalias ctx, ptr noalias args)`: the thread context and the
/// packed argument buffer.
llvm::Function *createEntry(llvm::Module &m, const char *name);
/// Loads a thread or block index (a size when `size`: blockDim, gridDim) from the thread
/// context, telling LLVM its range: never negative, so that an index computed from it
/// (`cuda.grid`) needs no Python negative-index wrap and stays an affine address, which
/// lets LLVM vectorise thread loops.
llvm::LoadInst *loadIndex(llvm::IRBuilder<> &b, llvm::Value *p, bool size);
/// Loads the kernel's parameters (those after its context) from the packed argument buffer.
std::vector<llvm::Value *> unpackArguments(llvm::IRBuilder<> &b, llvm::Value *args, llvm::Function *kernel,
                                           const ir::KernelInfo &info);
/// Gives a generated entry function debug info in the kernel's file, and the call of the
/// kernel a location, so that the kernel inlined into it keeps its line table (gdb then
/// stops at `break kernel.py:N` in the code that actually runs).
void attachDebugInfo(llvm::Function *entry, llvm::Function *kernel, llvm::CallInst *call);
/// Loops over the block's threads at b's insertion point, threadIdx z, y, x (x fastest),
/// storing each thread's index into the context `ctx`; `body` emits one thread's work,
/// given its linear index (i64). b is left after the loops.
void emitThreadLoops(llvm::IRBuilder<> &b, llvm::Value *ctx,
                     llvm::function_ref<void(llvm::IRBuilder<> &, llvm::Value *linear)> body);

} // namespace cutwin::sim
