/// Syntax tree of the Python subset: what the parser builds and every later step reads.
/// Nodes are owned by their parent through unique_ptr; a node's kind says which struct it is.
#pragma once

#include "cutwin/errors.h"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace cutwin::fe {

// ---------------------------------------------------------------------------------------------
// Expressions

enum class ExprKind {
  Name,
  Constant,
  BinOp,
  UnaryOp,
  BoolOp,
  Compare,
  IfExp,
  Call,
  Attribute,
  Subscript,
  Slice,
  Tuple,
  List,
  Starred,
  StarElement,
};

enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, LShift, RShift, BitAnd, BitOr, BitXor, MatMul };
enum class UnaryOp { Neg, Pos, Invert, Not };
enum class CmpOp { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

const char *binOpSymbol(BinOp op);
const char *unaryOpSymbol(UnaryOp op);
const char *cmpOpSymbol(CmpOp op);

struct Expr {
  explicit Expr(ExprKind k, SourceLoc l) : kind(k), loc(l) {}
  virtual ~Expr() = default;
  ExprKind kind;
  SourceLoc loc;
};
using ExprPtr = std::unique_ptr<Expr>;

struct NameExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::Name;
  NameExpr(SourceLoc l, std::string n) : Expr(Kind, l), id(std::move(n)) {}
  std::string id;
};

struct ConstantExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::Constant;
  enum class Type { Int, Float, Imag, Bool, Str, None, Ellipsis };
  ConstantExpr(SourceLoc l, Type t) : Expr(Kind, l), type(t) {}
  Type type;
  uint64_t intValue = 0; ///< literal magnitude (unary minus is a separate node)
  double floatValue = 0;
  bool boolValue = false;
  std::string strValue;
};

struct BinOpExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::BinOp;
  BinOpExpr(SourceLoc l, BinOp o, ExprPtr a, ExprPtr b)
      : Expr(Kind, l), op(o), lhs(std::move(a)), rhs(std::move(b)) {}
  BinOp op;
  ExprPtr lhs, rhs;
};

struct UnaryOpExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::UnaryOp;
  UnaryOpExpr(SourceLoc l, UnaryOp o, ExprPtr e) : Expr(Kind, l), op(o), operand(std::move(e)) {}
  UnaryOp op;
  ExprPtr operand;
};

struct BoolOpExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::BoolOp;
  BoolOpExpr(SourceLoc l, bool a) : Expr(Kind, l), isAnd(a) {}
  bool isAnd;
  std::vector<ExprPtr> values;
};

/// `a < b <= c`: left, then ops[i] applied to comparators[i].
struct CompareExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::Compare;
  CompareExpr(SourceLoc l, ExprPtr left) : Expr(Kind, l), left(std::move(left)) {}
  ExprPtr left;
  std::vector<CmpOp> ops;
  std::vector<ExprPtr> comparators;
};

struct IfExpExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::IfExp;
  IfExpExpr(SourceLoc l, ExprPtr t, ExprPtr b, ExprPtr o)
      : Expr(Kind, l), test(std::move(t)), body(std::move(b)), orelse(std::move(o)) {}
  ExprPtr test, body, orelse;
};

struct Keyword {
  SourceLoc loc;
  std::string name;
  ExprPtr value;
};

struct CallExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::Call;
  CallExpr(SourceLoc l, ExprPtr f) : Expr(Kind, l), func(std::move(f)) {}
  ExprPtr func;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
};

struct AttributeExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::Attribute;
  AttributeExpr(SourceLoc l, ExprPtr v, std::string a)
      : Expr(Kind, l), value(std::move(v)), attr(std::move(a)) {}
  ExprPtr value;
  std::string attr;
};

struct SubscriptExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::Subscript;
  SubscriptExpr(SourceLoc l, ExprPtr v, ExprPtr i)
      : Expr(Kind, l), value(std::move(v)), index(std::move(i)) {}
  ExprPtr value;
  ExprPtr index; ///< a TupleExpr for `a[i, j]`
};

struct SliceExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::Slice;
  explicit SliceExpr(SourceLoc l) : Expr(Kind, l) {}
  ExprPtr lower, upper, step; ///< each may be null
};

struct TupleExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::Tuple;
  explicit TupleExpr(SourceLoc l, ExprKind k = ExprKind::Tuple) : Expr(k, l) {}
  std::vector<ExprPtr> elts;
};

/// `[a, b]`: kept apart from tuples so that diagnostics can name it; typed like a tuple
/// where numba accepts a list of constants (shapes).
struct ListExpr : TupleExpr {
  static constexpr ExprKind Kind = ExprKind::List;
  explicit ListExpr(SourceLoc l) : TupleExpr(l, ExprKind::List) {}
};

struct StarredExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::Starred;
  StarredExpr(SourceLoc l, ExprPtr v) : Expr(Kind, l), value(std::move(v)) {}
  ExprPtr value;
};

/// One element of a tuple unpacked into a call's arguments (`f(*t)` is typed and lowered
/// as `f(<t, 0>, <t, 1>, ...)`): `tuple` is the starred expression, owned by the call as
/// written and evaluated once for all of its elements. The typer makes these; the parser never does.
struct StarElementExpr : Expr {
  static constexpr ExprKind Kind = ExprKind::StarElement;
  StarElementExpr(SourceLoc l, const Expr *t, unsigned i) : Expr(Kind, l), tuple(t), index(i) {}
  const Expr *tuple;
  unsigned index;
};

// ---------------------------------------------------------------------------------------------
// Statements

enum class StmtKind {
  Expr,
  Assign,
  AugAssign,
  AnnAssign,
  If,
  For,
  While,
  Break,
  Continue,
  Return,
  Pass,
  FunctionDef,
  Import,
  ImportFrom,
  Assert,
  Raise,
  Global,
  Unsupported,
};

struct Stmt {
  explicit Stmt(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
  virtual ~Stmt() = default;
  StmtKind kind;
  SourceLoc loc;
};
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct ExprStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::Expr;
  ExprStmt(SourceLoc l, ExprPtr v) : Stmt(Kind, l), value(std::move(v)) {}
  ExprPtr value;
};

/// `a = b = value`: several targets, one value.
struct AssignStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::Assign;
  AssignStmt(SourceLoc l) : Stmt(Kind, l) {}
  std::vector<ExprPtr> targets;
  ExprPtr value;
};

struct AugAssignStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::AugAssign;
  AugAssignStmt(SourceLoc l, ExprPtr t, BinOp o, ExprPtr v)
      : Stmt(Kind, l), target(std::move(t)), op(o), value(std::move(v)) {}
  ExprPtr target;
  BinOp op;
  ExprPtr value;
};

struct AnnAssignStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::AnnAssign;
  AnnAssignStmt(SourceLoc l) : Stmt(Kind, l) {}
  ExprPtr target, annotation, value; ///< value may be null
};

struct IfStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::If;
  IfStmt(SourceLoc l, ExprPtr t) : Stmt(Kind, l), test(std::move(t)) {}
  ExprPtr test;
  Block body, orelse; ///< `elif` is an IfStmt alone in orelse
};

struct ForStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::For;
  ForStmt(SourceLoc l) : Stmt(Kind, l) {}
  ExprPtr target, iter;
  Block body, orelse;
};

struct WhileStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::While;
  WhileStmt(SourceLoc l, ExprPtr t) : Stmt(Kind, l), test(std::move(t)) {}
  ExprPtr test;
  Block body, orelse;
};

struct BreakStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::Break;
  explicit BreakStmt(SourceLoc l) : Stmt(Kind, l) {}
};
struct ContinueStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::Continue;
  explicit ContinueStmt(SourceLoc l) : Stmt(Kind, l) {}
};
struct PassStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::Pass;
  explicit PassStmt(SourceLoc l) : Stmt(Kind, l) {}
};

struct ReturnStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::Return;
  ReturnStmt(SourceLoc l, ExprPtr v) : Stmt(Kind, l), value(std::move(v)) {}
  ExprPtr value; ///< may be null
};

struct AssertStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::Assert;
  AssertStmt(SourceLoc l) : Stmt(Kind, l) {}
  ExprPtr test, msg;
};

struct RaiseStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::Raise;
  RaiseStmt(SourceLoc l) : Stmt(Kind, l) {}
  ExprPtr exc; ///< may be null
};

struct GlobalStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::Global;
  GlobalStmt(SourceLoc l) : Stmt(Kind, l) {}
  std::vector<std::string> names;
};

struct Param {
  SourceLoc loc;
  std::string name;
  ExprPtr annotation;   ///< may be null
  ExprPtr defaultValue; ///< may be null
};

struct FunctionDefStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::FunctionDef;
  FunctionDefStmt(SourceLoc l) : Stmt(Kind, l) {}
  std::string name;
  SourceLoc nameLoc;
  std::vector<ExprPtr> decorators;
  std::vector<Param> params;
  ExprPtr returns; ///< annotation, may be null
  Block body;
};

struct ImportAlias {
  SourceLoc loc;
  std::string name;   ///< dotted module path or imported name
  std::string asname; ///< empty when no `as`
};

struct ImportStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::Import;
  ImportStmt(SourceLoc l) : Stmt(Kind, l) {}
  std::vector<ImportAlias> names;
};

struct ImportFromStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::ImportFrom;
  ImportFromStmt(SourceLoc l) : Stmt(Kind, l) {}
  std::string module;             ///< dotted
  int level = 0;                  ///< leading dots
  std::vector<ImportAlias> names; ///< `*` is a single alias named "*"
};

/// A module-level statement the parser could not read (host code that kernels never
/// see, e.g. a class or a comprehension). Kept so that a kernel referring to a name it
/// defines gets a precise error instead of an unknown name.
struct UnsupportedStmt : Stmt {
  static constexpr StmtKind Kind = StmtKind::Unsupported;
  UnsupportedStmt(SourceLoc l, SourceLoc at, std::string why)
      : Stmt(Kind, l), errorLoc(at), reason(std::move(why)) {}
  SourceLoc errorLoc; ///< where in the statement parsing failed
  std::string reason;
  bool jitFunction = false;            ///< a function decorated with cuda.jit (or cuda.reduce)
  std::vector<std::string> boundNames; ///< names it appears to assign, if any
};

struct Module {
  Block body;
  /// The depth of its deepest expression (freeing the tree recurses that deep).
  size_t deepestExpression = 0;
};

// ---------------------------------------------------------------------------------------------
// Kind-checked casts, in the spirit of llvm::dyn_cast.

template <class T> T *dyn(Expr *e) { return e && e->kind == T::Kind ? static_cast<T *>(e) : nullptr; }
template <class T> const T *dyn(const Expr *e) {
  return e && e->kind == T::Kind ? static_cast<const T *>(e) : nullptr;
}
template <class T> T *dyn(Stmt *s) { return s && s->kind == T::Kind ? static_cast<T *>(s) : nullptr; }
template <class T> const T *dyn(const Stmt *s) {
  return s && s->kind == T::Kind ? static_cast<const T *>(s) : nullptr;
}
/// `[a, b]` and `(a, b)` both answer to TupleExpr.
inline const TupleExpr *asTupleLike(const Expr *e) {
  return e && (e->kind == ExprKind::Tuple || e->kind == ExprKind::List) ? static_cast<const TupleExpr *>(e)
                                                                        : nullptr;
}

/// The object a method is called on: `x` in `x.bit_count()` (the callee is an attribute).
inline const Expr &methodReceiver(const CallExpr &c) {
  return *static_cast<const AttributeExpr &>(*c.func).value;
}

/// The object an attribute or a subscript is taken of: `r` in `r.x` and in `r["x"]`; null
/// for other expressions.
inline const Expr *accessedObject(const Expr &e) {
  if (auto *a = dyn<AttributeExpr>(&e))
    return a->value.get();
  if (auto *s = dyn<SubscriptExpr>(&e))
    return s->value.get();
  return nullptr;
}

/// The indices of `a[i, j]` (i and j) or `a[i]` (i), as written.
inline std::vector<const Expr *> subscriptIndices(const SubscriptExpr &s) {
  std::vector<const Expr *> idx;
  if (auto *t = dyn<TupleExpr>(s.index.get()))
    for (auto &e : t->elts)
      idx.push_back(e.get());
  else
    idx.push_back(s.index.get());
  return idx;
}

/// Prints the tree in an indented, Python-like form (`cutwin compile --dump-after=parse`).
void dumpModule(const Module &m, std::ostream &os);
std::string exprToString(const Expr &e);

} // namespace cutwin::fe
