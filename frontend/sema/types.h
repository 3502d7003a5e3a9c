/// The frontend's types, with numba's rules: scalar conversions ranked exact < promote <
/// safe < unsafe (numba's cast graph), NumPy's promotion for unifying a variable's
/// assignments, and arrays with dtype, ndim, layout and memory space.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cutwin::fe {

/// The scalar rows of cutwin/dtypes.def, with cutwin::DType's values (its RNG-state record is
/// no scalar).
enum class Scalar : uint8_t {
#define CUTWIN_SCALAR(id, value, ...) id = value,
#define CUTWIN_RECORD(...)
#include "cutwin/dtypes.def"
#undef CUTWIN_SCALAR
#undef CUTWIN_RECORD
};
/// One more than the largest Scalar value (tables indexed by it).
constexpr int kNumScalars = [] {
  int n = 0;
#define CUTWIN_SCALAR(id, value, ...) n = value + 1 > n ? value + 1 : n;
#define CUTWIN_RECORD(...)
#include "cutwin/dtypes.def"
#undef CUTWIN_SCALAR
#undef CUTWIN_RECORD
  return n;
}();

bool isInteger(Scalar s);
bool isSigned(Scalar s); ///< signed integers (floats are not "signed" here)
bool isFloat(Scalar s);
bool isComplex(Scalar s);
/// CUDA's 8-bit floats (fp8_e5m2, fp8_e4m3, fp8_e8m0): constructed and converted, no arithmetic.
bool isFp8(Scalar s);
/// NumPy's datetime64 and timedelta64 in a unit (an int64 count; NaT the smallest int64).
bool isDatetime(Scalar s);
bool isTimedelta(Scalar s);
bool isTime(Scalar s); ///< a datetime64 or a timedelta64
/// Both datetime64, or both timedelta64 (whatever their units).
bool sameTimeKind(Scalar a, Scalar b);
/// The units, coarsest first (dtypes.def's order): years and months convert to each other
/// only; weeks to nanoseconds to each other.
enum class TimeUnit : unsigned { Y, M, W, D, h, m, s, ms, us, ns };
TimeUnit timeUnit(Scalar s); ///< of a datetime64 or timedelta64
Scalar datetimeOf(TimeUnit u);
Scalar timedeltaOf(TimeUnit u);
/// The real type of a complex type's parts (complex64 -> float32); other types map to themselves.
Scalar partOf(Scalar s);
Scalar complexOf(Scalar part); ///< float32 -> complex64, otherwise complex128
unsigned bitWidth(Scalar s);   ///< Bool is 1
unsigned byteSize(Scalar s);   ///< in memory: Bool is 1 byte
const char *scalarName(Scalar s);
/// "int64, float32": the names of `scalars`, for messages about an argument list.
std::string scalarNames(const std::vector<Scalar> &scalars);
std::optional<Scalar> scalarFromName(const std::string &name); ///< numba / NumPy spellings
Scalar intScalar(unsigned bits, bool isSigned);

/// numba's conversion kinds, in order of preference.
enum class Conversion { Exact, Promote, Safe, Unsafe, None };
Conversion canConvert(Scalar from, Scalar to);
/// np.promote_types on scalars: how numba unifies two assignments of a variable.
Scalar npPromote(Scalar a, Scalar b);

enum class Layout : uint8_t { C, F, A };
/// A record type: fields at offsets (frontend/sema/record_layout.h).
struct RecordLayout;
/// NVPTX address-space numbering, used for pointers on both backends.
enum class MemSpace : uint8_t { Generic = 0, Global = 1, Shared = 3, Const = 4, Local = 5 };

enum class TypeKind : uint8_t {
  Unknown, ///< not yet inferred
  None,    ///< Python None / void
  Scalar,
  Array,
  Tuple,           ///< heterogeneous or homogeneous (UniTuple when all elements agree)
  Range,           ///< `range(...)` object; element type in `scalar`
  Module,          ///< a module or namespace object; `path` names it ("cuda.shared")
  Function,        ///< a builtin callable; `path` names it ("math.sin", "cuda.grid", "min")
  TypeObject,      ///< a numba/NumPy type used as value: cast callable, dtype, signature part
  DeviceFunction,  ///< a @cuda.jit(device=True) function; `path` is its name
  ForeignFunction, ///< declared by cuda.declare_device, defined in a linked file; `path` is its name
  String,
  Slice,
  Iterator, ///< enumerate(...) / zip(...) in a for loop: `path` says which, `elems` the iterables
  Optional, ///< numba's Optional: a value of `elems[0]`, or None (a device function that can return None)
  Record,   ///< a record: a reference to its bytes in `space` (numba passes records by address)
};

struct Type {
  TypeKind kind = TypeKind::Unknown;
  Scalar scalar = Scalar::I64;          ///< Scalar, Array dtype, Range element, TypeObject (scalar)
  uint8_t ndim = 0;                     ///< Array
  Layout layout = Layout::A;            ///< Array
  MemSpace space = MemSpace::Global;    ///< Array: where its data lives
  const RecordLayout *record = nullptr; ///< Record; Array: elements are records (`scalar` unused)
  bool pointer = false;                 ///< Array: numba's CPointer(scalar), a raw pointer (1-D, no extent)
  bool typeObjectIsVoid = false;        ///< TypeObject: `void` / `none`
  std::vector<Type> elems;              ///< Tuple elements; TypeObject of an array: [element]
  std::vector<std::string> fields;      ///< Named tuples: field names (`path` is the class name)
  std::string path;                     ///< Module, Function, DeviceFunction
  /// A member of a Python enum class, typed by its value (a Scalar or a Tuple): the class's
  /// host name ("module:qualname"), so that `is` and `==` between members of different classes
  /// answer as in Python (numba's EnumMember / IntEnumMember). Empty for other values.
  std::string enumClass;
  bool intEnum = false; ///< an enum.IntEnum member: compares and computes as its int value

  static Type unknown() { return {}; }
  static Type none() { return make(TypeKind::None); }
  static Type scalarOf(Scalar s) {
    Type t = make(TypeKind::Scalar);
    t.scalar = s;
    return t;
  }
  static Type array(Scalar dtype, unsigned ndim, Layout layout, MemSpace space = MemSpace::Global) {
    Type t = make(TypeKind::Array);
    t.scalar = dtype;
    t.ndim = uint8_t(ndim);
    t.layout = layout;
    t.space = space;
    return t;
  }
  static Type recordArray(const RecordLayout *r, unsigned ndim, Layout layout,
                          MemSpace space = MemSpace::Global) {
    Type t = array(Scalar::U8, ndim, layout, space);
    t.record = r;
    return t;
  }
  /// A record value: the address of its bytes in `space`.
  static Type recordIn(const RecordLayout *r, MemSpace space = MemSpace::Global) {
    Type t = make(TypeKind::Record);
    t.record = r;
    t.space = space;
    return t;
  }
  /// `CPointer(dtype)`: passed as an address, indexed without bounds, as C pointers are.
  static Type pointerTo(Scalar dtype) {
    Type t = array(dtype, 1, Layout::C);
    t.pointer = true;
    return t;
  }
  /// A collections.namedtuple type: a tuple whose elements are also read by field name.
  static Type namedTuple(std::string name, std::vector<std::string> fields, std::vector<Type> elems) {
    Type t = tuple(std::move(elems));
    t.path = std::move(name);
    t.fields = std::move(fields);
    return t;
  }
  static Type tuple(std::vector<Type> elems) {
    Type t = make(TypeKind::Tuple);
    t.elems = std::move(elems);
    return t;
  }
  static Type uniTuple(const Type &e, unsigned n) { return tuple(std::vector<Type>(n, e)); }
  static Type optional(const Type &value) {
    Type t = make(TypeKind::Optional);
    t.elems = {value};
    return t;
  }
  static Type range(Scalar s) {
    Type t = make(TypeKind::Range);
    t.scalar = s;
    return t;
  }
  static Type named(TypeKind k, std::string path) {
    Type t = make(k);
    t.path = std::move(path);
    return t;
  }
  static Type typeObject(Scalar s) {
    Type t = make(TypeKind::TypeObject);
    t.scalar = s;
    return t;
  }
  static Type make(TypeKind k) {
    Type t;
    t.kind = k;
    return t;
  }

  bool isUnknown() const { return kind == TypeKind::Unknown; }
  bool isScalar() const { return kind == TypeKind::Scalar; }
  bool isScalar(Scalar s) const { return kind == TypeKind::Scalar && scalar == s; }
  bool isInt() const { return isScalar() && isInteger(scalar); }
  bool isFloat() const { return isScalar() && cutwin::fe::isFloat(scalar); }
  bool isBool() const { return isScalar(Scalar::Bool); }
  bool isArray() const { return kind == TypeKind::Array; }
  bool isRecordArray() const { return kind == TypeKind::Array && record != nullptr; }
  bool isRecord() const { return kind == TypeKind::Record; }
  bool isTuple() const { return kind == TypeKind::Tuple; }
  bool isOptional() const { return kind == TypeKind::Optional; }
  /// Every element the same type (numba's UniTuple).
  bool isUniTuple() const;
  /// Arrays: the bytes of one element (a record's size for arrays of records).
  uint64_t itemSize() const;
  /// Contains Unknown somewhere.
  bool hasUnknown() const;
  /// A member of a plain enum.Enum (not an IntEnum): no arithmetic, no ordering.
  bool isPlainEnumMember() const { return !enumClass.empty() && !intEnum; }
  /// The type of the value itself: an enum member's type without its class.
  Type valueType() const {
    Type t = *this;
    t.enumClass.clear();
    t.intEnum = false;
    return t;
  }

  bool operator==(const Type &o) const;
  bool operator!=(const Type &o) const { return !(*this == o); }

  /// numba's spelling: "float32", "array(float32, 2d, C)", "UniTuple(int64 x 2)".
  std::string str() const;
  /// numba's signature syntax, as users write types: "float32", "float32[:, ::1]",
  /// "CPointer(uint8)", "UniTuple(int64, 2)", "Tuple(int64, float32)".
  std::string signatureText() const;
  /// Short and identifier-safe, for mangled function names: "f32", "a2Cf32".
  std::string mangle() const;
};

/// A function's name as users wrote it, from its key: jit and foreign functions of
/// different scopes are told apart by a suffix ("f@3" -> "f").
std::string displayName(const std::string &key);

/// Python's answer to `a == b` (`identity` false) or `a is b` where the operands' enum
/// classes alone decide it: members of different classes are never the same object, and a
/// plain Enum's member equals no value but its class's members (an IntEnum's compares as an
/// int). nullopt where the values decide.
std::optional<bool> enumClassesDecide(const Type &a, const Type &b, bool identity);

/// Unification of two assignments to one variable (numba's unify_pairs); nullopt if the
/// two cannot live in one variable.
std::optional<Type> unify(const Type &a, const Type &b);

} // namespace cutwin::fe
