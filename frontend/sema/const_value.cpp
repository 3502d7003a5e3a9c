#include "frontend/sema/const_value.h"

#include "frontend/diagnostics.h"
#include "frontend/syntax/ast.h"

#include <cmath>
#include <sstream>

namespace cutwin::fe {

Type ConstValue::type() const {
  if (!enumClass.empty()) {
    ConstValue value = *this;
    value.enumClass.clear();
    Type t = value.type();
    t.enumClass = enumClass;
    t.intEnum = intEnum;
    return t;
  }
  if (typedScalar && isNumber())
    return Type::scalarOf(dtype);
  switch (kind) {
  case Kind::Int: return Type::scalarOf(Scalar::I64);
  case Kind::Float: return Type::scalarOf(Scalar::F64);
  case Kind::Bool: return Type::scalarOf(Scalar::Bool);
  case Kind::None: return Type::none();
  case Kind::Str: return Type::make(TypeKind::String);
  case Kind::Array:
    return record ? Type::recordArray(record, unsigned(shape.size()), Layout::C, MemSpace::Const)
                  : Type::array(dtype, unsigned(shape.size()), Layout::C, MemSpace::Const);
  case Kind::DeviceArray: {
    bool c = true;
    int64_t step = int64_t(byteSize(dtype));
    for (size_t k = shape.size(); k-- > 0;) {
      c = c && (shape[k] == 1 || strides[k] == step);
      step *= shape[k];
    }
    return Type::array(dtype, unsigned(shape.size()), c ? Layout::C : Layout::A);
  }
  case Kind::Tuple: {
    std::vector<Type> el;
    for (auto &e : elems)
      el.push_back(e.type());
    return Type::tuple(std::move(el));
  }
  }
  return Type::unknown();
}

std::string ConstValue::str() const {
  std::ostringstream os;
  switch (kind) {
  case Kind::Int: os << i; break;
  case Kind::Float: os << f; break;
  case Kind::Bool: os << (b ? "True" : "False"); break;
  case Kind::None: os << "None"; break;
  case Kind::Str: os << '"' << s << '"'; break;
  case Kind::Array: os << type().str(); break;
  case Kind::DeviceArray: os << type().str() << " at 0x" << std::hex << address << std::dec; break;
  case Kind::Tuple:
    os << "(";
    for (size_t k = 0; k < elems.size(); ++k)
      os << (k ? ", " : "") << elems[k].str();
    if (elems.size() == 1)
      os << ",";
    os << ")";
    break;
  }
  return os.str();
}

namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

double pyFloatMod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

int64_t asInt(const ConstValue &v) { return v.kind == ConstValue::Kind::Bool ? v.b : v.i; }

std::optional<ConstValue> binary(BinOp op, const ConstValue &a, const ConstValue &b, const SourceFile &file,
                                 SourceLoc loc) {
  if (!a.isNumber() || !b.isNumber()) {
    if (op == BinOp::Add && a.kind == ConstValue::Kind::Tuple && b.kind == ConstValue::Kind::Tuple) {
      ConstValue r = a;
      r.elems.insert(r.elems.end(), b.elems.begin(), b.elems.end());
      return r;
    }
    return std::nullopt;
  }
  bool flt = a.kind == ConstValue::Kind::Float || b.kind == ConstValue::Kind::Float;
  if (flt) {
    double x = a.asDouble(), y = b.asDouble();
    switch (op) {
    case BinOp::Add: return ConstValue::ofFloat(x + y);
    case BinOp::Sub: return ConstValue::ofFloat(x - y);
    case BinOp::Mul: return ConstValue::ofFloat(x * y);
    case BinOp::Div:
      if (y == 0)
        file.error(loc, "float division by zero in constant expression");
      return ConstValue::ofFloat(x / y);
    case BinOp::FloorDiv:
      if (y == 0)
        file.error(loc, "float floor division by zero in constant expression");
      return ConstValue::ofFloat(std::floor((x - pyFloatMod(x, y)) / y + 0.0));
    case BinOp::Mod:
      if (y == 0)
        file.error(loc, "float modulo by zero in constant expression");
      return ConstValue::ofFloat(pyFloatMod(x, y));
    case BinOp::Pow: return ConstValue::ofFloat(std::pow(x, y));
    default: return std::nullopt;
    }
  }
  int64_t x = asInt(a), y = asInt(b);
  auto wrap = [](uint64_t v) { return ConstValue::ofInt(int64_t(v)); };
  switch (op) {
  case BinOp::Add: return wrap(uint64_t(x) + uint64_t(y));
  case BinOp::Sub: return wrap(uint64_t(x) - uint64_t(y));
  case BinOp::Mul: return wrap(uint64_t(x) * uint64_t(y));
  case BinOp::Div:
    if (y == 0)
      file.error(loc, "division by zero in constant expression");
    return ConstValue::ofFloat(double(x) / double(y));
  case BinOp::FloorDiv:
    if (y == 0)
      file.error(loc, "integer division by zero in constant expression");
    return ConstValue::ofInt(floorDiv(x, y));
  case BinOp::Mod:
    if (y == 0)
      file.error(loc, "integer modulo by zero in constant expression");
    return ConstValue::ofInt(floorMod(x, y));
  case BinOp::Pow: {
    if (y < 0)
      return ConstValue::ofFloat(std::pow(double(x), double(y)));
    uint64_t r = 1, base = uint64_t(x);
    for (int64_t e = y; e > 0; e >>= 1) {
      if (e & 1)
        r *= base;
      base *= base;
    }
    return wrap(r);
  }
  case BinOp::LShift: return wrap(y >= 64 ? 0 : uint64_t(x) << y);
  case BinOp::RShift: return ConstValue::ofInt(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
  case BinOp::BitAnd: return ConstValue::ofInt(x & y);
  case BinOp::BitOr: return ConstValue::ofInt(x | y);
  case BinOp::BitXor: return ConstValue::ofInt(x ^ y);
  default: return std::nullopt;
  }
}

} // namespace

bool truthy(const ConstValue &v) {
  switch (v.kind) {
  case ConstValue::Kind::Int: return v.i != 0;
  case ConstValue::Kind::Float: return v.f != 0;
  case ConstValue::Kind::Bool: return v.b;
  case ConstValue::Kind::Tuple: return !v.elems.empty();
  case ConstValue::Kind::Str: return !v.s.empty();
  case ConstValue::Kind::None: return false;
  case ConstValue::Kind::Array:
  case ConstValue::Kind::DeviceArray: return v.shape.empty() || v.shape[0] != 0;
  }
  return false;
}

std::optional<ConstValue> evalConst(const Expr &e, const SourceFile &file, const ConstLookup &lookup) {
  auto rec = [&](const Expr &x) { return evalConst(x, file, lookup); };
  switch (e.kind) {
  case ExprKind::Constant: {
    auto &c = static_cast<const ConstantExpr &>(e);
    switch (c.type) {
    case ConstantExpr::Type::Int:
      if (c.intValue > uint64_t(INT64_MAX))
        return std::nullopt; // only valid as the operand of unary minus (handled there)
      return ConstValue::ofInt(int64_t(c.intValue));
    case ConstantExpr::Type::Float: return ConstValue::ofFloat(c.floatValue);
    case ConstantExpr::Type::Bool: return ConstValue::ofBool(c.boolValue);
    case ConstantExpr::Type::None: return ConstValue{};
    case ConstantExpr::Type::Str: {
      ConstValue v;
      v.kind = ConstValue::Kind::Str;
      v.s = c.strValue;
      return v;
    }
    default: return std::nullopt;
    }
  }
  case ExprKind::Name:
  case ExprKind::Attribute: return lookup(e);
  case ExprKind::Tuple:
  case ExprKind::List: {
    ConstValue t;
    t.kind = ConstValue::Kind::Tuple;
    for (auto &x : static_cast<const TupleExpr &>(e).elts) {
      auto v = rec(*x);
      if (!v)
        return std::nullopt;
      t.elems.push_back(*v);
    }
    return t;
  }
  case ExprKind::Subscript: {
    // `SHAPE[1]` of a constant tuple with a constant index (negative counts from the end).
    auto &s = static_cast<const SubscriptExpr &>(e);
    auto t = rec(*s.value);
    auto i = t && t->kind == ConstValue::Kind::Tuple ? rec(*s.index) : std::nullopt;
    if (!i || i->kind != ConstValue::Kind::Int)
      return std::nullopt;
    int64_t n = int64_t(t->elems.size()), k = i->i < 0 ? i->i + n : i->i;
    if (k < 0 || k >= n)
      return std::nullopt;
    return t->elems[size_t(k)];
  }
  case ExprKind::UnaryOp: {
    auto &u = static_cast<const UnaryOpExpr &>(e);
    if (u.op == UnaryOp::Neg)
      if (auto *c = dyn<ConstantExpr>(u.operand.get());
          c && c->type == ConstantExpr::Type::Int && c->intValue == uint64_t(INT64_MAX) + 1)
        return ConstValue::ofInt(INT64_MIN);
    auto v = rec(*u.operand);
    if (!v)
      return std::nullopt;
    if (u.op == UnaryOp::Not)
      return ConstValue::ofBool(!truthy(*v));
    if (!v->isNumber())
      return std::nullopt;
    if (v->kind == ConstValue::Kind::Float) {
      if (u.op == UnaryOp::Neg)
        return ConstValue::ofFloat(-v->f);
      if (u.op == UnaryOp::Pos)
        return v;
      return std::nullopt;
    }
    int64_t x = asInt(*v);
    if (u.op == UnaryOp::Neg)
      return ConstValue::ofInt(int64_t(0 - uint64_t(x)));
    if (u.op == UnaryOp::Pos)
      return ConstValue::ofInt(x);
    return ConstValue::ofInt(~x);
  }
  case ExprKind::BinOp: {
    auto &b = static_cast<const BinOpExpr &>(e);
    auto l = rec(*b.lhs);
    if (!l)
      return std::nullopt;
    auto r = rec(*b.rhs);
    if (!r)
      return std::nullopt;
    return binary(b.op, *l, *r, file, b.loc);
  }
  case ExprKind::BoolOp: {
    auto &b = static_cast<const BoolOpExpr &>(e);
    std::optional<ConstValue> last;
    for (auto &x : b.values) {
      last = rec(*x);
      if (!last)
        return std::nullopt;
      if (truthy(*last) != b.isAnd)
        return last;
    }
    return last;
  }
  case ExprKind::Compare: {
    auto &c = static_cast<const CompareExpr &>(e);
    auto l = rec(*c.left);
    for (size_t k = 0; k < c.ops.size(); ++k) {
      auto r = rec(*c.comparators[k]);
      if (!l || !r)
        return std::nullopt;
      if (c.ops[k] == CmpOp::Eq || c.ops[k] == CmpOp::NotEq || c.ops[k] == CmpOp::Is ||
          c.ops[k] == CmpOp::IsNot) {
        bool identity = c.ops[k] == CmpOp::Is || c.ops[k] == CmpOp::IsNot;
        if (auto same = enumClassesDecide(l->type(), r->type(), identity)) {
          if (*same != (c.ops[k] == CmpOp::Eq || c.ops[k] == CmpOp::Is))
            return ConstValue::ofBool(false);
          l = r;
          continue;
        }
      }
      if (!l->isNumber() || !r->isNumber())
        return std::nullopt;
      double x = l->asDouble(), y = r->asDouble();
      bool ok;
      switch (c.ops[k]) {
      case CmpOp::Eq: ok = x == y; break;
      case CmpOp::NotEq: ok = x != y; break;
      case CmpOp::Lt: ok = x < y; break;
      case CmpOp::LtE: ok = x <= y; break;
      case CmpOp::Gt: ok = x > y; break;
      case CmpOp::GtE: ok = x >= y; break;
      default: return std::nullopt;
      }
      if (!ok)
        return ConstValue::ofBool(false);
      l = r;
    }
    return ConstValue::ofBool(true);
  }
  case ExprKind::IfExp: {
    auto &i = static_cast<const IfExpExpr &>(e);
    auto t = rec(*i.test);
    if (!t)
      return std::nullopt;
    return rec(truthy(*t) ? *i.body : *i.orelse);
  }
  case ExprKind::Call: // (a call is no constant, even of a builtin)
  case ExprKind::Slice:
  case ExprKind::Starred:
  case ExprKind::StarElement: return std::nullopt;
  }
  return std::nullopt;
}

} // namespace cutwin::fe
