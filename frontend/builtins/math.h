/// The math module's functions kernels call (frontend/builtins/math.cpp): each one's arity
/// and libdevice stem, and their lowering, which ufuncs share (mathOp); cmath's, which
/// ufuncs and complex powers share (cmathUnary, cmath.cpp).
#pragma once

#include "frontend/sema/types.h"

#include <llvm/ADT/ArrayRef.h>

#include <string>

namespace llvm {
class Value;
}

namespace cutwin::fe {

struct MathFunction {
  const char *name;
  unsigned arity;
  const char *libdevice; ///< stem without the trailing 'f'; null for functions lowered inline
};

/// `math.<name>`'s entry, or null if kernels cannot call it.
const MathFunction *mathFunction(const std::string &name);

} // namespace cutwin::fe

namespace cutwin::ir {

class LoweringContext;

/// math.<name> on lowered arguments of `argTypes`, giving `out`.
llvm::Value *mathOp(LoweringContext &cx, const std::string &name, llvm::ArrayRef<llvm::Value *> args,
                    llvm::ArrayRef<fe::Scalar> argTypes, fe::Scalar out);
/// One cmath function of a complex value of type `z` (exp, log, sqrt, asinh, ...).
llvm::Value *cmathUnary(LoweringContext &cx, const std::string &fn, llvm::Value *z, fe::Scalar zt);

} // namespace cutwin::ir
