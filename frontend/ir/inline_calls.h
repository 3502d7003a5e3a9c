/// The frontend's inline step: every call of a function marked kInlineAttribute (a device
/// function declared `inline='always'` or `inline=True`) is replaced by the function's body,
/// and the mark removed, so the kernel IR has no such call, as numba's, which inlines them
/// in its own IR. A function that calls itself keeps its recursive calls (they cannot all
/// be inlined); one left without callers is deleted.
#pragma once

namespace llvm {
class Module;
} // namespace llvm

namespace cutwin::ir {

/// The string attribute marking a function whose calls the step inlines.
inline constexpr const char *kInlineAttribute = "cutwin-inline";

/// Returns the number of calls inlined.
unsigned inlineMarkedCalls(llvm::Module &m);

} // namespace cutwin::ir
