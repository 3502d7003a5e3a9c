/// The GPU returns every float32 NaN an operation computes as 0x7fffffff, whatever the
/// NaNs of its operands; x86 returns its own (0xffc00000 for 0/0, payloads of the
/// operands). This step makes the simulator's float32 operations return the GPU's NaN.
#pragma once

#include <llvm/IR/Module.h>

namespace cutwin::sim {

/// After each float32 arithmetic operation, conversion to float32 and float32-valued
/// call in `m` (the kernel and the libdevice functions linked into it), NaN results are
/// replaced by 0x7fffffff. Loads, stores, selects and bit operations (fabs, fneg,
/// copysign) move NaNs unchanged, as on the GPU.
void canonicalizeFloat32NaNs(llvm::Module &m);

} // namespace cutwin::sim
