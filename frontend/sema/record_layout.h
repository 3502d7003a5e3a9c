/// Record types (NumPy's structured dtypes, numba's `Record`): named fields at byte offsets,
/// each a scalar, a nested array of scalars or a nested record. A record type is read from
/// numba's spelling of it, `Record(a[type=float64;offset=0],h[type=nestedarray(float32, (2,));
/// offset=8];16;True)`, which is also how the host names it to the compiler, and interned:
/// one pointer per distinct spelling, for the life of the process, so types compare by
/// pointer and arrays of records name their element type by an index (runtime dtypes).
#pragma once

#include "frontend/sema/types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cutwin::fe {

struct RecordLayout;

struct RecordField {
  std::string name;
  Scalar scalar = Scalar::U8;           ///< a scalar field, or a nested array's element
  const RecordLayout *record = nullptr; ///< a nested record field
  std::vector<int64_t> shape;           ///< a nested array field (C order); empty otherwise
  uint64_t offset = 0;                  ///< bytes from the record's start
  uint64_t size() const;                ///< bytes the field spans
  uint64_t alignment() const;           ///< its natural alignment (complex: its parts')
};

struct RecordLayout {
  std::vector<RecordField> fields;
  uint64_t size = 0;    ///< bytes, the array stride of the record (NumPy's itemsize)
  bool aligned = false; ///< NumPy's align=True: fields lie at their natural alignment
  std::string text;     ///< numba's spelling
  unsigned index = 0;   ///< its place in the intern table
  /// The record's own alignment in memory (arrays of it in shared and local memory).
  uint64_t alignment() const;
  const RecordField *field(const std::string &name) const;
  /// NumPy's fixed-length strings, which the host spells as a record of one field of code
  /// units (kUnicodeField: uint32, a 'U' dtype; kBytesField: uint8, an 'S' dtype): 'U' or
  /// 'S', and 0 for other records.
  char charSequence() const;
  /// numba's name: "[unichr x 12]", "[char x 12]", or the record's spelling.
  std::string displayName() const;
};

inline constexpr const char *kUnicodeField = "__unichr__";
inline constexpr const char *kBytesField = "__char__";

/// The record type numba spells `text` (a `Record(...)` spelling, nothing around it);
/// throws cutwin::Error naming what is wrong and where.
const RecordLayout *parseRecord(const std::string &text);
/// The record interned at `index`; throws if there is none.
const RecordLayout *recordAt(unsigned index);
/// numba's RNG state record: uint64 s0, s1 (cutwin::DType::Xoroshiro128p).
const RecordLayout *xoroshiro128pRecord();

/// `text` with every `Record(...)` spelling in it replaced by a name the type parser reads
/// as that record type (`recordTypeName`), so signatures and type texts that contain
/// records parse as Python expressions.
std::string nameRecordsIn(const std::string &text);
std::string recordTypeName(const RecordLayout *r);
/// The record a name made by recordTypeName stands for, or null.
const RecordLayout *recordOfTypeName(const std::string &name);

} // namespace cutwin::fe
