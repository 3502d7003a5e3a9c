#include "frontend/sema/literal_unroll.h"

#include "frontend/syntax/ast_clone.h"

namespace cutwin::fe {

namespace {

class Unroller {
public:
  explicit Unroller(const LiteralUnrollHooks &h) : h_(h) {}

  /// The literal_unroll call a for loop iterates, or null.
  const CallExpr *unrolledCall(const Stmt &s) const {
    auto *f = dyn<ForStmt>(&s);
    auto *c = f ? dyn<CallExpr>(f->iter.get()) : nullptr;
    return c && h_.isLiteralUnroll(*c) ? c : nullptr;
  }

  bool contains(const Block &b) const {
    for (auto &s : b) {
      if (unrolledCall(*s))
        return true;
      if (auto *i = dyn<IfStmt>(s.get()); i && (contains(i->body) || contains(i->orelse)))
        return true;
      if (auto *f = dyn<ForStmt>(s.get()); f && (contains(f->body) || contains(f->orelse)))
        return true;
      if (auto *w = dyn<WhileStmt>(s.get()); w && (contains(w->body) || contains(w->orelse)))
        return true;
    }
    return false;
  }

  Block block(const Block &b) {
    Block out;
    for (auto &s : b) {
      if (const CallExpr *c = unrolledCall(*s)) {
        unroll(static_cast<const ForStmt &>(*s), *c, out);
        continue;
      }
      StmtPtr copy = cloneStmt(*s);
      if (auto *i = dyn<IfStmt>(copy.get())) {
        auto &orig = static_cast<const IfStmt &>(*s);
        i->body = block(orig.body);
        i->orelse = block(orig.orelse);
      } else if (auto *f = dyn<ForStmt>(copy.get())) {
        auto &orig = static_cast<const ForStmt &>(*s);
        f->body = block(orig.body);
        f->orelse = block(orig.orelse);
      } else if (auto *w = dyn<WhileStmt>(copy.get())) {
        auto &orig = static_cast<const WhileStmt &>(*s);
        w->body = block(orig.body);
        w->orelse = block(orig.orelse);
      }
      out.push_back(std::move(copy));
    }
    return out;
  }

private:
  void unroll(const ForStmt &f, const CallExpr &c, Block &out) {
    if (c.args.size() != 1 || !c.keywords.empty())
      h_.error(c.loc, "literal_unroll() takes one tuple");
    checkNoJumps(f.body);
    size_t n = h_.tupleLength(*c.args[0]);
    std::vector<std::string> names;
    targetNames(*f.target, names);
    for (size_t k = 0; k < n; ++k) {
      NameMap renames;
      for (auto &name : names)
        renames[name] = name + "." + std::to_string(k);
      auto assign = std::make_unique<AssignStmt>(f.loc);
      assign->targets.push_back(cloneExpr(*f.target, renames));
      auto index = std::make_unique<ConstantExpr>(c.loc, ConstantExpr::Type::Int);
      index->intValue = k;
      assign->value = std::make_unique<SubscriptExpr>(c.loc, cloneExpr(*c.args[0]), std::move(index));
      out.push_back(std::move(assign));
      Block body = block(cloneBlock(f.body, renames));
      for (auto &s : body)
        out.push_back(std::move(s));
    }
    for (auto &s : block(f.orelse)) // no break can skip it
      out.push_back(std::move(s));
  }

  void targetNames(const Expr &t, std::vector<std::string> &names) {
    if (auto *n = dyn<NameExpr>(&t))
      names.push_back(n->id);
    else if (auto *tup = asTupleLike(&t))
      for (auto &e : tup->elts)
        targetNames(*e, names);
    else
      h_.error(t.loc, "a literal_unroll loop assigns names only");
  }

  /// `break` and `continue` of the unrolled loop itself (not of loops inside it).
  void checkNoJumps(const Block &b) {
    for (auto &s : b) {
      if (s->kind == StmtKind::Break || s->kind == StmtKind::Continue)
        h_.error(s->loc, std::string("'") + (s->kind == StmtKind::Break ? "break" : "continue") +
                             "' in a literal_unroll loop is not supported: each element has its own copy of "
                             "the loop's body");
      if (auto *i = dyn<IfStmt>(s.get())) {
        checkNoJumps(i->body);
        checkNoJumps(i->orelse);
      }
    }
  }

  const LiteralUnrollHooks &h_;
};

} // namespace

std::unique_ptr<FunctionDefStmt> unrollLiteralLoops(const FunctionDefStmt &def,
                                                    const LiteralUnrollHooks &hooks) {
  Unroller u(hooks);
  if (!u.contains(def.body))
    return nullptr;
  auto copy = std::make_unique<FunctionDefStmt>(def.loc);
  copy->name = def.name;
  copy->nameLoc = def.nameLoc;
  for (auto &d : def.decorators)
    copy->decorators.push_back(cloneExpr(*d));
  for (auto &p : def.params)
    copy->params.push_back(Param{p.loc, p.name, p.annotation ? cloneExpr(*p.annotation) : nullptr,
                                 p.defaultValue ? cloneExpr(*p.defaultValue) : nullptr});
  copy->returns = def.returns ? cloneExpr(*def.returns) : nullptr;
  copy->body = u.block(def.body);
  return copy;
}

} // namespace cutwin::fe
