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
  switch (t.kind) {
  case TypeKind::Scalar: {
    ParamSlot s;
    s.role = ParamSlot::Role::Scalar;
    s.arg = arg;
    s.path = path;
    s.scalar = t.scalar;
    s.size = s.align = fe::byteSize(t.scalar);
    addSlot(l, s);
    return;
  }
  case TypeKind::Array: {
    ParamSlot d;
    d.role = ParamSlot::Role::Data;
    d.arg = arg;
    d.path = path;
    d.size = d.align = 8;
    addSlot(l, d);
    for (unsigned k = 0; k < t.ndim; ++k) {
      ParamSlot s;
      s.role = ParamSlot::Role::Shape;
      s.arg = arg;
      s.path = path;
      s.dim = k;
      s.size = s.align = 8;
      addSlot(l, s);
    }
    for (unsigned k = 0; k < t.ndim; ++k) {
      ParamSlot s;
      s.role = ParamSlot::Role::Stride;
      s.arg = arg;
      s.path = path;
      s.dim = k;
      s.size = s.align = 8;
      addSlot(l, s);
    }
    return;
  }
  case TypeKind::Tuple:
    for (unsigned i = 0; i < t.elems.size(); ++i) {
      auto p = path;
      p.push_back(i);
      flatten(l, t.elems[i], arg, p);
    }
    return;
  default: throw Error("kernel arguments of type " + t.str() + " are not supported");
  }
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
