#include "frontend/sema/const_array.h"

#include "frontend/sema/module_scope.h"

#include <cstring>

namespace cutwin::fe {
namespace {

/// Appends `v` converted to `t` the way NumPy casts a Python number.
void appendAs(std::vector<uint8_t> &out, const ConstValue &v, Scalar t) {
  double d = v.asDouble();
  int64_t i = v.kind == ConstValue::Kind::Float ? int64_t(v.f) : v.kind == ConstValue::Kind::Bool ? v.b : v.i;
  uint8_t buf[8];
  size_t n = byteSize(t);
  switch (t) {
  case Scalar::Bool: buf[0] = d != 0; break;
  case Scalar::F32: {
    float f = float(d);
    std::memcpy(buf, &f, 4);
    break;
  }
  case Scalar::F64: std::memcpy(buf, &d, 8); break;
  default: std::memcpy(buf, &i, n); break; // little-endian truncation, as NumPy wraps
  }
  out.insert(out.end(), buf, buf + n);
}

/// Shape of a nested tuple, or nullopt when ragged or holding non-numbers.
bool shapeOf(const ConstValue &v, size_t depth, std::vector<int64_t> &shape) {
  if (v.kind != ConstValue::Kind::Tuple)
    return depth == shape.size() && v.isNumber();
  if (depth == shape.size())
    shape.push_back(int64_t(v.elems.size()));
  else if (depth > shape.size() || shape[depth] != int64_t(v.elems.size()))
    return false;
  for (auto &e : v.elems)
    if (!shapeOf(e, depth + 1, shape))
      return false;
  return true;
}

void leaves(const ConstValue &v, std::vector<const ConstValue *> &out) {
  if (v.kind != ConstValue::Kind::Tuple) {
    out.push_back(&v);
    return;
  }
  for (auto &e : v.elems)
    leaves(e, out);
}

} // namespace

std::optional<ConstValue> literalArray(const CallExpr &c, const ModuleScope &scope, const SourceFile &file) {
  auto *fn = dyn<AttributeExpr>(c.func.get());
  if (!fn || (fn->attr != "array" && fn->attr != "asarray"))
    return std::nullopt;
  auto mod = scope.resolveEntity(*fn->value);
  if (!mod || mod->type.kind != TypeKind::Module || mod->type.path != "numpy")
    return std::nullopt;
  const Expr *dtypeExpr = c.args.size() > 1 ? c.args[1].get() : nullptr;
  for (auto &k : c.keywords) {
    if (k.name != "dtype")
      return std::nullopt; // order=, copy=, ...: host code
    dtypeExpr = k.value.get();
  }
  if (c.args.empty() || c.args.size() > 2)
    return std::nullopt;
  auto data = scope.evalConstant(*c.args[0]);
  if (!data || data->kind != ConstValue::Kind::Tuple)
    return std::nullopt;

  ConstValue a;
  a.kind = ConstValue::Kind::Array;
  if (!shapeOf(*data, 0, a.shape))
    file.error(c.args[0]->loc, "a global array needs a rectangular nesting of numbers");
  if (a.shape.size() > 3)
    file.error(c.args[0]->loc, "global arrays support 1 to 3 dimensions");
  std::vector<const ConstValue *> items;
  leaves(*data, items);
  if (items.empty())
    file.error(c.args[0]->loc, "a global array needs at least one element");

  if (dtypeExpr) {
    auto t = scope.typeFromExpr(*dtypeExpr, file);
    if (!t || !t->isScalar())
      file.error(dtypeExpr->loc, "expected a NumPy dtype or numba scalar type for dtype=");
    a.dtype = t->scalar;
  } else {
    bool anyFloat = false, allBool = true;
    for (auto *v : items) {
      anyFloat |= v->kind == ConstValue::Kind::Float;
      allBool &= v->kind == ConstValue::Kind::Bool;
    }
    a.dtype = allBool ? Scalar::Bool : anyFloat ? Scalar::F64 : Scalar::I64;
  }
  auto bytes = std::make_shared<std::vector<uint8_t>>();
  bytes->reserve(items.size() * byteSize(a.dtype));
  for (auto *v : items)
    appendAs(*bytes, *v, a.dtype);
  a.bytes = std::move(bytes);
  return a;
}

} // namespace cutwin::fe
