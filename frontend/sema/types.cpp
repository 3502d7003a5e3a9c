#include "frontend/sema/types.h"

#include "frontend/sema/record_layout.h"

#include <cctype>
#include <cstdio>
#include <functional>

#include <array>
#include <map>

namespace cutwin::fe {

bool isInteger(Scalar s) { return s >= Scalar::I8 && s <= Scalar::U64; }
bool isSigned(Scalar s) { return s >= Scalar::I8 && s <= Scalar::I64; }
bool isFloat(Scalar s) { return s == Scalar::F16 || s == Scalar::F32 || s == Scalar::F64; }
bool isComplex(Scalar s) { return s == Scalar::C64 || s == Scalar::C128; }
bool isFp8(Scalar s) { return s == Scalar::FP8E5M2 || s == Scalar::FP8E4M3 || s == Scalar::FP8E8M0; }
bool isDatetime(Scalar s) { return s >= Scalar::DTY && s <= Scalar::DTns; }
bool isTimedelta(Scalar s) { return s >= Scalar::TDY && s <= Scalar::TDns; }
bool isTime(Scalar s) { return isDatetime(s) || isTimedelta(s); }
bool sameTimeKind(Scalar a, Scalar b) {
  return (isDatetime(a) && isDatetime(b)) || (isTimedelta(a) && isTimedelta(b));
}
TimeUnit timeUnit(Scalar s) {
  return TimeUnit(unsigned(s) - unsigned(isDatetime(s) ? Scalar::DTY : Scalar::TDY));
}
Scalar datetimeOf(TimeUnit u) { return Scalar(unsigned(Scalar::DTY) + unsigned(u)); }
Scalar timedeltaOf(TimeUnit u) { return Scalar(unsigned(Scalar::TDY) + unsigned(u)); }
Scalar partOf(Scalar s) { return s == Scalar::C64 ? Scalar::F32 : s == Scalar::C128 ? Scalar::F64 : s; }
Scalar complexOf(Scalar part) {
  return part == Scalar::F32 || part == Scalar::F16 ? Scalar::C64 : Scalar::C128;
}

unsigned bitWidth(Scalar s) {
  switch (s) {
#define CUTWIN_SCALAR(id, value, name, code, bytes)                                                          \
  case Scalar::id:                                                                                           \
    return Scalar::id == Scalar::Bool ? 1 : (bytes)*8;
#define CUTWIN_RECORD(...)
#include "cutwin/dtypes.def"
#undef CUTWIN_SCALAR
#undef CUTWIN_RECORD
  }
  return 0;
}

unsigned byteSize(Scalar s) { return s == Scalar::Bool ? 1 : bitWidth(s) / 8; }

const char *scalarName(Scalar s) {
  static constexpr std::pair<Scalar, const char *> names[] = {
#define CUTWIN_SCALAR(id, value, name, ...) {Scalar::id, name},
#define CUTWIN_RECORD(...)
#include "cutwin/dtypes.def"
#undef CUTWIN_SCALAR
#undef CUTWIN_RECORD
  };
  for (auto &[scalar, name] : names)
    if (scalar == s)
      return name;
  return "?";
}

std::string scalarNames(const std::vector<Scalar> &scalars) {
  std::string out;
  for (size_t i = 0; i < scalars.size(); ++i)
    out += std::string(i ? ", " : "") + scalarName(scalars[i]);
  return out;
}

std::optional<Scalar> scalarFromName(const std::string &n) {
  static const std::map<std::string, Scalar> names = {
      {"bool", Scalar::Bool},
      {"bool_", Scalar::Bool},
      {"boolean", Scalar::Bool},
      {"b1", Scalar::Bool},
      {"int8", Scalar::I8},
      {"i1", Scalar::I8},
      {"byte", Scalar::I8},
      {"int16", Scalar::I16},
      {"i2", Scalar::I16},
      {"short", Scalar::I16},
      {"int32", Scalar::I32},
      {"i4", Scalar::I32},
      {"intc", Scalar::I32},
      {"int64", Scalar::I64},
      {"i8", Scalar::I64},
      {"intp", Scalar::I64},
      {"int_", Scalar::I64},
      {"long", Scalar::I64},
      {"longlong", Scalar::I64},
      {"uint8", Scalar::U8},
      {"u1", Scalar::U8},
      {"ubyte", Scalar::U8},
      {"uint16", Scalar::U16},
      {"u2", Scalar::U16},
      {"ushort", Scalar::U16},
      {"uint32", Scalar::U32},
      {"u4", Scalar::U32},
      {"uintc", Scalar::U32},
      {"uint64", Scalar::U64},
      {"u8", Scalar::U64},
      {"uintp", Scalar::U64},
      {"uint", Scalar::U64},
      {"ulonglong", Scalar::U64},
      {"float16", Scalar::F16},
      {"f2", Scalar::F16},
      {"half", Scalar::F16},
      {"float32", Scalar::F32},
      {"f4", Scalar::F32},
      {"single", Scalar::F32},
      {"float64", Scalar::F64},
      {"f8", Scalar::F64},
      {"double", Scalar::F64},
      {"float_", Scalar::F64},
      {"complex64", Scalar::C64},
      {"c8", Scalar::C64},
      {"csingle", Scalar::C64},
      {"complex128", Scalar::C128},
      {"c16", Scalar::C128},
      {"cdouble", Scalar::C128},
      {"complex_", Scalar::C128},
      {"bfloat16", Scalar::BF16},
      {"__nv_bfloat16", Scalar::BF16},
      {"fp8_e5m2", Scalar::FP8E5M2},
      {"fp8_e4m3", Scalar::FP8E4M3},
      {"fp8_e8m0", Scalar::FP8E8M0},
  };
  auto it = names.find(n);
  if (it == names.end()) {
    for (unsigned s = 0; s < kNumScalars; ++s) // the other rows by their NumPy names: "datetime64[D]", ...
      if (const char *name = scalarName(Scalar(s)); name && n == name)
        return Scalar(s);
    return std::nullopt;
  }
  return it->second;
}

Scalar intScalar(unsigned bits, bool s) {
  switch (bits) {
  case 8: return s ? Scalar::I8 : Scalar::U8;
  case 16: return s ? Scalar::I16 : Scalar::U16;
  case 32: return s ? Scalar::I32 : Scalar::U32;
  default: return s ? Scalar::I64 : Scalar::U64;
  }
}

namespace {

/// numba's cast graph (typeconv/rules.py) closed transitively: the kind of a path is the
/// worst edge on it, and the best path wins.
struct CastTable {
  std::array<std::array<Conversion, kNumScalars>, kNumScalars> t;

  void set(Scalar a, Scalar b, Conversion c) {
    auto &slot = t[int(a)][int(b)];
    if (int(c) < int(slot))
      slot = c;
  }
  void promoteUnsafe(Scalar a, Scalar b) {
    set(a, b, Conversion::Promote);
    set(b, a, Conversion::Unsafe);
  }
  void safeUnsafe(Scalar a, Scalar b) {
    set(a, b, Conversion::Safe);
    set(b, a, Conversion::Unsafe);
  }
  void unsafeUnsafe(Scalar a, Scalar b) {
    set(a, b, Conversion::Unsafe);
    set(b, a, Conversion::Unsafe);
  }
  /// numba-cuda's bfloat16 is no Float and converts by its own rules, apart from the
  /// graph (no path runs through it): int8/uint8 in safely, other integers and floats in
  /// unsafely; out to float32/float64 safely, to float16 and integers unsafely; nothing
  /// with bool or complex numbers.
  void bfloat16Rules() {
    using S = Scalar;
    for (int i = 0; i < kNumScalars; ++i) {
      S s = S(i);
      if (s == S::BF16 || !(isFloat(s) || isInteger(s)))
        continue;
      t[i][int(S::BF16)] = s == S::I8 || s == S::U8 ? Conversion::Safe : Conversion::Unsafe;
      t[int(S::BF16)][i] = s == S::F32 || s == S::F64 ? Conversion::Safe : Conversion::Unsafe;
    }
  }

  CastTable() {
    for (auto &row : t)
      row.fill(Conversion::None);
    for (int i = 0; i < kNumScalars; ++i)
      t[i][i] = Conversion::Exact;
    using S = Scalar;
    safeUnsafe(S::Bool, S::I8);
    safeUnsafe(S::Bool, S::U8);
    promoteUnsafe(S::I8, S::I16);
    promoteUnsafe(S::U8, S::U16);
    promoteUnsafe(S::I16, S::I32);
    promoteUnsafe(S::U16, S::U32);
    promoteUnsafe(S::I32, S::I64);
    promoteUnsafe(S::U32, S::U64);
    safeUnsafe(S::U8, S::I16);
    safeUnsafe(S::U16, S::I32);
    safeUnsafe(S::U32, S::I64);
    safeUnsafe(S::I8, S::F16);
    unsafeUnsafe(S::I16, S::F16);
    safeUnsafe(S::I16, S::F32);
    safeUnsafe(S::I32, S::F64);
    unsafeUnsafe(S::I32, S::F32);
    safeUnsafe(S::I64, S::F64);
    safeUnsafe(S::U64, S::F64);
    promoteUnsafe(S::F16, S::F32);
    promoteUnsafe(S::F32, S::F64);
    set(S::F32, S::C64, Conversion::Safe); // one way: a complex never becomes a real
    set(S::F64, S::C128, Conversion::Safe);
    promoteUnsafe(S::C64, S::C128);
    bfloat16Rules();
    // datetime64 and timedelta64 convert to finer units of their group safely (numba's
    // rule), and to nothing else
    for (int i = 0; i < kNumScalars; ++i)
      for (int j = 0; j < kNumScalars; ++j) {
        S a = S(i), b = S(j);
        if (sameTimeKind(a, b) && timeUnit(b) > timeUnit(a) &&
            (timeUnit(a) <= TimeUnit::M) == (timeUnit(b) <= TimeUnit::M))
          set(a, b, Conversion::Safe);
      }
    for (int k = 0; k < kNumScalars; ++k)
      for (int i = 0; i < kNumScalars; ++i)
        for (int j = 0; j < kNumScalars; ++j) {
          if (t[i][k] == Conversion::None || t[k][j] == Conversion::None)
            continue;
          Conversion c = std::max(t[i][k], t[k][j]);
          if (int(c) < int(t[i][j]))
            t[i][j] = c;
        }
  }
};

} // namespace

Conversion canConvert(Scalar from, Scalar to) {
  static const CastTable table;
  return table.t[int(from)][int(to)];
}

Scalar npPromote(Scalar a, Scalar b) {
  if (a == b)
    return a;
  if (a == Scalar::Bool)
    return b;
  if (b == Scalar::Bool)
    return a;
  if (a == Scalar::BF16 || b == Scalar::BF16) {
    // numba-cuda's bfloat16 operators: with float32 or float64 that float, with float16
    // float32, with integers of up to 32 bits bfloat16. With a 64-bit integer numba-cuda
    // truncates the bfloat16 to int64; cutwin computes in float64 instead.
    Scalar o = a == Scalar::BF16 ? b : a;
    if (o == Scalar::F32 || o == Scalar::F64)
      return o;
    if (o == Scalar::F16)
      return Scalar::F32;
    if (isComplex(o))
      return complexOf(Scalar::F32);
    return bitWidth(o) <= 32 ? Scalar::BF16 : Scalar::F64;
  }
  if (isComplex(a) || isComplex(b)) // the complex type whose parts hold both
    return complexOf(npPromote(partOf(a), partOf(b)));
  if (isFloat(a) || isFloat(b)) {
    if (a == Scalar::F64 || b == Scalar::F64)
      return Scalar::F64;
    if (isFloat(a) && isFloat(b)) // float16 with float32
      return Scalar::F32;
    Scalar f = isFloat(a) ? a : b, i = isFloat(a) ? b : a; // a float with an integer
    if (f == Scalar::F16 && bitWidth(i) <= 8)
      return Scalar::F16;
    return bitWidth(i) <= 16 ? Scalar::F32 : Scalar::F64;
  }
  bool sa = isSigned(a), sb = isSigned(b);
  unsigned wa = bitWidth(a), wb = bitWidth(b);
  if (sa == sb)
    return intScalar(std::max(wa, wb), sa);
  unsigned ws = sa ? wa : wb, wu = sa ? wb : wa;
  if (ws > wu)
    return intScalar(ws, true);
  if (wu < 64)
    return intScalar(wu * 2, true);
  return Scalar::F64; // int64 with uint64
}

bool Type::isUniTuple() const {
  if (kind != TypeKind::Tuple)
    return false;
  for (auto &e : elems)
    if (e != elems.front())
      return false;
  return true;
}

bool Type::hasUnknown() const {
  if (kind == TypeKind::Unknown)
    return true;
  for (auto &e : elems)
    if (e.hasUnknown())
      return true;
  return false;
}

uint64_t Type::itemSize() const { return record ? record->size : byteSize(scalar); }

bool Type::operator==(const Type &o) const {
  if (kind != o.kind || enumClass != o.enumClass)
    return false;
  switch (kind) {
  case TypeKind::Scalar:
  case TypeKind::Range: return scalar == o.scalar;
  case TypeKind::Array:
    return scalar == o.scalar && ndim == o.ndim && layout == o.layout && space == o.space &&
           record == o.record && pointer == o.pointer;
  case TypeKind::Tuple: return elems == o.elems && fields == o.fields && path == o.path;
  case TypeKind::Module:
  case TypeKind::Function:
  case TypeKind::DeviceFunction:
  case TypeKind::ForeignFunction: return path == o.path;
  case TypeKind::Iterator: return path == o.path && elems == o.elems;
  case TypeKind::Optional: return elems == o.elems;
  case TypeKind::Record: return record == o.record && space == o.space;
  case TypeKind::TypeObject:
    return scalar == o.scalar && typeObjectIsVoid == o.typeObjectIsVoid && elems == o.elems &&
           ndim == o.ndim && layout == o.layout;
  case TypeKind::Unknown: // (nothing besides the kind)
  case TypeKind::None:
  case TypeKind::String:
  case TypeKind::Slice: return true;
  }
  return true;
}

std::string Type::str() const {
  if (!enumClass.empty()) // numba's spelling: IntEnumMember(<enum 'Shape'>, int64)
    return std::string(intEnum ? "IntEnumMember" : "EnumMember") + "(<enum '" +
           enumClass.substr(enumClass.rfind(':') + 1) + "'>, " + valueType().str() + ")";
  switch (kind) {
  case TypeKind::Unknown: return "<unknown>";
  case TypeKind::None: return "none";
  case TypeKind::Scalar: return scalarName(scalar);
  case TypeKind::Array: {
    if (pointer)
      return std::string("CPointer(") + scalarName(scalar) + ")";
    std::string s = std::string("array(") + (record ? record->displayName() : scalarName(scalar)) + ", " +
                    std::to_string(ndim) + "d, " +
                    (layout == Layout::C   ? "C"
                     : layout == Layout::F ? "F"
                                           : "A");
    if (space == MemSpace::Shared)
      s += ", shared";
    else if (space == MemSpace::Local)
      s += ", local";
    else if (space == MemSpace::Const)
      s += ", const";
    return s + ")";
  }
  case TypeKind::Tuple: {
    if (!fields.empty()) { // numba's spelling of a named tuple: Point(int64, float64)
      std::string s = path + "(";
      for (size_t i = 0; i < elems.size(); ++i)
        s += (i ? ", " : "") + elems[i].str();
      return s + ")";
    }
    if (!elems.empty() && isUniTuple())
      return "UniTuple(" + elems[0].str() + " x " + std::to_string(elems.size()) + ")";
    std::string s = "Tuple(";
    for (size_t i = 0; i < elems.size(); ++i)
      s += (i ? ", " : "") + elems[i].str();
    return s + ")";
  }
  case TypeKind::Range: return std::string("range(") + scalarName(scalar) + ")";
  case TypeKind::Module: return "module '" + path + "'";
  case TypeKind::Function: return "function '" + path + "'";
  case TypeKind::TypeObject:
    if (typeObjectIsVoid)
      return "type(void)";
    if (!elems.empty())
      return "type(" + elems[0].str() + ")";
    return std::string("type(") + scalarName(scalar) + ")";
  case TypeKind::DeviceFunction: return "device function '" + displayName(path) + "'";
  case TypeKind::ForeignFunction: return "foreign device function '" + displayName(path) + "'";
  case TypeKind::String: return "str";
  case TypeKind::Slice: return "slice";
  case TypeKind::Iterator: {
    std::string s = path + "(";
    for (size_t i = 0; i < elems.size(); ++i)
      s += (i ? ", " : "") + elems[i].str();
    return s + ")";
  }
  case TypeKind::Optional: return "OptionalType(" + elems[0].str() + ")"; // numba's spelling
  case TypeKind::Record: return record->displayName();
  }
  return "?";
}

std::string Type::signatureText() const {
  switch (kind) {
  case TypeKind::Scalar: return scalar == Scalar::Bool ? "boolean" : scalarName(scalar);
  case TypeKind::Array: {
    if (pointer)
      return std::string("CPointer(") + scalarName(scalar) + ")";
    std::string dims;
    for (unsigned k = 0; k < ndim; ++k) {
      bool contiguous = (layout == Layout::C && k + 1 == ndim) || (layout == Layout::F && k == 0 && ndim > 1);
      dims += std::string(k ? ", " : "") + (contiguous ? "::1" : ":");
    }
    return (record ? record->text : std::string(scalarName(scalar))) + "[" + dims + "]";
  }
  case TypeKind::Tuple: {
    if (!elems.empty() && isUniTuple())
      return "UniTuple(" + elems[0].signatureText() + ", " + std::to_string(elems.size()) + ")";
    std::string s = "Tuple(";
    for (size_t i = 0; i < elems.size(); ++i)
      s += (i ? ", " : "") + elems[i].signatureText();
    return s + ")";
  }
  case TypeKind::None: return "void";
  case TypeKind::Optional: return "optional(" + elems[0].signatureText() + ")";
  case TypeKind::Record: return record->text;
  case TypeKind::Unknown: // (as str() writes them)
  case TypeKind::Range:
  case TypeKind::Module:
  case TypeKind::Function:
  case TypeKind::TypeObject:
  case TypeKind::DeviceFunction:
  case TypeKind::ForeignFunction:
  case TypeKind::String:
  case TypeKind::Slice:
  case TypeKind::Iterator: break;
  }
  return str();
}

std::string Type::mangle() const {
  static constexpr const char *short_[] = {
      "b",    "i8",   "i16",  "i32",  "i64",  "u8",   "u16", "u32", "u64", "f32", "f64",  "?",    "c64",
      "c128", "f16",  "bf16", "e5m2", "e4m3", "e8m0", "M8Y", "M8M", "M8W", "M8D", "M8h",  "M8m",  "M8s",
      "M8ms", "M8us", "M8ns", "m8Y",  "m8M",  "m8W",  "m8D", "m8h", "m8m", "m8s", "m8ms", "m8us", "m8ns"};
  static_assert(std::size(short_) == kNumScalars, "a short name for each scalar of dtypes.def");
  if (!enumClass.empty()) { // the class is part of the type; its name, identifier-safe and unique
    std::string s = "E";
    for (char c : enumClass)
      s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    char hash[20];
    std::snprintf(hash, sizeof hash, "%zx", std::hash<std::string>{}(enumClass));
    return s + hash + "_" + valueType().mangle();
  }
  switch (kind) {
  case TypeKind::Scalar: return short_[int(scalar)];
  case TypeKind::Array: {
    if (pointer)
      return std::string("p") + short_[int(scalar)];
    std::string s = "a" + std::to_string(ndim) +
                    (layout == Layout::C   ? "C"
                     : layout == Layout::F ? "F"
                                           : "A") +
                    (record ? "r" + std::to_string(record->index) : std::string(short_[int(scalar)]));
    if (space == MemSpace::Shared)
      s += "s";
    else if (space == MemSpace::Local)
      s += "l";
    else if (space == MemSpace::Const)
      s += "k";
    else if (space == MemSpace::Generic)
      s += "g";
    return s;
  }
  case TypeKind::Tuple: {
    std::string s = "t" + std::to_string(elems.size());
    if (!fields.empty()) { // named: the class and its fields are part of the type
      s = "n" + std::to_string(path.size()) + path;
      for (auto &f : fields)
        s += std::to_string(f.size()) + f;
      s += "t" + std::to_string(elems.size());
    }
    for (auto &e : elems)
      s += e.mangle();
    return s + "e";
  }
  case TypeKind::None: return "v";
  case TypeKind::Optional: return "o" + elems[0].mangle();
  case TypeKind::Record: // the address space matters: a device function takes one kind of pointer
    return "R" + std::to_string(record->index) +
           (space == MemSpace::Shared  ? "s"
            : space == MemSpace::Local ? "l"
                                       : "");
  case TypeKind::TypeObject:
    if (typeObjectIsVoid)
      return "Tv";
    return "T" + (elems.empty() ? std::string(short_[int(scalar)]) : elems[0].mangle());
  case TypeKind::Function:
  case TypeKind::DeviceFunction:
  case TypeKind::ForeignFunction:
  case TypeKind::Module: {
    // A static argument: its identity is its path.
    std::string s = kind == TypeKind::Function ? "F" : kind == TypeKind::Module ? "M" : "D";
    for (char c : path)
      s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return s + "E";
  }
  case TypeKind::Unknown: // (never in a specialisation's key)
  case TypeKind::Range:
  case TypeKind::String:
  case TypeKind::Slice:
  case TypeKind::Iterator: break;
  }
  return "x";
}

std::string displayName(const std::string &key) { return key.substr(0, key.find('@')); }

std::optional<bool> enumClassesDecide(const Type &a, const Type &b, bool identity) {
  if (a.enumClass.empty() && b.enumClass.empty())
    return std::nullopt;
  if (identity)
    return a.enumClass == b.enumClass ? std::nullopt : std::optional<bool>(false);
  if (a.enumClass == b.enumClass)
    return std::nullopt;
  bool aNumber = a.enumClass.empty() ? a.isScalar() : a.intEnum;
  bool bNumber = b.enumClass.empty() ? b.isScalar() : b.intEnum;
  if ((a.intEnum || b.intEnum) && aNumber && bNumber)
    return std::nullopt; // an IntEnum's member and a number (or another IntEnum's member)
  return false;
}

std::optional<Type> unify(const Type &a, const Type &b) {
  if (a.isUnknown())
    return b;
  if (b.isUnknown())
    return a;
  if (a == b)
    return a;
  // A plain Enum's members unify with their own class's only (an IntEnum's, as ints).
  if (a.enumClass != b.enumClass && (a.isPlainEnumMember() || b.isPlainEnumMember()))
    return std::nullopt;
  // numba's Optional: None with a value, or an Optional with a value or another Optional,
  // is an Optional of the values' unification.
  if (a.isOptional() || b.isOptional() || a.kind == TypeKind::None || b.kind == TypeKind::None) {
    if (a.kind == TypeKind::None || b.kind == TypeKind::None) {
      const Type &other = a.kind == TypeKind::None ? b : a;
      if (other.isOptional())
        return other;
      if (!other.isScalar() && !other.isTuple() && !other.isArray())
        return std::nullopt;
      return Type::optional(other);
    }
    auto u = unify(a.isOptional() ? a.elems[0] : a, b.isOptional() ? b.elems[0] : b);
    if (!u)
      return std::nullopt;
    return Type::optional(*u);
  }
  if (a.isScalar() && b.isScalar())
    return Type::scalarOf(npPromote(a.scalar, b.scalar));
  if (a.isTuple() && b.isTuple() && a.elems.size() == b.elems.size()) {
    std::vector<Type> elems;
    for (size_t i = 0; i < a.elems.size(); ++i) {
      auto u = unify(a.elems[i], b.elems[i]);
      if (!u)
        return std::nullopt;
      elems.push_back(*u);
    }
    return Type::tuple(std::move(elems));
  }
  if (a.isArray() && b.isArray() && a.scalar == b.scalar && a.ndim == b.ndim) {
    Layout l = a.layout == b.layout ? a.layout : Layout::A;
    MemSpace s = a.space == b.space ? a.space : MemSpace::Generic;
    return Type::array(a.scalar, a.ndim, l, s);
  }
  return std::nullopt;
}

} // namespace cutwin::fe
