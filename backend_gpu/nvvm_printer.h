/// An own printer of the IR dialect libNVVM reads for targets below compute_100: LLVM 7.0
/// text with typed pointers. LLVM 16 can no longer produce it (and LLVM 17 dropped typed
/// pointers altogether), so the GPU module is printed here instruction by instruction.
///
/// Every pointer value is printed as `i8 addrspace(N)*`; each typed use (load, store,
/// getelementptr, cmpxchg) gets a bitcast to the element type it needs, which libNVVM's
/// optimiser removes. Intrinsics LLVM 7 lacks are expanded first (prepareForNvvm).
#pragma once

#include <string>

namespace llvm {
class Module;
}

namespace cutwin::gpu {

/// Rewrites what the LLVM 7 dialect cannot express: saturating conversions, integer
/// min/max/abs intrinsics, fneg, freeze, constant expressions on globals; drops debug,
/// lifetime and assume intrinsics and all attributes.
void prepareForNvvm(llvm::Module &m);

/// The module as LLVM 7.0 NVVM IR text (after prepareForNvvm).
std::string printNvvmIR(const llvm::Module &m);

} // namespace cutwin::gpu
