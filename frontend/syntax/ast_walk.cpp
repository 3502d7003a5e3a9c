#include "frontend/syntax/ast_walk.h"

#include <utility>
#include <vector>

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

namespace {
void forEachIn(const Block &b, const std::function<void(const Expr &)> &f) {
  for (auto &s : b)
    forEachExpression(*s, f);
}
void maybe(const ExprPtr &e, const std::function<void(const Expr &)> &f) {
  if (e)
    f(*e);
}
} // namespace

void forEachExpression(const Stmt &s, const std::function<void(const Expr &)> &f) {
  switch (s.kind) {
  case StmtKind::Expr: return f(*static_cast<const ExprStmt &>(s).value);
  case StmtKind::Assign: {
    auto &a = static_cast<const AssignStmt &>(s);
    for (auto &t : a.targets)
      f(*t);
    return f(*a.value);
  }
  case StmtKind::AugAssign: {
    auto &a = static_cast<const AugAssignStmt &>(s);
    f(*a.target);
    return f(*a.value);
  }
  case StmtKind::AnnAssign: {
    auto &a = static_cast<const AnnAssignStmt &>(s);
    f(*a.target);
    f(*a.annotation);
    return maybe(a.value, f);
  }
  case StmtKind::If: {
    auto &i = static_cast<const IfStmt &>(s);
    f(*i.test);
    forEachIn(i.body, f);
    return forEachIn(i.orelse, f);
  }
  case StmtKind::For: {
    auto &x = static_cast<const ForStmt &>(s);
    f(*x.target);
    f(*x.iter);
    forEachIn(x.body, f);
    return forEachIn(x.orelse, f);
  }
  case StmtKind::While: {
    auto &w = static_cast<const WhileStmt &>(s);
    f(*w.test);
    forEachIn(w.body, f);
    return forEachIn(w.orelse, f);
  }
  case StmtKind::Return: return maybe(static_cast<const ReturnStmt &>(s).value, f);
  case StmtKind::Assert: {
    auto &a = static_cast<const AssertStmt &>(s);
    f(*a.test);
    return maybe(a.msg, f);
  }
  case StmtKind::Raise: return maybe(static_cast<const RaiseStmt &>(s).exc, f);
  case StmtKind::FunctionDef: {
    auto &d = static_cast<const FunctionDefStmt &>(s);
    for (auto &e : d.decorators)
      f(*e);
    for (auto &p : d.params) {
      maybe(p.annotation, f);
      maybe(p.defaultValue, f);
    }
    maybe(d.returns, f);
    return forEachIn(d.body, f);
  }
  case StmtKind::Break:
  case StmtKind::Continue:
  case StmtKind::Pass:
  case StmtKind::Global:
  case StmtKind::Import:
  case StmtKind::ImportFrom:
  case StmtKind::Unsupported: return;
  }
}

size_t expressionDepth(const Expr &e) {
  size_t deepest = 0;
  std::vector<std::pair<const Expr *, size_t>> todo{{&e, 1}};
  while (!todo.empty()) {
    auto [x, depth] = todo.back();
    todo.pop_back();
    deepest = std::max(deepest, depth);
    forEachChild(*x, [&, depth = depth](const Expr &c) { todo.push_back({&c, depth + 1}); });
  }
  return deepest;
}

} // namespace cutwin::fe
