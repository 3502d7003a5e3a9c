/// Vector variants of the simulator's host helpers, so that LLVM can vectorise a thread
/// loop whose threads call them (libdevice reaching an approximation table or a
/// directed-rounding operation). Before optimisation, each helper is declared free of
/// observable side effects (its lazy table decoding is invisible to kernels), and each
/// call lists vector variants (`vector-function-abi-variant`) that the loop vectoriser
/// may call instead; after optimisation, the variants it used get bodies that call the
/// scalar helper lane by lane, and the rest are removed. A thread's operations stay as
/// written, in order: only the loop over threads is widened.
#pragma once

#include <llvm/IR/Module.h>

namespace cutwin::sim {

/// Before the optimisation pipeline: attributes and variant declarations; libdevice's
/// out-of-line internals (`__internal_accurate_pow`) made inlinable, since a call to them
/// would keep the loop scalar too.
void declareVectorVariants(llvm::Module &m);

/// After it: bodies for the variants in use (a modelled unit's as IR, inlined into the
/// loop: approx_inline.h; the others calling the helper over lanes or lane by lane); the
/// rest removed.
void defineVectorVariants(llvm::Module &m);

} // namespace cutwin::sim
