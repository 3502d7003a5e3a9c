#include "frontend/sema/use_before_assign.h"

#include "frontend/syntax/ast_walk.h"

namespace cutwin::fe {

namespace {

class Checker {
public:
  Checker(const std::set<std::string> &locals, const SourceFile &file) : locals_(locals), file_(file) {}

  /// `assigned`: names possibly assigned on entry; updated to those possibly assigned after.
  void block(const Block &b, std::set<std::string> &assigned) {
    for (auto &s : b)
      stmt(*s, assigned);
  }

private:
  void use(const Expr &e, const std::set<std::string> &assigned) {
    if (auto *n = dyn<NameExpr>(&e)) {
      if (locals_.count(n->id) && !assigned.count(n->id))
        file_.error(n->loc, "local variable '" + n->id + "' is used before it is assigned");
      return;
    }
    forEachChild(e, [&](const Expr &c) { use(c, assigned); });
  }

  /// Reads inside an assignment target (`a[i] = ...` reads a and i), then binds names.
  void target(const Expr &t, std::set<std::string> &assigned) {
    if (auto *n = dyn<NameExpr>(&t)) {
      assigned.insert(n->id);
      return;
    }
    if (auto *tup = asTupleLike(&t)) {
      for (auto &e : tup->elts)
        target(*e, assigned);
      return;
    }
    use(t, assigned);
  }

  void loop(const Block &body, const Block &orelse, std::set<std::string> &assigned) {
    // Twice: the second pass sees what the first iteration may have assigned.
    std::set<std::string> first = assigned;
    block(body, first);
    std::set<std::string> second = first;
    block(body, second);
    assigned.insert(second.begin(), second.end());
    block(orelse, assigned);
  }

  void stmt(const Stmt &s, std::set<std::string> &assigned) {
    switch (s.kind) {
    case StmtKind::Expr: return use(*static_cast<const ExprStmt &>(s).value, assigned);
    case StmtKind::Assign: {
      auto &a = static_cast<const AssignStmt &>(s);
      use(*a.value, assigned);
      for (auto &t : a.targets)
        target(*t, assigned);
      return;
    }
    case StmtKind::AnnAssign: {
      auto &a = static_cast<const AnnAssignStmt &>(s);
      if (a.value) {
        use(*a.value, assigned);
        target(*a.target, assigned);
      }
      return;
    }
    case StmtKind::AugAssign: {
      auto &a = static_cast<const AugAssignStmt &>(s);
      use(*a.value, assigned);
      use(*a.target, assigned); // x += 1 reads x
      target(*a.target, assigned);
      return;
    }
    case StmtKind::If: {
      auto &i = static_cast<const IfStmt &>(s);
      use(*i.test, assigned);
      std::set<std::string> a = assigned, b = assigned;
      block(i.body, a);
      block(i.orelse, b);
      assigned.insert(a.begin(), a.end());
      assigned.insert(b.begin(), b.end());
      return;
    }
    case StmtKind::While: {
      auto &w = static_cast<const WhileStmt &>(s);
      use(*w.test, assigned);
      return loop(w.body, w.orelse, assigned);
    }
    case StmtKind::For: {
      auto &f = static_cast<const ForStmt &>(s);
      use(*f.iter, assigned);
      std::set<std::string> withTarget = assigned;
      target(*f.target, withTarget);
      // The orelse and the code after may run with zero iterations: the target is then
      // possibly unassigned, which this conservative check accepts.
      loop(f.body, f.orelse, withTarget);
      assigned = withTarget;
      return;
    }
    case StmtKind::Return:
      if (auto &v = static_cast<const ReturnStmt &>(s).value)
        use(*v, assigned);
      return;
    case StmtKind::Assert: {
      auto &a = static_cast<const AssertStmt &>(s);
      use(*a.test, assigned);
      return;
    }
    case StmtKind::Break: // (no reads the check follows)
    case StmtKind::Continue:
    case StmtKind::Pass:
    case StmtKind::FunctionDef:
    case StmtKind::Import:
    case StmtKind::ImportFrom:
    case StmtKind::Raise:
    case StmtKind::Global:
    case StmtKind::Unsupported: return;
    }
  }

  const std::set<std::string> &locals_;
  const SourceFile &file_;
};

} // namespace

void checkUseBeforeAssignment(const FunctionDefStmt &def, const std::set<std::string> &locals,
                              const SourceFile &file) {
  std::set<std::string> assigned;
  for (auto &p : def.params)
    assigned.insert(p.name);
  Checker(locals, file).block(def.body, assigned);
}

} // namespace cutwin::fe
