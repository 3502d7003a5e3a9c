/// `cutwin.cache.load` / `cutwin.cache.store` (cuda.ldca & co.) as PTX's
/// `ld.global.<policy>` / `st.global.<policy>`, the instructions numba-cuda emits.
#pragma once

#include <llvm/IR/Instructions.h>

namespace cutwin::gpu {

/// The inline PTX for one call of either intrinsic, placed before it; a load's result
/// replaces the call's uses (the caller erases the call).
void lowerCacheAccess(llvm::CallInst *ci, bool store);

} // namespace cutwin::gpu
