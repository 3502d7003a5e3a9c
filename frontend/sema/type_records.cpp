// Typing of records (numba's Record): field reads by attribute, by name and by position, and
// stores into fields and of whole records. A record value is a reference to its bytes (in
// global, shared or local memory), so a field store writes through to the array or argument
// the record came from, as in numba.
#include "frontend/sema/function_typer.h"
#include "frontend/sema/record_layout.h"

namespace cutwin::fe {

namespace {

/// The type a field reads as, for a record in `space`: a number, a view of a nested array,
/// or a nested record (a reference into the same bytes).
Type fieldType(const RecordField &f, MemSpace space) {
  if (f.shape.empty())
    return f.record ? Type::recordIn(f.record, space) : Type::scalarOf(f.scalar);
  unsigned ndim = unsigned(f.shape.size());
  return f.record ? Type::recordArray(f.record, ndim, Layout::C, space)
                  : Type::array(f.scalar, ndim, Layout::C, space);
}

} // namespace

ExprInfo FunctionTyper::typeRecordField(const Type &record, const ConstValue &key, SourceLoc loc) {
  const RecordLayout &r = *record.record;
  const RecordField *f = nullptr;
  if (key.kind == ConstValue::Kind::Str) {
    f = r.field(key.s);
    if (!f)
      error(loc, "record " + r.text + " has no field '" + key.s + "'");
  } else if (key.kind == ConstValue::Kind::Int) {
    int64_t n = int64_t(r.fields.size());
    if (key.i < -n || key.i >= n)
      error(loc, "record field index " + std::to_string(key.i) + " out of range for a record of " +
                     std::to_string(n) + " fields");
    f = &r.fields[size_t(key.i < 0 ? key.i + n : key.i)];
  } else {
    error(loc, "a record's fields are read by name (r.x, r[\"x\"]) or by a constant position (r[0])");
  }
  if (f->offset % f->alignment() != 0) // numba refuses these too: GPUs fault on misaligned accesses
    error(loc, r.text + "." + f->name + " of type " + (f->record ? f->record->text : scalarName(f->scalar)) +
                   " is not aligned (at offset " + std::to_string(f->offset) +
                   "; a packed record's fields "
                   "are used in kernels only where they are aligned)");
  if (f->shape.size() > 3)
    error(loc, "record field '" + f->name + "' is a " + std::to_string(f->shape.size()) +
                   "-dimensional array; kernels use arrays of 1 to 3 dimensions");
  ExprInfo info;
  info.type = fieldType(*f, record.space);
  info.access = Access::RecordField;
  info.staticIndex = f - r.fields.data();
  return info;
}

void FunctionTyper::checkRecordStore(const Type &value, const Type &target, SourceLoc loc) {
  if (target.space == MemSpace::Const)
    error(loc, "cannot assign into a constant array: it is read-only in kernels");
  if (target.isRecord()) {                // a whole record: its bytes copied
    if (value.kind == TypeKind::String) { // a constant string into a NumPy string: its code units
      if (!target.record->charSequence())
        error(loc, "cannot store a string into a record of type " + target.str());
      return;
    }
    if (!value.isRecord() || value.record != target.record)
      error(loc, "cannot store " + value.str() + " into a record of type " + target.str());
    return;
  }
  if (target.isArray()) { // a nested array: filled with a number, or an array of its shape copied in
    if (value.isArray() && (value.ndim != target.ndim || value.isRecordArray() || target.isRecordArray()))
      error(loc, "cannot assign " + value.str() + " to the record field of type " + target.str());
    if (!value.isScalar() && !value.isArray())
      error(loc, "cannot store " + value.str() + " into a record field of type " + target.str());
    if (value.isScalar() && isComplex(value.scalar) && !isComplex(target.scalar))
      error(loc, "cannot store a complex number into an array of " + std::string(scalarName(target.scalar)));
    return;
  }
  if (!value.isScalar())
    error(loc, "cannot store " + value.str() + " into a record field of type " + target.str());
  checkElementStore(value, target, loc);
}

} // namespace cutwin::fe
