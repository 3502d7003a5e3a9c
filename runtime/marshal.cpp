#include "runtime/marshal.h"
#include "cutwin/time_cases.h"
#include "frontend/lower/bfloat16.h"
#include "frontend/sema/record_layout.h"

#include <cstring>

namespace cutwin::rt {

namespace {
/// The record type of a record dtype (the RNG states' among them), or null.
const fe::RecordLayout *recordOf(DType t) {
  if (t == DType::Xoroshiro128p)
    return fe::xoroshiro128pRecord();
  return dtypeIsRecord(t) ? fe::recordAt(unsigned(t) - kFirstRecordDType) : nullptr;
}

/// Fortran order with more than one dimension (numba's 'F' layout; 1-D arrays are 'C').
bool isFContiguousOnly(const DeviceArray &arr) {
  if (arr.ndim() < 2 || arr.isCContiguous())
    return false;
  int64_t step = int64_t(dtypeSize(arr.dtype()));
  for (unsigned k = 0; k < arr.ndim(); ++k) {
    if (arr.shape()[k] != 1 && arr.strides()[k] != step)
      return false;
    step *= arr.shape()[k];
  }
  return true;
}

/// The type of the argument's value (an enum member's without its class).
fe::Type valueType(const Arg &a) {
  if (a.isTuple()) {
    std::vector<fe::Type> elems;
    for (const Arg &e : a.elements())
      elems.push_back(argumentType(e));
    if (!a.fields().empty())
      return fe::Type::namedTuple(a.tupleName(), a.fields(), std::move(elems));
    return fe::Type::tuple(std::move(elems));
  }
  if (a.isArray()) {
    const DeviceArray &arr = a.array();
    if (arr.ndim() > kMaxArrayDims)
      throw Error("kernel arguments must be arrays of at most " + std::to_string(kMaxArrayDims) +
                  " dimensions, got " + std::to_string(arr.ndim()));
    fe::Layout layout = arr.isCContiguous()      ? fe::Layout::C
                        : isFContiguousOnly(arr) ? fe::Layout::F
                                                 : fe::Layout::A;
    if (const fe::RecordLayout *r = recordOf(arr.dtype()))
      return a.isRecord() ? fe::Type::recordIn(r) : fe::Type::recordArray(r, arr.ndim(), layout);
    if (a.isRecord())
      throw Error("a record argument needs a record dtype, got " + std::string(dtypeName(arr.dtype())));
    return fe::Type::array(fe::Scalar(arr.dtype()), arr.ndim(), layout);
  }
  if (a.scalar().dtype == DType::Xoroshiro128p)
    throw Error("RNG states are passed as arrays, not scalars");
  return fe::Type::scalarOf(fe::Scalar(a.scalar().dtype));
}
} // namespace

fe::Type argumentType(const Arg &a) {
  fe::Type t = valueType(a);
  t.enumClass = a.enumClass(); // an enum member's class is part of its type
  t.intEnum = a.intEnum();
  return t;
}

namespace {
template <class T> void put(uint8_t *buf, uint32_t off, T v) { std::memcpy(buf + off, &v, sizeof v); }

void putScalar(uint8_t *buf, uint32_t off, fe::Scalar to, const Arg::Scalar &s) {
  bool isComplex = s.dtype == DType::C64 || s.dtype == DType::C128;
  bool isFloat = dtypeIsFloat(s.dtype) || isComplex;
  double d, im = 0;
  std::memcpy(&d, &s.bits, 8);
  if (isComplex)
    std::memcpy(&im, &s.imagBits, 8);
  int64_t i = int64_t(s.bits);
  if (isComplex && !fe::isComplex(to))
    throw LaunchError(std::string("cannot pass a complex number as ") + fe::scalarName(to));
  auto as = [&](auto tag) {
    using T = decltype(tag);
    return isFloat ? T(d) : (s.dtype == DType::U64 ? T(uint64_t(i)) : T(i));
  };
  switch (to) {
  case fe::Scalar::Bool: put<uint8_t>(buf, off, isFloat ? d != 0 : i != 0); break;
  case fe::Scalar::I8: put(buf, off, as(int8_t{})); break;
  case fe::Scalar::I16: put(buf, off, as(int16_t{})); break;
  case fe::Scalar::I32: put(buf, off, as(int32_t{})); break;
  case fe::Scalar::I64: put(buf, off, as(int64_t{})); break;
  case fe::Scalar::U8: put(buf, off, as(uint8_t{})); break;
  case fe::Scalar::U16: put(buf, off, as(uint16_t{})); break;
  case fe::Scalar::U32: put(buf, off, as(uint32_t{})); break;
  case fe::Scalar::U64: put(buf, off, as(uint64_t{})); break;
  case fe::Scalar::F16: put(buf, off, as(_Float16{})); break; // rounded to nearest, ties to even
  case fe::Scalar::BF16: // rounded once to nearest, as the kernel converts
    put(buf, off,
        isFloat ? ir::bfloat16Bits(d)
                : ir::bfloat16BitsOfInteger(s.dtype == DType::U64 ? uint64_t(i)
                                                                  : uint64_t(i < 0 ? -uint64_t(i) : i),
                                            s.dtype != DType::U64 && i < 0));
    break;
  case fe::Scalar::F32: put(buf, off, as(float{})); break;
  case fe::Scalar::F64: put(buf, off, as(double{})); break;
  case fe::Scalar::C64: {
    float parts[2] = {as(float{}), float(im)};
    std::memcpy(buf + off, parts, sizeof parts);
    break;
  }
  case fe::Scalar::C128: {
    double parts[2] = {as(double{}), im};
    std::memcpy(buf + off, parts, sizeof parts);
    break;
  }
    CUTWIN_TIME_CASES(fe::Scalar) // np.datetime64 / np.timedelta64: their int64 count
    if (s.dtype != DType(to))
      throw LaunchError(std::string("cannot pass a ") + dtypeName(s.dtype) + " as " + fe::scalarName(to));
    put(buf, off, int64_t(i));
    break;
  case fe::Scalar::FP8E5M2:
  case fe::Scalar::FP8E4M3:
  case fe::Scalar::FP8E8M0: // (numba-cuda takes no 8-bit float scalars from the host either)
    throw LaunchError(std::string("cannot pass a number as ") + fe::scalarName(to) +
                      ": construct it in the kernel, e.g. fp8_e4m3(x)");
  }
}

} // namespace

std::vector<uint64_t> packArguments(const ir::ArgLayout &layout, const std::vector<Arg> &args,
                                    void *errorRecord) {
  std::vector<uint64_t> storage((layout.size + 7) / 8, 0);
  auto *buf = reinterpret_cast<uint8_t *>(storage.data());
  for (const ir::ParamSlot &s : layout.slots) {
    if (s.role == ir::ParamSlot::Role::ErrorRecord) {
      put(buf, s.offset, errorRecord);
      continue;
    }
    const Arg *arg = &args[s.arg];
    for (unsigned k : s.path) // an element of a tuple argument
      arg = &arg->elements()[k];
    const Arg &a = *arg;
    if (s.pointer) { // CPointer(T): an address (an integer) is data; no extent; T's size as stride
      uint64_t address = a.isArray() ? reinterpret_cast<uint64_t>(a.array().data()) : a.scalar().bits;
      if (s.role == ir::ParamSlot::Role::Data)
        put(buf, s.offset, address);
      else if (s.role == ir::ParamSlot::Role::Shape)
        put(buf, s.offset, INT64_MAX);
      else
        put(buf, s.offset, int64_t(fe::byteSize(s.scalar)));
      continue;
    }
    switch (s.role) {
    case ir::ParamSlot::Role::Scalar: putScalar(buf, s.offset, s.scalar, a.scalar()); break;
    case ir::ParamSlot::Role::Data: put(buf, s.offset, a.array().data()); break;
    case ir::ParamSlot::Role::Shape: put(buf, s.offset, a.array().shape()[s.dim]); break;
    case ir::ParamSlot::Role::Stride: put(buf, s.offset, a.array().strides()[s.dim]); break;
    default: break;
    }
  }
  return storage;
}

} // namespace cutwin::rt
