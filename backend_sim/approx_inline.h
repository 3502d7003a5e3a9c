/// The approximation units whose tables have a model (approx_tables.h, ApproxModel):
/// ex2.approx.ftz.f32, rcp.approx.ftz.f32/f64, rsqrt.approx.ftz.f32/f64 and
/// sqrt.approx.ftz.f32, as IR: the entry from
/// the model's quadratic and bit, the exponent and the special operands with selects.
/// Vectorised thread loops get them as the bodies of the units' vector variants
/// (vector_variants.h): every lane's lookup becomes two gathers from the model's arrays
/// instead of a call. Same bits as the host units (tests/unit/test_approx_inline.cpp).
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <string>
#include <utility>
#include <vector>

namespace cutwin::sim {

/// The unit whose host symbol is `unit` (approxUnitSymbol) applied to x (a float or
/// double, or a vector of them); null where the unit has no model for the simulated
/// architecture.
llvm::Value *emitModelledUnit(llvm::IRBuilderBase &b, llvm::StringRef unit, llvm::Value *x);

/// The models' arrays as the JIT resolves the constant globals that IR reads (name,
/// address).
std::vector<std::pair<std::string, void *>> modelSymbols();

} // namespace cutwin::sim
