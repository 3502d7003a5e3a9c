/// NumPy ufuncs inside kernels, as numba-cuda allows them: on scalars (`np.sin(v)`), or on
/// arrays with the output array given positionally (`np.sin(x, out)`), which every calling
/// thread computes over the whole output.
#pragma once

#include "frontend/sema/operator_rules.h"

#include <optional>
#include <string>
#include <vector>

namespace cutwin::fe {

struct Ufunc {
  enum class Kind {
    Math,     ///< a math function (cmath's for complex inputs where it has one)
    Operator, ///< a Python binary operator
    Compare,  ///< a comparison; signed/unsigned integer pairs compare exactly (NumPy >= 1.25)
    Logical,  ///< logical_and/or/xor/not: of the operands' truth
    Invert,   ///< ~ (logical not on booleans)
    Maximum,
    Minimum,
    FMax,
    FMin,
    Negative,
    Absolute,
  };
  const char *name;
  unsigned nin; ///< inputs (1 or 2); the output array, if given, comes after them
  Kind kind;
  const char *math = ""; ///< Math: the math-module function; Logical: "and", "or", "xor", "not"
  BinOp op = BinOp::Add; ///< Operator: the Python operator computing it
  CmpOp cmp = CmpOp::Eq; ///< Compare: the comparison
};

/// The cmath function computing math function `math` on complex numbers ("" if none).
std::string complexMathCounterpart(const std::string &math);

/// The ufunc `numpy.<name>` names, or null.
const Ufunc *numpyUfunc(const std::string &name);
/// Argument and result scalars of the ufunc's loop for these input scalars, or nullopt.
std::optional<ScalarCase> ufuncCase(const Ufunc &u, const std::vector<Scalar> &in);

} // namespace cutwin::fe
