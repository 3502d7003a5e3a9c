#include "frontend/ir/abi.h"

#include "cutwin/errors.h"

namespace cutwin::ir {

namespace {

void addSlot(ArgLayout &l, ParamSlot s) {
  s.offset = (l.size + s.align - 1) / s.align * s.align;
  l.size = s.offset + s.size;
  l.slots.push_back(std::move(s));
}

void flatten(ArgLayout &l, const fe::Type &t, unsigned arg, std::vector<unsigned> path) {
  using fe::TypeKind;
  auto slot = [&](ParamSlot::Role role, uint32_t size, unsigned dim = 0, uint32_t align = 0) {
    ParamSlot s;
    s.role = role;
    s.arg = arg;
    s.path = path;
    s.dim = dim;
    s.size = size;
    s.align = align ? align : size;
    if (role != ParamSlot::Role::ErrorRecord)
      s.scalar = t.scalar; // arrays: the element type (a CPointer's stride is its size)
    s.pointer = t.pointer;
    addSlot(l, s);
  };
  switch (t.kind) {
  case TypeKind::Scalar: // a complex number {real, imag} is aligned as its parts
    slot(ParamSlot::Role::Scalar, fe::byteSize(t.scalar), 0,
         fe::isComplex(t.scalar) ? fe::byteSize(t.scalar) / 2 : 0);
    return;
  case TypeKind::Array:
    slot(ParamSlot::Role::Data, 8);
    for (unsigned k = 0; k < t.ndim; ++k)
      slot(ParamSlot::Role::Shape, 8, k);
    for (unsigned k = 0; k < t.ndim; ++k)
      slot(ParamSlot::Role::Stride, 8, k);
    return;
  case TypeKind::Record: // its address (numba passes records by reference)
    slot(ParamSlot::Role::Data, 8);
    return;
  case TypeKind::Tuple:
    for (unsigned i = 0; i < t.elems.size(); ++i) {
      auto p = path;
      p.push_back(i);
      flatten(l, t.elems[i], arg, p);
    }
    return;
  case TypeKind::Unknown:
  case TypeKind::None:
  case TypeKind::Range:
  case TypeKind::Module:
  case TypeKind::Function:
  case TypeKind::TypeObject:
  case TypeKind::DeviceFunction:
  case TypeKind::ForeignFunction:
  case TypeKind::String:
  case TypeKind::Slice:
  case TypeKind::Iterator:
  case TypeKind::Optional: break;
  }
  throw Error("kernel arguments of type " + t.str() + " are not supported");
}

} // namespace

ArgLayout computeArgLayout(const std::vector<fe::Type> &argTypes) {
  ArgLayout l;
  for (unsigned i = 0; i < argTypes.size(); ++i)
    flatten(l, argTypes[i], i, {});
  ParamSlot err;
  err.role = ParamSlot::Role::ErrorRecord;
  err.arg = unsigned(argTypes.size());
  err.size = err.align = 8;
  addSlot(l, err);
  l.size = (l.size + l.align - 1) / l.align * l.align;
  return l;
}

} // namespace cutwin::ir
