// Type inference of expressions: names, constants, operators, attributes, subscripts.
#include "frontend/sema/function_typer.h"
#include "frontend/sema/operator_rules.h"

#include <algorithm>

namespace cutwin::fe {

ExprInfo FunctionTyper::typeExpr(const Expr &e) {
  ExprInfo info = typeExprUncached(e);
  if (info.type.isOptional()) { // numba converts an Optional to its value wherever one is used
    info.type = Type(info.type.elems[0]);
    info.unwrapsOptional = true;
  }
  spec_.exprs[&e] = info;
  return info;
}

ExprInfo FunctionTyper::typeOptionalExpr(const Expr &e) {
  ExprInfo info = typeExprUncached(e);
  spec_.exprs[&e] = info;
  return info;
}

ExprInfo FunctionTyper::typeExprUncached(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Name: return typeName(static_cast<const NameExpr &>(e));
  case ExprKind::Constant: return typeConstant(static_cast<const ConstantExpr &>(e));
  case ExprKind::BinOp: return typeBinOp(static_cast<const BinOpExpr &>(e));
  case ExprKind::UnaryOp: return typeUnaryOp(static_cast<const UnaryOpExpr &>(e));
  case ExprKind::BoolOp: return typeBoolOp(static_cast<const BoolOpExpr &>(e));
  case ExprKind::Compare: return typeCompare(static_cast<const CompareExpr &>(e));
  case ExprKind::IfExp: return typeIfExp(static_cast<const IfExpExpr &>(e));
  case ExprKind::Call: return typeCall(static_cast<const CallExpr &>(e));
  case ExprKind::Attribute: return typeAttribute(static_cast<const AttributeExpr &>(e));
  case ExprKind::Subscript: return typeSubscript(static_cast<const SubscriptExpr &>(e));
  case ExprKind::Tuple: return typeTuple(static_cast<const TupleExpr &>(e));
  case ExprKind::List: error(e.loc, "lists are not supported in kernels; use a tuple");
  case ExprKind::Slice: error(e.loc, "slices are only valid inside an index");
  case ExprKind::Starred: error(e.loc, "starred expressions are supported in kernels as call arguments only");
  case ExprKind::StarElement: {
    auto &s = static_cast<const StarElementExpr &>(e);
    ExprInfo info;
    info.type = typeExpr(*s.tuple).type.elems.at(s.index);
    return info;
  }
  }
  error(e.loc, "unsupported expression");
}

ExprInfo FunctionTyper::typeName(const NameExpr &n) {
  ExprInfo info;
  if (localNames_.count(n.id)) {
    auto it = spec_.locals.find(n.id);
    if (it != spec_.locals.end() && !it->second.isUnknown()) {
      info.type = it->second;
      if (auto k = knownConstants_.find(n.id); k != knownConstants_.end())
        info.constant = k->second;
      return info;
    }
    if (strict_)
      error(n.loc, "local variable '" + n.id + "' is used before it is assigned");
    return info; // not known yet
  }
  if (const Symbol *s = scope_.lookup(n.id))
    return symbolInfo(*s, n.loc);
  if (auto b = pythonBuiltin(n.id)) {
    info.type = b->type;
    return info;
  }
  error(n.loc, "name '" + n.id + "' is not defined");
}

ExprInfo FunctionTyper::symbolInfo(const Symbol &s, SourceLoc loc) {
  ExprInfo info;
  switch (s.kind) {
  case Symbol::Kind::Entity: info.type = s.entity.type; return info;
  case Symbol::Kind::Constant:
    info.type = s.value.type();
    info.constant = s.value;
    return info;
  case Symbol::Kind::JitFunction: info.type = Type::named(TypeKind::DeviceFunction, s.key); return info;
  case Symbol::Kind::Foreign: info.type = Type::named(TypeKind::ForeignFunction, s.key); return info;
  case Symbol::Kind::HostOnly: error(loc, s.reason);
  }
  return info;
}

ExprInfo FunctionTyper::typeConstant(const ConstantExpr &c) {
  ExprInfo info;
  switch (c.type) {
  case ConstantExpr::Type::Int:
    if (c.intValue > uint64_t(INT64_MAX)) {
      info.type = Type::scalarOf(Scalar::U64);
      info.constant = ConstValue::ofInt(int64_t(c.intValue));
    } else {
      info.type = Type::scalarOf(Scalar::I64);
      info.constant = ConstValue::ofInt(int64_t(c.intValue));
    }
    return info;
  case ConstantExpr::Type::Float:
    info.type = Type::scalarOf(Scalar::F64);
    info.constant = ConstValue::ofFloat(c.floatValue);
    return info;
  case ConstantExpr::Type::Bool:
    info.type = Type::scalarOf(Scalar::Bool);
    info.constant = ConstValue::ofBool(c.boolValue);
    return info;
  case ConstantExpr::Type::Str: {
    info.type = Type::make(TypeKind::String);
    ConstValue v;
    v.kind = ConstValue::Kind::Str;
    v.s = c.strValue;
    info.constant = v;
    return info;
  }
  case ConstantExpr::Type::None:
    info.type = Type::none();
    info.constant = ConstValue{};
    return info;
  case ConstantExpr::Type::Imag: // 2.5j: a complex128 (no compile-time value: folding stops here)
    info.type = Type::scalarOf(Scalar::C128);
    return info;
  case ConstantExpr::Type::Ellipsis: error(c.loc, "'...' is not supported in kernels");
  }
  return info;
}

ExprInfo FunctionTyper::typeBinOp(const BinOpExpr &b) {
  ExprInfo l = typeExpr(*b.lhs);
  ExprInfo r = typeExpr(*b.rhs);
  return typeBinary(b.op, l.type, r.type, b.loc);
}

ExprInfo FunctionTyper::typeBinary(BinOp op, const Type &l, const Type &r, SourceLoc loc) {
  ExprInfo info;
  if (l.isUnknown() || r.isUnknown())
    return info;
  bool plainEnum = l.isPlainEnumMember() || r.isPlainEnumMember();
  if (l.isScalar() && r.isScalar() && !plainEnum) { // (an IntEnum's member computes as its int)
    auto c = fe::typeBinOp(op, l.scalar, r.scalar);
    if (!c)
      error(loc, std::string("unsupported operand types for ") + binOpSymbol(op) + ": '" + l.str() +
                     "' and '" + r.str() + "'");
    info.type = Type::scalarOf(c->result);
    info.operandTypes = c->args;
    return info;
  }
  if (l.isArray() || r.isArray())
    error(loc, std::string("whole-array arithmetic ('") + binOpSymbol(op) +
                   "' on arrays) is not supported in kernels; operate on elements");
  error(loc, std::string("unsupported operand types for ") + binOpSymbol(op) + ": '" + l.str() + "' and '" +
                 r.str() + "'");
}

ExprInfo FunctionTyper::typeUnaryOp(const UnaryOpExpr &u) {
  ExprInfo v = typeExpr(*u.operand);
  ExprInfo info;
  if (v.type.isUnknown())
    return info;
  if (u.op == UnaryOp::Not) {
    checkTruthTestable(v.type, u.operand->loc);
    info.type = Type::scalarOf(Scalar::Bool);
    return info;
  }
  if (!v.type.isScalar() || v.type.isPlainEnumMember())
    error(u.loc,
          std::string("bad operand type for unary ") + unaryOpSymbol(u.op) + ": '" + v.type.str() + "'");
  auto c = fe::typeUnaryOp(u.op, v.type.scalar);
  if (!c)
    error(u.loc,
          std::string("bad operand type for unary ") + unaryOpSymbol(u.op) + ": '" + v.type.str() + "'");
  info.type = Type::scalarOf(c->result);
  info.operandTypes = c->args;
  return info;
}

ExprInfo FunctionTyper::typeBoolOp(const BoolOpExpr &b) {
  ExprInfo info;
  Type acc = Type::unknown();
  bool unknown = false;
  for (auto &v : b.values) {
    ExprInfo vi = typeExpr(*v);
    if (vi.type.isUnknown()) {
      unknown = true;
      continue;
    }
    checkTruthTestable(vi.type, v->loc);
    if (!vi.type.isScalar())
      error(v->loc, std::string("operands of '") + (b.isAnd ? "and" : "or") +
                        "' must be numbers or booleans in kernels, not " + vi.type.str());
    auto u = unify(acc, vi.type);
    if (!u)
      error(v->loc, "cannot unify operand types of '" + std::string(b.isAnd ? "and" : "or") + "'");
    acc = *u;
  }
  if (!unknown)
    info.type = acc;
  return info;
}

std::vector<Scalar> FunctionTyper::tupleEqualityTypes(const Type &a, const Type &b, const SourceLoc &loc) {
  std::vector<Scalar> types;
  for (size_t k = 0; k < a.elems.size(); ++k) {
    const Type &x = a.elems[k], &y = b.elems[k];
    if (x.isTuple() && y.isTuple() && x.elems.size() == y.elems.size()) {
      auto inner = tupleEqualityTypes(x, y, loc);
      types.insert(types.end(), inner.begin(), inner.end());
      continue;
    }
    auto cs = x.isScalar() && y.isScalar() && x.enumClass.empty() && y.enumClass.empty()
                  ? fe::typeCompare(CmpOp::Eq, x.scalar, y.scalar)
                  : std::nullopt;
    if (!cs)
      error(loc, "cannot compare tuples whose elements are " + x.str() + " and " + y.str() + " in a kernel");
    types.push_back(cs->args[0]);
    types.push_back(cs->args[1]);
  }
  return types;
}

ExprInfo FunctionTyper::typeCompare(const CompareExpr &c) {
  ExprInfo info;
  // `x is None` asks an Optional itself, not its value.
  bool identity = c.ops.size() == 1 && (c.ops[0] == CmpOp::Is || c.ops[0] == CmpOp::IsNot);
  ExprInfo left = identity ? typeOptionalExpr(*c.left) : typeExpr(*c.left);
  bool unknown = left.type.isUnknown();
  Type prev = left.type;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    ExprInfo right = identity ? typeOptionalExpr(*c.comparators[i]) : typeExpr(*c.comparators[i]);
    CmpOp op = c.ops[i];
    if (op == CmpOp::Is || op == CmpOp::IsNot) {
      // `x is None` where x's type decides it, two constants (enum members, None), or
      // two numbers of a type (numba's identity of values: equality).
      if (c.ops.size() != 1)
        error(c.loc, "chained 'is' comparisons are not supported in kernels");
      if (prev.isUnknown() || right.type.isUnknown())
        return info;
      bool isNot = op == CmpOp::IsNot;
      std::optional<bool> same;
      if (prev.isOptional() != right.type.isOptional() &&
          (prev.kind == TypeKind::None || right.type.kind == TypeKind::None)) {
        info.type = Type::scalarOf(Scalar::Bool); // an Optional against None: asked at run time
        return info;
      }
      if (prev.kind == TypeKind::None || right.type.kind == TypeKind::None)
        same = prev.kind == right.type.kind;
      else if (auto decided = enumClassesDecide(prev, right.type, /*identity=*/true))
        same = decided;
      else if (left.constant && right.constant && left.constant->kind != ConstValue::Kind::Array)
        same = left.constant->str() == right.constant->str() && prev == right.type;
      info.type = Type::scalarOf(Scalar::Bool);
      if (same) {
        info.constant = ConstValue::ofBool(*same != isNot);
        return info;
      }
      // Members of one enum class: the same member where their values are equal.
      if (!prev.enumClass.empty() && prev.isTuple() && prev == right.type) {
        info.operandTypes = tupleEqualityTypes(prev, right.type, c.loc);
        return info;
      }
      if (!prev.isScalar() || prev != right.type)
        error(c.loc, std::string("'") + cmpOpSymbol(op) +
                         "' compares None or values of one type in kernels, not " + prev.str() + " and " +
                         right.type.str());
      info.operandTypes = {prev.scalar, prev.scalar};
      return info;
    }
    if ((op == CmpOp::Eq || op == CmpOp::NotEq) && !prev.isUnknown() && !right.type.isUnknown()) {
      // Enum members of different classes, or a plain Enum's member and a value: unequal.
      if (auto decided = enumClassesDecide(prev, right.type, /*identity=*/false)) {
        if (c.ops.size() != 1)
          error(c.loc,
                "chained comparisons of enum members of different classes are not supported in kernels");
        info.type = Type::scalarOf(Scalar::Bool);
        info.constant = ConstValue::ofBool(*decided == (op == CmpOp::Eq));
        return info;
      }
      if (prev.isTuple() || right.type.isTuple()) { // tuples: element by element, as Python
        if (c.ops.size() != 1)
          error(c.loc, "chained comparisons of tuples are not supported in kernels");
        info.type = Type::scalarOf(Scalar::Bool);
        if (!prev.isTuple() || !right.type.isTuple() || prev.elems.size() != right.type.elems.size()) {
          info.constant = ConstValue::ofBool(op == CmpOp::NotEq); // (numba: tuples of different lengths)
          return info;
        }
        info.operandTypes = tupleEqualityTypes(prev, right.type, c.loc);
        return info;
      }
    }
    if (op == CmpOp::In || op == CmpOp::NotIn)
      error(c.loc, std::string("'") + cmpOpSymbol(op) + "' comparisons are not supported in kernels");
    if (prev.isUnknown() || right.type.isUnknown()) {
      unknown = true;
      info.operandTypes.push_back(Scalar::Bool);
      info.operandTypes.push_back(Scalar::Bool);
    } else {
      bool plainEnum = prev.isPlainEnumMember() || right.type.isPlainEnumMember();
      if (!prev.isScalar() || !right.type.isScalar() || (plainEnum && op != CmpOp::Eq && op != CmpOp::NotEq))
        error(c.loc, std::string("cannot compare ") + prev.str() + " " + cmpOpSymbol(op) + " " +
                         right.type.str() + " in a kernel");
      auto cs = fe::typeCompare(op, prev.scalar, right.type.scalar);
      if (!cs)
        error(c.loc, std::string("cannot compare '") + prev.str() + "' and '" + right.type.str() + "'");
      info.operandTypes.push_back(cs->args[0]);
      info.operandTypes.push_back(cs->args[1]);
    }
    prev = right.type;
  }
  if (!unknown)
    info.type = Type::scalarOf(Scalar::Bool);
  return info;
}

ExprInfo FunctionTyper::typeIfExp(const IfExpExpr &i) {
  checkTruthTestable(typeExpr(*i.test).type, i.test->loc);
  ExprInfo a = typeExpr(*i.body);
  ExprInfo b = typeExpr(*i.orelse);
  ExprInfo info;
  if (a.type.isUnknown() || b.type.isUnknown())
    return info;
  auto u = unify(a.type, b.type);
  if (!u)
    error(i.loc, "the branches of this conditional expression have incompatible types " + a.type.str() +
                     " and " + b.type.str());
  info.type = *u;
  return info;
}

ExprInfo FunctionTyper::typeAttribute(const AttributeExpr &a) {
  ExprInfo base = typeExpr(*a.value);
  ExprInfo info;
  const Type &t = base.type;
  if (t.isUnknown())
    return info;
  if (t.kind == TypeKind::Module) {
    if (t.path.rfind("namespace:", 0) == 0) { // a user's module: what the host resolved
      if (const Symbol *s = scope_.namespaceMember(t.path, a.attr))
        return symbolInfo(*s, a.loc);
      error(a.loc, "module '" + exprToString(*a.value) + "' has no attribute '" + a.attr + "'");
    }
    auto m = moduleMember(t, a.attr);
    if (!m)
      error(a.loc,
            "module '" + t.path + "' has no attribute '" + a.attr + "' that cutwin supports in kernels");
    const std::string &p = m->type.path;
    if (m->type.kind == TypeKind::Function) { // the special registers read as values
      static const std::pair<const char *, Access> registers[] = {{"cuda.threadIdx.", Access::ThreadIdx},
                                                                  {"cuda.blockIdx.", Access::BlockIdx},
                                                                  {"cuda.blockDim.", Access::BlockDim},
                                                                  {"cuda.gridDim.", Access::GridDim}};
      for (auto &[prefix, access] : registers)
        if (p.rfind(prefix, 0) == 0) {
          info.type = Type::scalarOf(Scalar::I32);
          info.access = access;
          info.staticIndex = p.back() - 'x';
          return info;
        }
      if (p == "cuda.laneid") {
        info.type = Type::scalarOf(Scalar::I32);
        info.access = Access::LaneId;
        return info;
      }
    }
    info.type = m->type;
    info.constant = m->value;
    return info;
  }
  if (t.isTuple() && !t.fields.empty()) { // a named tuple's field: its element
    for (size_t j = 0; j < t.fields.size(); ++j)
      if (t.fields[j] == a.attr) {
        info.type = t.elems[j];
        info.staticIndex = int64_t(j);
        info.access = Access::TupleField;
        if (base.constant && base.constant->kind == ConstValue::Kind::Tuple)
          info.constant = base.constant->elems[j];
        return info;
      }
    error(a.loc, "'" + t.path + "' has no field '" + a.attr + "'");
  }
  if (t.isRecord()) {
    ConstValue key;
    key.kind = ConstValue::Kind::Str;
    key.s = a.attr;
    return typeRecordField(t, key, a.loc);
  }
  if (t.isArray()) {
    if (a.attr == "shape" || a.attr == "strides") {
      info.type = Type::uniTuple(Type::scalarOf(Scalar::I64), t.ndim);
      info.access = a.attr == "shape" ? Access::ArrayShape : Access::ArrayStrides;
      return info;
    }
    if (a.attr == "size") {
      info.type = Type::scalarOf(Scalar::I64);
      info.access = Access::ArraySize;
      return info;
    }
    if (a.attr == "ndim" || a.attr == "itemsize") {
      info.type = Type::scalarOf(Scalar::I64);
      info.constant = ConstValue::ofInt(a.attr == "ndim" ? int64_t(t.ndim) : int64_t(t.itemSize()));
      return info;
    }
    if (a.attr == "dtype") {
      info.type = Type::typeObject(t.scalar);
      if (t.isRecordArray())
        info.type.elems = {Type::recordIn(t.record)};
      return info;
    }
    if ((a.attr == "real" || a.attr == "imag") && !t.isRecordArray() && !t.pointer) {
      // numba's: views of a complex array's parts (strided; writable where the array is); a
      // real array is its own real part
      if (!isComplex(t.scalar) && a.attr == "imag")
        error(a.loc, "the imaginary part of a real array (" + t.str() +
                         ") is not supported in kernels: numba makes a new array of zeros");
      info.type = isComplex(t.scalar) ? Type::array(partOf(t.scalar), t.ndim, Layout::A, t.space) : t;
      info.access = a.attr == "real" ? Access::RealPart : Access::ImagPart;
      return info;
    }
    if (a.attr == "T" && !t.pointer) { // numba: a view with the dimensions reversed
      info.type = t;
      if (t.ndim > 1 && t.layout != Layout::A)
        info.type.layout = t.layout == Layout::C ? Layout::F : Layout::C;
      info.access = Access::Transpose;
      return info;
    }
    if (findBuiltin("array." + a.attr)) { // a.sum(), a.min(), ...: the receiver is the array
      info.type = Type::named(TypeKind::Function, "array." + a.attr);
      return info;
    }
    error(a.loc, "arrays in kernels have no attribute '" + a.attr +
                     "' (supported: shape, "
                     "strides, size, ndim, itemsize, dtype, real, imag, T, the views reshape, view, "
                     "transpose, copy and the reductions sum, prod, mean, var, std, min, max, all, any)");
  }
  if (!t.enumClass.empty() && a.attr == "value") { // an enum member's value (numba: EnumMember.value)
    info.type = t.valueType();
    info.access = Access::EnumValue;
    if (base.constant) {
      info.constant = base.constant;
      info.constant->enumClass.clear();
      info.constant->intEnum = false;
    }
    return info;
  }
  if (t.isScalar() && (a.attr == "real" || a.attr == "imag")) {
    // numba: the parts of a complex number; a real number is its own real part, imag 0.
    info.type = Type::scalarOf(partOf(t.scalar));
    info.access = a.attr == "real" ? Access::RealPart : Access::ImagPart;
    return info;
  }
  if (t.isScalar() && isInteger(t.scalar) && a.attr == "bit_count") {
    info.type = Type::named(TypeKind::Function, "scalar.bit_count");
    return info;
  }
  if (t.isScalar() && a.attr == "conjugate") {
    info.type = Type::named(TypeKind::Function, "scalar.conjugate");
    return info;
  }
  error(a.loc, "'" + t.str() + "' has no attribute '" + a.attr + "'");
}

ExprInfo FunctionTyper::typeSubscript(const SubscriptExpr &s) {
  ExprInfo base = typeExpr(*s.value);
  ExprInfo info;
  std::vector<const Expr *> idx = subscriptIndices(s);

  const Type &t = base.type;
  if (t.kind == TypeKind::Module && t.path.rfind("namespace:", 0) == 0) { // Color["red"]: an enum's member
    ExprInfo key = typeExpr(*s.index);
    if (!key.constant || key.constant->kind != ConstValue::Kind::Str)
      error(s.index->loc, "an enum's members are looked up by a constant string");
    if (const Symbol *m = scope_.namespaceMember(t.path, key.constant->s))
      return symbolInfo(*m, s.loc);
    error(s.index->loc, "'" + exprToString(*s.value) + "' has no member '" + key.constant->s + "'");
  }
  if (t.isRecord()) {
    ExprInfo key = typeExpr(*s.index);
    if (key.type.isUnknown())
      return info;
    if (!key.constant)
      error(s.index->loc, "a record's fields are read by name (r.x, r[\"x\"]) or by a constant position "
                          "(r[0]), not by a value known at run time");
    return typeRecordField(t, *key.constant, s.index->loc);
  }
  if (t.isArray()) {
    bool unknown = false;
    // Index kinds, one per position: 'i' an integer, 's' a slice (`builtin` is
    // "index.slices:<kinds>" when there is a slice), or 't' a tuple of integers held in a
    // variable (`a[idx]`), which counts as its elements.
    std::string kinds;
    size_t positions = 0;
    for (const Expr *i : idx) {
      if (auto *sl = dyn<SliceExpr>(i)) {
        for (const ExprPtr *part : {&sl->lower, &sl->upper, &sl->step}) {
          if (!*part)
            continue;
          ExprInfo pi = typeExpr(**part);
          if (pi.type.isUnknown()) {
            unknown = true;
            continue;
          }
          if (!pi.type.isInt() && pi.type.kind != TypeKind::None)
            error((*part)->loc, "slice bounds and steps must be integers, not " + pi.type.str());
        }
        kinds += 's';
        ++positions;
        info.operandTypes.push_back(Scalar::I64);
        continue;
      }
      ExprInfo ii = typeExpr(*i);
      if (ii.type.isUnknown()) {
        unknown = true;
        continue;
      }
      if (ii.type.isTuple() && idx.size() == 1 && !ii.type.elems.empty()) {
        for (const Type &e : ii.type.elems) {
          if (!e.isInt())
            error(i->loc, "array index must be an integer or a tuple of integers, not " + ii.type.str());
          info.operandTypes.push_back(e.scalar);
        }
        kinds += 't';
        positions += ii.type.elems.size();
        continue;
      }
      if (!ii.type.isInt())
        error(i->loc, "array index must be an integer, not " + ii.type.str());
      info.operandTypes.push_back(ii.type.scalar);
      kinds += 'i';
      ++positions;
    }
    if (positions > t.ndim)
      error(s.index->loc, "too many indices for a " + std::to_string(t.ndim) + "-dimensional array");
    if (unknown)
      return info;
    if (kinds == "t")
      info.access = Access::TupleIndices;
    size_t slices = size_t(std::count(kinds.begin(), kinds.end(), 's'));
    if (slices) {
      info.access = Access::Slices;
      info.sliceKinds = kinds;
      // A view: the sliced dimensions and those not indexed. numba keeps a C array's layout
      // only where the view is contiguous by construction (leading integers, then one
      // step-less slice, then whole dimensions); otherwise any layout.
      bool contiguous = t.layout == Layout::C;
      size_t firstSlice = kinds.find('s');
      for (size_t k = 0; k < kinds.size() && contiguous; ++k) {
        if (k < firstSlice)
          continue;
        auto *sl = dyn<SliceExpr>(idx[k]);
        bool whole = sl && !sl->lower && !sl->upper && !sl->step;
        if (k == firstSlice)
          contiguous = sl && !sl->step;
        else
          contiguous = whole;
      }
      info.type = Type::array(t.scalar, unsigned(slices + (t.ndim - positions)),
                              contiguous ? Layout::C : Layout::A, t.space);
      info.type.record = t.record;
      return info;
    }
    if (positions == t.ndim) {
      info.type = t.isRecordArray() ? Type::recordIn(t.record, t.space) : Type::scalarOf(t.scalar);
    } else {
      Layout l = t.layout == Layout::C ? Layout::C : Layout::A;
      info.type = Type::array(t.scalar, unsigned(t.ndim - positions), l, t.space);
      info.type.record = t.record;
    }
    return info;
  }
  if (t.isTuple()) {
    if (idx.size() != 1)
      error(s.index->loc, "tuples take a single index");
    if (auto *sl = dyn<SliceExpr>(idx[0])) // t[i:j:k]: a tuple, as in Python (constant bounds)
      return typeTupleSlice(t, base, *sl);
    ExprInfo ii = typeExpr(*idx[0]);
    if (ii.type.isUnknown())
      return info;
    if (!ii.type.isInt())
      error(idx[0]->loc, "tuple index must be an integer, not " + ii.type.str());
    if (auto k = constInt(*idx[0])) {
      int64_t n = int64_t(t.elems.size());
      int64_t j = *k < 0 ? *k + n : *k;
      if (j < 0 || j >= n)
        error(idx[0]->loc,
              "tuple index " + std::to_string(*k) + " out of range for a tuple of " + std::to_string(n));
      info.type = t.elems[size_t(j)];
      info.staticIndex = j;
      info.access = Access::TupleStatic;
      if (base.constant && base.constant->kind == ConstValue::Kind::Tuple)
        info.constant = base.constant->elems[size_t(j)];
      return info;
    }
    if (!t.isUniTuple() || t.elems.empty())
      error(idx[0]->loc, "a tuple of mixed types can only be indexed by a constant");
    info.type = t.elems[0];
    info.access = Access::TupleDynamic;
    info.operandTypes.push_back(ii.type.scalar);
    return info;
  }
  if (t.isUnknown()) {
    for (const Expr *i : idx)
      if (i->kind != ExprKind::Slice)
        typeExpr(*i);
    return info;
  }
  error(s.loc, "'" + t.str() + "' is not subscriptable");
}

ExprInfo FunctionTyper::typeTupleSlice(const Type &t, const ExprInfo &base, const SliceExpr &sl) {
  auto bound = [&](const ExprPtr &e) -> std::optional<int64_t> {
    if (!e)
      return std::nullopt;
    auto v = constInt(*e);
    if (!v)
      error(e->loc, "a tuple's slice takes constant bounds and step in kernels");
    return v;
  };
  std::optional<int64_t> lo = bound(sl.lower), hi = bound(sl.upper), st = bound(sl.step);
  int64_t n = int64_t(t.elems.size()), step = st.value_or(1);
  if (step == 0)
    error(sl.step->loc, "slice step cannot be zero");
  // Python's slice.indices: negative bounds count from the end, then clamp.
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v)
      return dflt;
    int64_t x = *v < 0 ? *v + n : *v;
    return step > 0 ? std::clamp<int64_t>(x, 0, n) : std::clamp<int64_t>(x, -1, n - 1);
  };
  int64_t i = clamp(lo, step > 0 ? 0 : n - 1), end = clamp(hi, step > 0 ? n : -1);
  ExprInfo info;
  std::vector<Type> elems;
  ConstValue cv;
  cv.kind = ConstValue::Kind::Tuple;
  for (; step > 0 ? i < end : i > end; i += step) {
    info.elementIndices.push_back(unsigned(i));
    elems.push_back(t.elems[size_t(i)]);
    if (base.constant && base.constant->kind == ConstValue::Kind::Tuple)
      cv.elems.push_back(base.constant->elems[size_t(i)]);
  }
  info.type = Type::tuple(std::move(elems));
  info.access = Access::TupleSlice;
  if (base.constant && base.constant->kind == ConstValue::Kind::Tuple)
    info.constant = cv;
  return info;
}

ExprInfo FunctionTyper::typeTuple(const TupleExpr &t) {
  ExprInfo info;
  std::vector<Type> elems;
  ConstValue cv;
  cv.kind = ConstValue::Kind::Tuple;
  bool allConst = true, unknown = false;
  for (auto &e : t.elts) {
    ExprInfo ei = typeExpr(*e);
    unknown = unknown || ei.type.isUnknown();
    elems.push_back(ei.type);
    if (ei.constant && ei.type.isScalar())
      cv.elems.push_back(*ei.constant);
    else
      allConst = false;
  }
  if (unknown)
    return info;
  info.type = Type::tuple(std::move(elems));
  if (allConst)
    info.constant = cv;
  return info;
}

std::optional<ConstValue> FunctionTyper::constantOf(const Expr &e) {
  return evalConst(e, file_, [this](const Expr &n) -> std::optional<ConstValue> {
    if (auto *name = dyn<NameExpr>(&n)) {
      if (auto k = knownConstants_.find(name->id); k != knownConstants_.end())
        return k->second;
      if (localNames_.count(name->id))
        return std::nullopt;
    }
    return scope_.evalConstant(n);
  });
}

std::optional<int64_t> FunctionTyper::constInt(const Expr &e) {
  std::function<bool(const Expr &)> usesLocal = [&](const Expr &x) -> bool {
    if (auto *n = dyn<NameExpr>(&x))
      return localNames_.count(n->id) > 0 && !knownConstants_.count(n->id);
    if (auto *b = dyn<BinOpExpr>(&x))
      return usesLocal(*b->lhs) || usesLocal(*b->rhs);
    if (auto *u = dyn<UnaryOpExpr>(&x))
      return usesLocal(*u->operand);
    if (auto *t = asTupleLike(&x)) {
      for (auto &el : t->elts)
        if (usesLocal(*el))
          return true;
      return false;
    }
    if (auto *a = dyn<AttributeExpr>(&x))
      return usesLocal(*a->value);
    if (auto *s = dyn<SubscriptExpr>(&x))
      return usesLocal(*s->value) || usesLocal(*s->index);
    return x.kind != ExprKind::Constant;
  };
  if (usesLocal(e))
    return std::nullopt;
  auto v = constantOf(e);
  if (!v)
    return std::nullopt;
  if (v->kind == ConstValue::Kind::Int)
    return v->i;
  if (v->kind == ConstValue::Kind::Bool)
    return v->b;
  return std::nullopt;
}

} // namespace cutwin::fe
