/// \file
/// Global arrays written in the kernel file: `TABLE = np.array([[1, 2], [3, 4]], dtype=np.int32)`.
/// They become read-only constant arrays, the same as a NumPy array the host program binds.
#pragma once

#include "frontend/sema/const_value.h"

namespace cutwin::fe {

struct CallExpr;
class ModuleScope;

/// The array a module-level `np.array(...)` / `np.asarray(...)` call with a literal nested
/// list or tuple of numbers builds, in NumPy's default dtype (bool, int64 or float64) unless
/// `dtype=` names one. nullopt when `c` is not such a call; a diagnostic when it is one that
/// cannot be an array constant (ragged nesting, more than 3 dimensions).
std::optional<ConstValue> literalArray(const CallExpr &c, const ModuleScope &scope, const SourceFile &file);

} // namespace cutwin::fe
