// Reaching definitions over the function's statements (structured: if, while, for, break,
// continue, return, raise), then one version per group of assignments that reach a common
// read: numba's SSA form, where only assignments meeting at a read (its phi nodes) unify.
#include "frontend/sema/variable_versions.h"

#include "frontend/syntax/ast_clone.h"
#include "frontend/syntax/ast_walk.h"

#include <map>
#include <numeric>
#include <set>
#include <vector>

namespace cutwin::fe {

namespace {

/// What may reach a point: per name, the assignments (their ids) whose value it may hold.
struct State {
  bool reachable = true;
  std::map<std::string, std::set<unsigned>> defs;

  void join(const State &other) {
    if (!other.reachable)
      return;
    if (!reachable) {
      *this = other;
      return;
    }
    for (auto &[name, ids] : other.defs)
      defs[name].insert(ids.begin(), ids.end());
  }
  bool operator==(const State &o) const { return reachable == o.reachable && defs == o.defs; }
  static State unreachable() {
    State s;
    s.reachable = false;
    return s;
  }
};

class ReachingDefinitions {
public:
  explicit ReachingDefinitions(const FunctionDefStmt &def) {
    State s;
    for (auto &p : def.params) {
      names_.push_back(p.name);
      s.defs[p.name] = {unsigned(names_.size() - 1)};
    }
    block(def.body, s);
  }

  /// Each renamed node's new name; empty where every name is one version.
  std::map<const NameExpr *, std::string> renames() {
    std::vector<unsigned> parent(names_.size());
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&](unsigned x) {
      while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
      return x;
    };
    auto unite = [&](unsigned a, unsigned b) {
      a = find(a), b = find(b);
      parent[std::max(a, b)] = std::min(a, b); // a group's root: its first assignment
    };
    for (auto &[node, ids] : reads_)
      for (unsigned id : ids)
        unite(*ids.begin(), id);
    for (auto &[node, id] : augmented_) // `x += 1` reads and assigns one node: one version
      for (unsigned read : reads_[node])
        unite(id, read);
    // The versions of each name by their first assignment: the first keeps the name.
    std::map<unsigned, std::string> versionName;
    std::map<std::string, unsigned> versions;
    for (unsigned id = 0; id < names_.size(); ++id) {
      const std::string &name = names_[id];
      if (find(id) != id || excluded_.count(name))
        continue;
      unsigned k = versions[name]++;
      versionName[id] = k == 0 ? name : name + "$" + std::to_string(k);
    }
    std::map<const NameExpr *, std::string> out;
    auto rename = [&](const NameExpr *node, unsigned id) {
      auto v = versionName.find(find(id));
      if (v != versionName.end() && v->second != node->id)
        out[node] = v->second;
    };
    for (auto &[node, id] : defNodes_)
      rename(node, id);
    for (auto &[node, ids] : reads_)
      if (!ids.empty())
        rename(node, *ids.begin());
    return out;
  }

private:
  struct Jumps {
    State breaks = State::unreachable(), continues = State::unreachable();
  };

  void read(const Expr &e, const State &s) {
    if (auto *n = dyn<NameExpr>(&e)) {
      auto &ids = reads_[n];
      if (s.reachable)
        if (auto it = s.defs.find(n->id); it != s.defs.end())
          ids.insert(it->second.begin(), it->second.end());
      return;
    }
    forEachChild(e, [&](const Expr &c) { read(c, s); });
  }

  /// An assignment to `t`: names take a new definition; `a[i] = ...` reads a and i.
  void bind(const Expr &t, State &s) {
    if (auto *n = dyn<NameExpr>(&t)) {
      s.defs[n->id] = {defOf(*n)};
      return;
    }
    if (auto *tup = asTupleLike(&t)) {
      for (auto &e : tup->elts)
        bind(*e, s);
      return;
    }
    read(t, s);
  }

  /// The id of the assignment at `n` (the same on every pass over a loop).
  unsigned defOf(const NameExpr &n) {
    auto [it, added] = defNodes_.emplace(&n, unsigned(names_.size()));
    if (added)
      names_.push_back(n.id);
    return it->second;
  }

  void block(const Block &b, State &s) {
    for (auto &st : b)
      stmt(*st, s);
  }

  /// A loop: its head is reached from before the loop, the end of each iteration and each
  /// `continue`, passed over until nothing new reaches it; `iteration` is one pass from the
  /// head (a while loop's test and body; a for loop's target and body).
  template <class Iteration> void loop(const Block &orelse, State &s, Iteration iteration) {
    loops_.emplace_back();
    State entry = s, head = s;
    for (;;) {
      State end = head;
      iteration(end);
      end.join(loops_.back().continues);
      State next = entry;
      next.join(end);
      if (next == head)
        break;
      head = next;
    }
    State exit = head; // the test fails or the iterator is exhausted
    block(orelse, exit);
    exit.join(loops_.back().breaks);
    loops_.pop_back();
    s = exit;
  }

  void stmt(const Stmt &st, State &s) {
    switch (st.kind) {
    case StmtKind::Expr: return read(*static_cast<const ExprStmt &>(st).value, s);
    case StmtKind::Assign: {
      auto &a = static_cast<const AssignStmt &>(st);
      read(*a.value, s);
      for (auto &t : a.targets)
        bind(*t, s);
      return;
    }
    case StmtKind::AnnAssign: {
      auto &a = static_cast<const AnnAssignStmt &>(st);
      if (a.value) {
        read(*a.value, s);
        bind(*a.target, s);
      }
      return;
    }
    case StmtKind::AugAssign: {
      auto &a = static_cast<const AugAssignStmt &>(st);
      read(*a.value, s);
      read(*a.target, s);
      if (auto *n = dyn<NameExpr>(a.target.get())) {
        augmented_[n] = defOf(*n);
        s.defs[n->id] = {augmented_[n]};
      }
      return;
    }
    case StmtKind::If: {
      auto &i = static_cast<const IfStmt &>(st);
      read(*i.test, s);
      State other = s;
      block(i.body, s);
      block(i.orelse, other);
      s.join(other);
      return;
    }
    case StmtKind::While: {
      auto &w = static_cast<const WhileStmt &>(st);
      return loop(w.orelse, s, [&](State &it) { // the test runs at the head
        read(*w.test, it);
        block(w.body, it);
      });
    }
    case StmtKind::For: {
      auto &f = static_cast<const ForStmt &>(st);
      read(*f.iter, s);
      return loop(f.orelse, s, [&](State &it) {
        bind(*f.target, it);
        block(f.body, it);
      });
    }
    case StmtKind::Return:
      if (auto &v = static_cast<const ReturnStmt &>(st).value)
        read(*v, s);
      s = State::unreachable();
      return;
    case StmtKind::Raise:
      if (auto &e = static_cast<const RaiseStmt &>(st).exc)
        read(*e, s);
      s = State::unreachable();
      return;
    case StmtKind::Assert: {
      auto &a = static_cast<const AssertStmt &>(st);
      read(*a.test, s);
      if (a.msg)
        read(*a.msg, s);
      return;
    }
    case StmtKind::Break:
    case StmtKind::Continue:
      if (!loops_.empty())
        (st.kind == StmtKind::Break ? loops_.back().breaks : loops_.back().continues).join(s);
      s = State::unreachable();
      return;
    case StmtKind::Global:
      for (auto &n : static_cast<const GlobalStmt &>(st).names)
        excluded_.insert(n);
      return;
    case StmtKind::Import:
      for (auto &a : static_cast<const ImportStmt &>(st).names)
        excluded_.insert(a.asname.empty() ? a.name.substr(0, a.name.find('.')) : a.asname);
      return;
    case StmtKind::ImportFrom:
      for (auto &a : static_cast<const ImportFromStmt &>(st).names)
        excluded_.insert(a.asname.empty() ? a.name : a.asname);
      return;
    case StmtKind::Pass:
    case StmtKind::FunctionDef: // (nested functions are refused by the typer)
    case StmtKind::Unsupported: return;
    }
  }

  std::vector<std::string> names_;                       ///< each assignment's name, by id
  std::map<const NameExpr *, unsigned> defNodes_;        ///< assigning nodes and their ids
  std::map<const NameExpr *, std::set<unsigned>> reads_; ///< reading nodes: what reaches them
  std::map<const NameExpr *, unsigned> augmented_;       ///< `x op= ...`'s nodes: read and assigned
  std::set<std::string> excluded_;                       ///< global and imported names
  std::vector<Jumps> loops_;
};

} // namespace

std::unique_ptr<FunctionDefStmt> splitVariableVersions(const FunctionDefStmt &def) {
  if (ReachingDefinitions(def).renames().empty())
    return nullptr;
  StmtPtr copy = cloneStmt(def);
  auto *f = static_cast<FunctionDefStmt *>(copy.get());
  // The copy is this step's own: the analysis, run again on it, names its nodes.
  for (auto &[node, name] : ReachingDefinitions(*f).renames())
    const_cast<NameExpr *>(node)->id = name;
  copy.release();
  return std::unique_ptr<FunctionDefStmt>(f);
}

std::string sourceName(const std::string &local) { return local.substr(0, local.find_first_of("$.")); }

} // namespace cutwin::fe
