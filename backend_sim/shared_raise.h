/// Error exits shared. Every bounds check (and every `raise`) ends in a block that calls
/// cutwin_sim_raise and never returns; in a thread loop each such block is an exit of the
/// loop, and LCSSA places a phi for every value the later exits use in each of them (exits ×
/// values: a kernel of 1,000 bounds-checked statements spent 2.3 s there, and memory grew
/// with it). Groups of 64 consecutive exits instead branch to one call whose arguments
/// phis choose: 64 times fewer exits, and phis small enough that the passes which look
/// incoming values up one by one (SimplifyCFG) stay linear. The report is unchanged: the
/// site argument names the line. Debug kernels (O0; debuggers show each call's line) keep
/// their calls.
#pragma once

namespace llvm {
class Module;
}

namespace cutwin::sim {

/// In each function, replaces each group of up to 64 `call cutwin_sim_raise(...);
/// unreachable` blocks (in block order) by branches to one block making that call with
/// phis of their arguments.
void shareRaiseCalls(llvm::Module &m);

} // namespace cutwin::sim
