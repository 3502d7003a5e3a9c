/// Internal to the typer: infers the types of one function specialisation. The driver is in
/// typer.cpp, statements in type_stmt.cpp, expressions in type_expr.cpp, calls in type_calls.cpp; builtins by
/// the registry's families (frontend/builtins/).
#pragma once

#include "frontend/builtins/builtin.h"
#include "frontend/sema/typer.h"
#include "frontend/sema/typing_context.h"

#include <map>
#include <set>

namespace cutwin::fe {

class FunctionTyper : public TypingContext {
public:
  FunctionTyper(Typer &typer, FunctionSpec &spec);
  /// Iterates to a fixed point, then a final strict pass records every expression's info.
  void run();

private:
  friend class Typer;
  // the driver (typer.cpp) and statements (type_stmt.cpp)
  /// Replaces the function's definition by a copy with its literal_unroll loops unrolled.
  void unrollLiteralLoops();
  void collectLocals(const Block &b);
  void collectTargetNames(const Expr &target);
  void typeBlock(const Block &b);
  void typeStmt(const Stmt &s);
  void assignTo(const Expr &target, const Type &value, SourceLoc loc);
  void setLocal(const std::string &name, const Type &t, SourceLoc loc);
  void noteReturn(const Type &t, SourceLoc loc);
  bool alwaysReturns(const Block &b) const;

  // expressions (type_expr.cpp)
  /// An expression's type and facts; an Optional is converted to its value (checked).
  ExprInfo typeExpr(const Expr &e) override;
  /// The same, keeping an Optional (assignment to variables, return, `is None`).
  ExprInfo typeOptionalExpr(const Expr &e);
  /// A store of `value` into an array element of type `element` (plain or augmented).
  void checkElementStore(const Type &value, const Type &element, SourceLoc loc);
  ExprInfo typeExprUncached(const Expr &e);
  ExprInfo typeName(const NameExpr &n);
  /// What a name (or a user module's attribute) the scope resolved is, as an expression.
  ExprInfo symbolInfo(const Symbol &s, SourceLoc loc);
  ExprInfo typeConstant(const ConstantExpr &c);
  ExprInfo typeBinOp(const BinOpExpr &b);
  ExprInfo typeBinary(BinOp op, const Type &l, const Type &r, SourceLoc loc) override;
  ExprInfo typeUnaryOp(const UnaryOpExpr &u);
  ExprInfo typeBoolOp(const BoolOpExpr &b);
  ExprInfo typeCompare(const CompareExpr &c);
  /// t[i:j:k] of a tuple `t` (typed `base`): the elements taken, a tuple.
  ExprInfo typeTupleSlice(const Type &t, const ExprInfo &base, const SliceExpr &slice);
  /// `f(a, *t)`: the call with `t`'s elements as arguments (spec_.expandedCalls), typed.
  ExprInfo typeExpandedCall(const CallExpr &c);
  /// Tuples compared for equality, element by element (nested tuples flattened): the scalar
  /// types each pair of elements is compared in.
  std::vector<Scalar> tupleEqualityTypes(const Type &a, const Type &b, const SourceLoc &loc);
  ExprInfo typeIfExp(const IfExpExpr &i);
  ExprInfo typeAttribute(const AttributeExpr &a);
  ExprInfo typeSubscript(const SubscriptExpr &s);
  // records (type_records.cpp)
  /// `r.name`, `r["name"]` or `r[k]` (k a constant position): the field's value.
  ExprInfo typeRecordField(const Type &record, const ConstValue &key, SourceLoc loc);
  /// A store into a record's field, or of a whole record (`a[i] = r`, `r.inner = s`).
  void checkRecordStore(const Type &value, const Type &target, SourceLoc loc);
  ExprInfo typeTuple(const TupleExpr &t);
  /// The compile-time integer an expression stands for (literal, global or constant
  /// parameter), if any.
  std::optional<int64_t> constInt(const Expr &e) override;
  /// The compile-time value of an expression over literals, globals and constant parameters.
  std::optional<ConstValue> constantOf(const Expr &e) override;
  void checkTruthTestable(const Type &t, SourceLoc loc) override;
  /// The type a for loop over a value of type `t` assigns its target: range elements,
  /// array elements (rows of a multi-dimensional array), a uniform tuple's elements,
  /// enumerate's (index, element) and zip's tuples. Errors for anything else.
  Type iterElement(const Type &t, SourceLoc loc) override;

  // calls (type_calls.cpp)
  ExprInfo typeCall(const CallExpr &c);
  /// A call of the registry's row `b` (its rule, which may hand the call to another row).
  ExprInfo typeBuiltinCall(const CallExpr &c, const std::vector<ExprInfo> &args, const Builtin &b);
  ExprInfo typeDeviceCall(const CallExpr &c, const ExprInfo &fn, const std::vector<ExprInfo> &args);
  ExprInfo typeForeignCall(const CallExpr &c, const ExprInfo &fn, const std::vector<ExprInfo> &args);
  std::vector<Scalar> scalarArgs(const CallExpr &c, const std::vector<ExprInfo> &args,
                                 const char *what) override;
  /// Errors unless a call of `fn` passes lo..hi arguments (`given`).
  void checkArity(const CallExpr &c, const std::string &fn, size_t given, size_t lo, size_t hi) override;

  [[noreturn]] void error(SourceLoc loc, const std::string &msg) const override { file_.error(loc, msg); }
  bool isRunTimeLocal(const std::string &name) const override {
    return localNames_.count(name) && !knownConstants_.count(name);
  }

  Typer &typer_;
  const ModuleScope &scope_;
  const SourceFile &file_;
  FunctionSpec &spec_;
  std::set<std::string> localNames_;
  std::set<std::string> globalNames_;
  std::set<std::string> assignedNames_;          ///< locals the body assigns (parameters included)
  std::map<std::string, int> assignCounts_;      ///< how many places assign each local
  std::vector<const AssignStmt *> plainAssigns_; ///< `name = value` statements, in source order
  /// Names that are compile-time constants: parameters that keep the constant their call
  /// passed (never assigned), and locals assigned once from a constant.
  std::map<std::string, ConstValue> knownConstants_;
  std::optional<Signature> declared_; ///< explicit signature of a device function
  Type returnType_;
  bool sawReturnValue_ = false;
  bool sawBareReturn_ = false;
  bool strict_ = false;
  bool changed_ = false;
  int loopDepth_ = 0;
};

} // namespace cutwin::fe
