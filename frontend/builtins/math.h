/// The math module's functions kernels call (frontend/builtins/math.cpp): each one's arity
/// and libdevice stem, for the lowering of math functions that ufuncs share (mathOp).
#pragma once

#include <string>

namespace cutwin::fe {

struct MathFunction {
  const char *name;
  unsigned arity;
  const char *libdevice; ///< stem without the trailing 'f'; null for functions lowered inline
};

/// `math.<name>`'s entry, or null if kernels cannot call it.
const MathFunction *mathFunction(const std::string &name);

} // namespace cutwin::fe
