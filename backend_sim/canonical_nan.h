/// The NaNs the GPU returns differ from x86's. Measured on sm_90: every float32 operation
/// that computes returns 0x7fffffff, whatever the NaNs of its operands (x86: 0xffc00000 for
/// 0/0, else an operand's payload), abs and neg included; float64 abs and neg of a NaN
/// return it quieted with its sign unchanged (x86 clears or flips the sign and keeps a
/// signalling NaN signalling). This step makes the simulator's operations return the GPU's.
#pragma once

#include <llvm/IR/Module.h>

namespace cutwin::sim {

/// After each float32 arithmetic operation, fabs, fneg and float32-valued call in `m` (the
/// kernel and the libdevice functions linked into it), NaN results are replaced by
/// 0x7fffffff; float64 fabs and fneg of a NaN return the NaN quieted. Loads, stores,
/// selects, copysign and conversions (float64 to float32 keeps the payload's top bits on
/// both) move NaNs as on the GPU already.
void applyGpuNanRules(llvm::Module &m);

} // namespace cutwin::sim
