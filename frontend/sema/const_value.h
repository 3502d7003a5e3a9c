/// Compile-time values: module-level constants (`TPB = 16`, `SHAPE = (TPB, 2 * TPB)`) and
/// folded expressions such as shared-array shapes. Arithmetic follows Python.
#pragma once

#include "frontend/sema/types.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cutwin::fe {

struct Expr;
class SourceFile;

struct ConstValue {
  /// Array: a host array frozen into the kernel (a global NumPy array, cuda.const.array_like):
  /// dtype, shape and its C-order bytes; kernels read it from constant memory.
  /// DeviceArray: a device array the kernel's globals hold, captured by address as numba
  /// captures it (the kernel reads and writes that memory): dtype, shape, byte strides.
  enum class Kind { Int, Float, Bool, Tuple, None, Str, Array, DeviceArray };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  std::vector<ConstValue> elems;
  Scalar dtype = Scalar::F64;           ///< Array: element type; Int/Float/Bool with typedScalar: the type
  const RecordLayout *record = nullptr; ///< Array: elements are records of this type (`dtype` unused)
  /// A NumPy scalar from the host (np.float32(0.5)): typed `dtype`, as numba types it,
  /// instead of Python's int64/float64/bool.
  bool typedScalar = false;
  /// An enum member's class (Type::enumClass); the member is this value.
  std::string enumClass;
  bool intEnum = false;
  std::vector<int64_t> shape;
  std::shared_ptr<const std::vector<uint8_t>> bytes;
  uint64_t address = 0;         ///< DeviceArray: its first element's device address
  std::vector<int64_t> strides; ///< DeviceArray: byte strides

  static ConstValue ofInt(int64_t v) {
    ConstValue c;
    c.kind = Kind::Int;
    c.i = v;
    return c;
  }
  static ConstValue ofFloat(double v) {
    ConstValue c;
    c.kind = Kind::Float;
    c.f = v;
    return c;
  }
  static ConstValue ofBool(bool v) {
    ConstValue c;
    c.kind = Kind::Bool;
    c.b = v;
    return c;
  }
  bool isNumber() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  double asDouble() const { return kind == Kind::Float ? f : kind == Kind::Int ? double(i) : b; }
  /// The type numba gives this value when it is used in a kernel (int → int64, ...).
  Type type() const;
  std::string str() const;
};

/// Python's truth value of a constant (`if CONST:`).
bool truthy(const ConstValue &v);

/// Looks a bare name up for the evaluator: a known constant, or nullopt.
using ConstLookup = std::function<std::optional<ConstValue>(const Expr &name)>;

/// Evaluates literals, names known to `lookup`, tuples, unary and binary arithmetic,
/// comparisons and `and`/`or`/`not`. Returns nullopt for anything else; throws
/// CompileError for errors a Python interpreter would raise (division by zero).
std::optional<ConstValue> evalConst(const Expr &e, const SourceFile &file, const ConstLookup &lookup);

} // namespace cutwin::fe
