/// GPU lowering of `cutwin.warp`: PTX's shfl.sync, vote.sync, match.sync, activemask and
/// bar.warp.sync as inline assembly, which libNVVM and LLVM's NVPTX accept alike.
#pragma once

#include <llvm/IR/Instructions.h>

namespace cutwin::gpu {

/// Replaces the uses of one `cutwin.warp` call with its PTX (the call itself stays for
/// the caller to erase).
void lowerWarpCall(llvm::CallInst *call);

} // namespace cutwin::gpu
