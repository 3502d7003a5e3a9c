/// LLVM pass pipelines shared by the frontend and both backends.
#pragma once

namespace llvm {
class Constant;
class Function;
class Module;
class TargetMachine;
} // namespace llvm

namespace cutwin::ir {

/// Target-neutral clean-up of freshly lowered kernel IR: variables to SSA, simple
/// folding, dead blocks removed. The IR stays readable and keeps its intrinsic calls.
/// `speculate`: SimplifyCFG runs, and may run a branch's instructions unconditionally (off
/// for kernels the sanitizer checks: a load hoisted out of `if t == 0:` would be an access
/// the source does not make, in every thread).
void runCleanup(llvm::Module &m, bool speculate = true);

/// Loop-invariant code motion alone (LICM, with loop-simplify and LCSSA): moves invariant
/// arithmetic out of loops, including out of conditional blocks inside them.
void hoistLoopInvariants(llvm::Module &m);

/// Turns constant-expression and constant-aggregate users of `c` (a GEP of a global, an
/// array value holding its address) into instructions, so that every use of it sits in a
/// function.
void expandConstantUsers(llvm::Constant *c);

/// Folds and removes dead code in one function (instcombine, simplifycfg, adce), e.g.
/// after constants were substituted into it.
void simplifyFunction(llvm::Function &f);

/// The standard LLVM pipeline at `level` (0-3) for `tm` (may be null), with the target's
/// own passes. With `splitRangeChecks`, a loop whose body is guarded by a check of its
/// induction variable against a bound (the simulator's thread loop under `if i < n:`,
/// bounds checks of an index) is split into a main loop where the checks are known to
/// pass, which may then be vectorised, and loops before and after it that keep them
/// (inductive range check elimination). Passes whose time grows faster than a function's
/// size are skipped in functions of `largeFunction` instructions or more (0: never).
void runOptimization(llvm::Module &m, llvm::TargetMachine *tm, int level, bool splitRangeChecks = false,
                     unsigned largeFunction = 0);

} // namespace cutwin::ir
