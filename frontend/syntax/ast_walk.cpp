#include "frontend/syntax/ast_walk.h"

namespace cutwin::fe {

void forEachChild(const Expr &e, const std::function<void(const Expr &)> &f) {
  switch (e.kind) {
  case ExprKind::BinOp: {
    auto &b = static_cast<const BinOpExpr &>(e);
    f(*b.lhs);
    f(*b.rhs);
    return;
  }
  case ExprKind::UnaryOp: return f(*static_cast<const UnaryOpExpr &>(e).operand);
  case ExprKind::BoolOp:
    for (auto &v : static_cast<const BoolOpExpr &>(e).values)
      f(*v);
    return;
  case ExprKind::Compare: {
    auto &c = static_cast<const CompareExpr &>(e);
    f(*c.left);
    for (auto &x : c.comparators)
      f(*x);
    return;
  }
  case ExprKind::IfExp: {
    auto &i = static_cast<const IfExpExpr &>(e);
    f(*i.test);
    f(*i.body);
    f(*i.orelse);
    return;
  }
  case ExprKind::Call: {
    auto &c = static_cast<const CallExpr &>(e);
    f(*c.func);
    for (auto &a : c.args)
      f(*a);
    for (auto &k : c.keywords)
      f(*k.value);
    return;
  }
  case ExprKind::Attribute: return f(*static_cast<const AttributeExpr &>(e).value);
  case ExprKind::Subscript: {
    auto &s = static_cast<const SubscriptExpr &>(e);
    f(*s.value);
    f(*s.index);
    return;
  }
  case ExprKind::Slice: {
    auto &s = static_cast<const SliceExpr &>(e);
    for (auto *p : {s.lower.get(), s.upper.get(), s.step.get()})
      if (p)
        f(*p);
    return;
  }
  case ExprKind::Tuple:
  case ExprKind::List:
    for (auto &x : static_cast<const TupleExpr &>(e).elts)
      f(*x);
    return;
  case ExprKind::Starred: return f(*static_cast<const StarredExpr &>(e).value);
  case ExprKind::Name:
  case ExprKind::Constant:
  case ExprKind::StarElement: return;
  }
}

} // namespace cutwin::fe
