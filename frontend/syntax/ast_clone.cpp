#include "frontend/syntax/ast_clone.h"

namespace cutwin::fe {

namespace {

ExprPtr cloneOrNull(const ExprPtr &e, const NameMap &r) { return e ? cloneExpr(*e, r) : nullptr; }

void cloneInto(std::vector<ExprPtr> &out, const std::vector<ExprPtr> &in, const NameMap &r) {
  for (auto &e : in)
    out.push_back(cloneExpr(*e, r));
}

} // namespace

ExprPtr cloneExpr(const Expr &e, const NameMap &r) {
  switch (e.kind) {
  case ExprKind::Name: {
    auto &n = static_cast<const NameExpr &>(e);
    auto it = r.find(n.id);
    return std::make_unique<NameExpr>(n.loc, it == r.end() ? n.id : it->second);
  }
  case ExprKind::Constant: return std::make_unique<ConstantExpr>(static_cast<const ConstantExpr &>(e));
  case ExprKind::BinOp: {
    auto &b = static_cast<const BinOpExpr &>(e);
    return std::make_unique<BinOpExpr>(b.loc, b.op, cloneExpr(*b.lhs, r), cloneExpr(*b.rhs, r));
  }
  case ExprKind::UnaryOp: {
    auto &u = static_cast<const UnaryOpExpr &>(e);
    return std::make_unique<UnaryOpExpr>(u.loc, u.op, cloneExpr(*u.operand, r));
  }
  case ExprKind::BoolOp: {
    auto &b = static_cast<const BoolOpExpr &>(e);
    auto c = std::make_unique<BoolOpExpr>(b.loc, b.isAnd);
    cloneInto(c->values, b.values, r);
    return c;
  }
  case ExprKind::Compare: {
    auto &m = static_cast<const CompareExpr &>(e);
    auto c = std::make_unique<CompareExpr>(m.loc, cloneExpr(*m.left, r));
    c->ops = m.ops;
    cloneInto(c->comparators, m.comparators, r);
    return c;
  }
  case ExprKind::IfExp: {
    auto &i = static_cast<const IfExpExpr &>(e);
    return std::make_unique<IfExpExpr>(i.loc, cloneExpr(*i.test, r), cloneExpr(*i.body, r),
                                       cloneExpr(*i.orelse, r));
  }
  case ExprKind::Call: {
    auto &k = static_cast<const CallExpr &>(e);
    auto c = std::make_unique<CallExpr>(k.loc, cloneExpr(*k.func, r));
    cloneInto(c->args, k.args, r);
    for (auto &kw : k.keywords)
      c->keywords.push_back(Keyword{kw.loc, kw.name, cloneExpr(*kw.value, r)});
    return c;
  }
  case ExprKind::Attribute: {
    auto &a = static_cast<const AttributeExpr &>(e);
    return std::make_unique<AttributeExpr>(a.loc, cloneExpr(*a.value, r), a.attr);
  }
  case ExprKind::Subscript: {
    auto &s = static_cast<const SubscriptExpr &>(e);
    return std::make_unique<SubscriptExpr>(s.loc, cloneExpr(*s.value, r), cloneExpr(*s.index, r));
  }
  case ExprKind::Slice: {
    auto &s = static_cast<const SliceExpr &>(e);
    auto c = std::make_unique<SliceExpr>(s.loc);
    c->lower = cloneOrNull(s.lower, r);
    c->upper = cloneOrNull(s.upper, r);
    c->step = cloneOrNull(s.step, r);
    return c;
  }
  case ExprKind::Tuple: {
    auto &t = static_cast<const TupleExpr &>(e);
    auto c = std::make_unique<TupleExpr>(t.loc);
    cloneInto(c->elts, t.elts, r);
    return c;
  }
  case ExprKind::List: {
    auto &t = static_cast<const ListExpr &>(e);
    auto c = std::make_unique<ListExpr>(t.loc);
    cloneInto(c->elts, t.elts, r);
    return c;
  }
  case ExprKind::Starred: {
    auto &s = static_cast<const StarredExpr &>(e);
    return std::make_unique<StarredExpr>(s.loc, cloneExpr(*s.value, r));
  }
  case ExprKind::StarElement: { // (the tuple stays the one of the call it came from)
    auto &s = static_cast<const StarElementExpr &>(e);
    return std::make_unique<StarElementExpr>(s.loc, s.tuple, s.index);
  }
  }
  throw Error("internal error: an expression of unknown kind");
}

StmtPtr cloneStmt(const Stmt &s, const NameMap &r) {
  switch (s.kind) {
  case StmtKind::Expr: {
    auto &x = static_cast<const ExprStmt &>(s);
    return std::make_unique<ExprStmt>(x.loc, cloneExpr(*x.value, r));
  }
  case StmtKind::Assign: {
    auto &a = static_cast<const AssignStmt &>(s);
    auto c = std::make_unique<AssignStmt>(a.loc);
    cloneInto(c->targets, a.targets, r);
    c->value = cloneExpr(*a.value, r);
    return c;
  }
  case StmtKind::AugAssign: {
    auto &a = static_cast<const AugAssignStmt &>(s);
    return std::make_unique<AugAssignStmt>(a.loc, cloneExpr(*a.target, r), a.op, cloneExpr(*a.value, r));
  }
  case StmtKind::AnnAssign: {
    auto &a = static_cast<const AnnAssignStmt &>(s);
    auto c = std::make_unique<AnnAssignStmt>(a.loc);
    c->target = cloneExpr(*a.target, r);
    c->annotation = cloneExpr(*a.annotation, r);
    c->value = cloneOrNull(a.value, r);
    return c;
  }
  case StmtKind::If: {
    auto &i = static_cast<const IfStmt &>(s);
    auto c = std::make_unique<IfStmt>(i.loc, cloneExpr(*i.test, r));
    c->body = cloneBlock(i.body, r);
    c->orelse = cloneBlock(i.orelse, r);
    return c;
  }
  case StmtKind::For: {
    auto &f = static_cast<const ForStmt &>(s);
    auto c = std::make_unique<ForStmt>(f.loc);
    c->target = cloneExpr(*f.target, r);
    c->iter = cloneExpr(*f.iter, r);
    c->body = cloneBlock(f.body, r);
    c->orelse = cloneBlock(f.orelse, r);
    return c;
  }
  case StmtKind::While: {
    auto &w = static_cast<const WhileStmt &>(s);
    auto c = std::make_unique<WhileStmt>(w.loc, cloneExpr(*w.test, r));
    c->body = cloneBlock(w.body, r);
    c->orelse = cloneBlock(w.orelse, r);
    return c;
  }
  case StmtKind::Break: return std::make_unique<BreakStmt>(s.loc);
  case StmtKind::Continue: return std::make_unique<ContinueStmt>(s.loc);
  case StmtKind::Pass: return std::make_unique<PassStmt>(s.loc);
  case StmtKind::Return: {
    auto &x = static_cast<const ReturnStmt &>(s);
    return std::make_unique<ReturnStmt>(x.loc, cloneOrNull(x.value, r));
  }
  case StmtKind::Assert: {
    auto &a = static_cast<const AssertStmt &>(s);
    auto c = std::make_unique<AssertStmt>(a.loc);
    c->test = cloneExpr(*a.test, r);
    c->msg = cloneOrNull(a.msg, r);
    return c;
  }
  case StmtKind::Raise: {
    auto &x = static_cast<const RaiseStmt &>(s);
    auto c = std::make_unique<RaiseStmt>(x.loc);
    c->exc = cloneOrNull(x.exc, r);
    return c;
  }
  case StmtKind::Global: return std::make_unique<GlobalStmt>(static_cast<const GlobalStmt &>(s));
  case StmtKind::FunctionDef: {
    // A nested def: its own parameters shadow the renamed names.
    auto &f = static_cast<const FunctionDefStmt &>(s);
    NameMap inner = r;
    for (auto &p : f.params)
      inner.erase(p.name);
    auto c = std::make_unique<FunctionDefStmt>(f.loc);
    c->name = f.name;
    c->nameLoc = f.nameLoc;
    cloneInto(c->decorators, f.decorators, r);
    for (auto &p : f.params)
      c->params.push_back(Param{p.loc, p.name, cloneOrNull(p.annotation, r), cloneOrNull(p.defaultValue, r)});
    c->returns = cloneOrNull(f.returns, r);
    c->body = cloneBlock(f.body, inner);
    return c;
  }
  case StmtKind::Import: return std::make_unique<ImportStmt>(static_cast<const ImportStmt &>(s));
  case StmtKind::ImportFrom: return std::make_unique<ImportFromStmt>(static_cast<const ImportFromStmt &>(s));
  case StmtKind::Unsupported:
    return std::make_unique<UnsupportedStmt>(static_cast<const UnsupportedStmt &>(s));
  }
  throw Error("internal error: a statement of unknown kind");
}

Block cloneBlock(const Block &b, const NameMap &r) {
  Block out;
  for (auto &s : b)
    out.push_back(cloneStmt(*s, r));
  return out;
}

} // namespace cutwin::fe
