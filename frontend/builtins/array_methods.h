/// What the array-method family (array_methods.cpp) lowers for others: the view with its
/// dimensions permuted, which the attribute `a.T` makes too.
#pragma once

#include "frontend/sema/types.h"

#include <vector>

namespace llvm {
class Value;
}

namespace cutwin::ir {

class LoweringContext;

/// The view of `arr` whose dimension k is the array's dimension perm[k] (type `rt`).
llvm::Value *permutedView(LoweringContext &cx, llvm::Value *arr, const fe::Type &rt,
                          const std::vector<unsigned> &perm);

} // namespace cutwin::ir
