// Typing statements: assignments (a local's type unifies its assignments as numba's do),
// stores into arrays, returns, conditions, and every statement kind.
#include "frontend/sema/function_typer.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/sema/variable_versions.h"

#include <algorithm>

namespace cutwin::fe {

void FunctionTyper::setLocal(const std::string &name, const Type &t, SourceLoc loc) {
  if (t.isUnknown())
    return;
  bool gridGroup = t.kind == TypeKind::Module && t.path == "cuda.cg.grid_group"; // g = cuda.cg.this_grid()
  if (t.kind != TypeKind::Scalar && t.kind != TypeKind::Array && t.kind != TypeKind::Tuple &&
      t.kind != TypeKind::Record && !t.isOptional() && !gridGroup && !isStaticType(t))
    error(loc, "cannot assign " + t.str() + " to variable '" + name + "'");
  if (t.isTuple())
    for (auto &e : t.elems)
      if (!e.isUnknown() && e.kind != TypeKind::Scalar && e.kind != TypeKind::Array &&
          e.kind != TypeKind::Tuple)
        error(loc, "cannot assign " + t.str() + " to variable '" + name + "'");
  Type &slot = spec_.locals[name];
  auto u = unify(slot, t);
  if (!u)
    error(loc, "variable '" + sourceName(name) + "' is assigned both " + slot.str() + " and " + t.str() +
                   ", which cannot be unified");
  if (*u != slot) {
    // Parameters keep their launch types: numba types a reassigned parameter by unifying
    // too, but cutwin keeps the ABI type stable and converts on assignment.
    slot = *u;
    changed_ = true;
  }
}

void FunctionTyper::assignTo(const Expr &target, const Type &value, SourceLoc loc) {
  if (auto *n = dyn<NameExpr>(&target)) {
    setLocal(n->id, value, loc);
    // Record the target's type for lowering (the variable's unified type).
    ExprInfo info;
    auto it = spec_.locals.find(n->id);
    info.type = it == spec_.locals.end() ? Type::unknown() : it->second;
    spec_.exprs[&target] = info;
    return;
  }
  if (auto *tup = asTupleLike(&target)) {
    if (value.isUnknown()) {
      for (auto &e : tup->elts)
        assignTo(*e, Type::unknown(), loc);
      return;
    }
    if (!value.isTuple())
      error(target.loc,
            "cannot unpack " + value.str() + " into " + std::to_string(tup->elts.size()) + " variables");
    if (value.elems.size() != tup->elts.size())
      error(target.loc, "cannot unpack a tuple of " + std::to_string(value.elems.size()) + " values into " +
                            std::to_string(tup->elts.size()) + " variables");
    for (size_t i = 0; i < tup->elts.size(); ++i)
      assignTo(*tup->elts[i], value.elems[i], loc);
    ExprInfo info;
    info.type = value;
    spec_.exprs[&target] = info;
    return;
  }
  if (auto *sub = dyn<SubscriptExpr>(&target)) {
    ExprInfo elem = typeExpr(target); // element type of the store
    if (elem.type.isUnknown() || value.isUnknown())
      return;
    ExprInfo base = typeExpr(*sub->value);
    if (base.type.isRecord() || elem.type.isRecord()) { // r["x"] = v, a[i] = r
      if (base.type.space == MemSpace::Const)
        error(target.loc, "cannot assign into a constant array: it is read-only in kernels");
      return checkRecordStore(value, elem.type, loc);
    }
    if (!base.type.isArray())
      error(target.loc, "cannot assign to an element of " + base.type.str() +
                            (base.type.isTuple() ? " (tuples are immutable)" : ""));
    if (base.type.space == MemSpace::Const)
      error(target.loc, "cannot assign to an element of a constant array (a global host array or "
                        "cuda.const.array_like): it is read-only in kernels");
    if (elem.type.isArray()) { // a view: filled with a number, or an array of its shape copied in
      if (value.isArray() && (value.ndim != elem.type.ndim || value.isRecordArray()))
        error(loc, "cannot assign a " + std::to_string(value.ndim) + "-dimensional array to a " +
                       std::to_string(elem.type.ndim) + "-dimensional slice");
      if (!value.isScalar() && !value.isArray())
        error(loc, "cannot store " + value.str() + " into a slice of " + scalarName(elem.type.scalar));
      if (value.isScalar() && isComplex(value.scalar) && !isComplex(elem.type.scalar))
        error(loc,
              "cannot store a complex number into an array of " + std::string(scalarName(elem.type.scalar)));
      return;
    }
    if (!value.isScalar())
      error(loc, "cannot store " + value.str() + " into an array of " + scalarName(elem.type.scalar));
    checkElementStore(value, elem.type, loc);
    return;
  }
  if (auto *attr = dyn<AttributeExpr>(&target)) {
    ExprInfo base = typeExpr(*attr->value);
    if (base.type.isRecord()) { // r.x = v
      if (base.type.space == MemSpace::Const)
        error(target.loc, "cannot assign into a constant array: it is read-only in kernels");
      ExprInfo field = typeExpr(target);
      if (!value.isUnknown())
        checkRecordStore(value, field.type, loc);
      return;
    }
    if (base.type.isUnknown())
      return;
  }
  if (target.kind == ExprKind::Attribute)
    error(target.loc,
          "cannot assign to attribute '" + static_cast<const AttributeExpr &>(target).attr + "' in a kernel");
  error(target.loc, "cannot assign to this expression");
}

void FunctionTyper::checkElementStore(const Type &value, const Type &element, SourceLoc loc) {
  // numba has no conversion from a complex number to a real one (it would drop a part).
  if (value.isScalar() && isComplex(value.scalar) && element.isScalar() && !isComplex(element.scalar))
    error(loc, "cannot store " + value.str() + " into an array of " + scalarName(element.scalar) +
                   ": a complex number has no conversion to a real type");
}

void FunctionTyper::noteReturn(const Type &returned, SourceLoc loc) {
  if (returned.kind == TypeKind::None) {
    sawBareReturn_ = true;
    return;
  }
  if (returned.isOptional())
    sawBareReturn_ = true; // returning an Optional may return None
  const Type &t = returned.isOptional() ? returned.elems[0] : returned;
  sawReturnValue_ = true;
  if (spec_.isKernel)
    error(loc, "kernels cannot return a value");
  if (t.isUnknown())
    return;
  if (declared_) {
    if (t.isScalar() && declared_->ret.isScalar())
      return;
    if (t != declared_->ret)
      error(loc, "returns " + t.str() + " but the signature declares " + declared_->ret.str());
    return;
  }
  if (t.isRecord() && t.space == MemSpace::Local)
    error(loc,
          "cannot return a record of a local array from a device function: the array ends with the call");
  if (t.kind != TypeKind::Scalar && t.kind != TypeKind::Tuple && t.kind != TypeKind::Array &&
      t.kind != TypeKind::Record)
    error(loc, "cannot return " + t.str() + " from a device function");
  auto u = unify(returnType_, t);
  if (!u)
    error(loc, "return type " + t.str() + " conflicts with an earlier return of " + returnType_.str());
  if (*u != returnType_) {
    returnType_ = *u;
    spec_.returnType = returnType_; // recursive calls see the returns typed so far
    changed_ = true;
  }
}

void FunctionTyper::typeBlock(const Block &b) {
  for (auto &s : b) {
    typeStmt(*s);
    // After a pruned `if` whose branch taken returns or raises, the rest of the block
    // cannot run: it is neither typed nor lowered (`if b is None: return ...` with b None).
    if (auto k = spec_.constantBranches.find(s.get()); k != spec_.constantBranches.end()) {
      auto &i = static_cast<const IfStmt &>(*s);
      if (alwaysReturns(k->second ? i.body : i.orelse))
        return;
    }
  }
}

void FunctionTyper::checkTruthTestable(const Type &t, SourceLoc loc) {
  if (t.isUnknown() || t.isScalar())
    return;
  if (t.isArray())
    error(loc, "the truth value of an array is ambiguous in a kernel; compare elements instead");
  if (t.kind == TypeKind::None)
    return;
  error(loc, "cannot use " + t.str() + " as a condition");
}

void FunctionTyper::typeStmt(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Expr: {
    auto &e = static_cast<const ExprStmt &>(s);
    if (auto *c = dyn<ConstantExpr>(e.value.get()); c && c->type == ConstantExpr::Type::Str)
      return; // docstring
    typeExpr(*e.value);
    return;
  }
  case StmtKind::Assign: {
    auto &a = static_cast<const AssignStmt &>(s);
    // A variable can hold an Optional (numba's `r = f()`); an element store needs the value.
    bool toNames = std::all_of(a.targets.begin(), a.targets.end(),
                               [](const ExprPtr &t) { return t->kind == ExprKind::Name; });
    ExprInfo v = toNames ? typeOptionalExpr(*a.value) : typeExpr(*a.value);
    if (v.type.kind == TypeKind::String && !toNames && !v.constant)
      error(a.value->loc, "only constant strings are stored into string arrays and fields in kernels");
    for (auto &t : a.targets)
      assignTo(*t, v.type, a.value->loc);
    return;
  }
  case StmtKind::AnnAssign: {
    auto &a = static_cast<const AnnAssignStmt &>(s);
    if (!a.value)
      return;
    ExprInfo v = typeExpr(*a.value);
    assignTo(*a.target, v.type, a.value->loc);
    return;
  }
  case StmtKind::AugAssign: {
    auto &a = static_cast<const AugAssignStmt &>(s);
    ExprInfo cur = typeExpr(*a.target);
    ExprInfo v = typeExpr(*a.value);
    ExprInfo r = typeBinary(a.op, cur.type, v.type, s.loc);
    spec_.augOps[&a] = r;
    if (auto *n = dyn<NameExpr>(a.target.get())) {
      setLocal(n->id, r.type, s.loc);
      ExprInfo tinfo;
      tinfo.type = spec_.locals[n->id];
      spec_.exprs[a.target.get()] = tinfo;
    } else if (const Expr *base = accessedObject(*a.target); base && typeExpr(*base).type.isRecord()) {
      if (!cur.type.isUnknown() && !cur.type.isScalar())
        error(a.target->loc, "augmented assignment needs a number; this is " + cur.type.str());
      if (typeExpr(*base).type.space == MemSpace::Const)
        error(a.target->loc, "cannot assign into a constant array: it is read-only in kernels");
      if (!r.type.isUnknown() && !cur.type.isUnknown())
        checkRecordStore(r.type, cur.type, s.loc);
    } else if (a.target->kind == ExprKind::Subscript) {
      if (!r.type.isUnknown() && !r.type.isScalar())
        error(s.loc, "cannot store " + r.type.str() + " into an array element");
      if (!r.type.isUnknown() && !cur.type.isUnknown())
        checkElementStore(r.type, cur.type, s.loc);
      if (typeExpr(*static_cast<const SubscriptExpr &>(*a.target).value).type.space == MemSpace::Const)
        error(a.target->loc, "cannot assign to an element of a constant array (a global host array or "
                             "cuda.const.array_like): it is read-only in kernels");
    } else {
      error(a.target->loc, "illegal target for augmented assignment");
    }
    return;
  }
  case StmtKind::If: {
    auto &i = static_cast<const IfStmt &>(s);
    ExprInfo test = typeExpr(*i.test);
    checkTruthTestable(test.type, i.test->loc);
    // only the branch taken (of calls, isinstance's: a type test numba decides when typing)
    bool typeTest = test.function && std::string_view(test.function->name) == "builtins.isinstance";
    if (test.constant && (i.test->kind != ExprKind::Call || typeTest)) {
      bool taken = truthy(*test.constant);
      spec_.constantBranches[&s] = taken;
      typeBlock(taken ? i.body : i.orelse);
      return;
    }
    spec_.constantBranches.erase(&s);
    typeBlock(i.body);
    typeBlock(i.orelse);
    return;
  }
  case StmtKind::While: {
    auto &w = static_cast<const WhileStmt &>(s);
    checkTruthTestable(typeExpr(*w.test).type, w.test->loc);
    ++loopDepth_;
    typeBlock(w.body);
    --loopDepth_;
    typeBlock(w.orelse);
    return;
  }
  case StmtKind::For: {
    auto &f = static_cast<const ForStmt &>(s);
    ExprInfo it = typeExpr(*f.iter);
    Type elem = it.type.isUnknown() ? Type::unknown() : iterElement(it.type, f.iter->loc);
    spec_.loopElements[&s] = elem;
    assignTo(*f.target, elem, f.target->loc);
    ++loopDepth_;
    typeBlock(f.body);
    --loopDepth_;
    typeBlock(f.orelse);
    return;
  }
  case StmtKind::Break:
  case StmtKind::Continue:
    if (loopDepth_ == 0)
      error(s.loc,
            std::string("'") + (s.kind == StmtKind::Break ? "break" : "continue") + "' outside a loop");
    return;
  case StmtKind::Pass: return;
  case StmtKind::Return: {
    auto &r = static_cast<const ReturnStmt &>(s);
    if (!r.value) {
      noteReturn(Type::none(), s.loc);
      return;
    }
    noteReturn((declared_ ? typeExpr(*r.value) : typeOptionalExpr(*r.value)).type, r.value->loc);
    return;
  }
  case StmtKind::Assert: {
    auto &a = static_cast<const AssertStmt &>(s);
    checkTruthTestable(typeExpr(*a.test).type, a.test->loc);
    if (a.msg) {
      auto *c = dyn<ConstantExpr>(a.msg.get());
      if (!c || c->type != ConstantExpr::Type::Str)
        error(a.msg->loc, "assert messages in kernels must be string literals");
    }
    return;
  }
  case StmtKind::Raise: {
    auto &r = static_cast<const RaiseStmt &>(s);
    if (!r.exc)
      error(s.loc, "a bare 'raise' is not supported in kernels");
    const Expr *cls = r.exc.get();
    if (auto *c = dyn<CallExpr>(cls)) {
      for (auto &a : c->args) { // literals, or names of constants (a global or closure string)
        ExprInfo ai = typeExpr(*a);
        bool ok = ai.constant &&
                  (ai.constant->kind == ConstValue::Kind::Str || ai.constant->kind == ConstValue::Kind::Int);
        if (!ok && (strict_ || !ai.type.isUnknown()))
          error(a->loc, "exception arguments in kernels must be constants (a string or an integer)");
      }
      cls = c->func.get();
    }
    if (!dyn<NameExpr>(cls))
      error(cls->loc, "raise an exception class by name, e.g. raise ValueError(\"...\")");
    return;
  }
  case StmtKind::Global: return;
  case StmtKind::FunctionDef: error(s.loc, "nested function definitions are not supported in kernels");
  case StmtKind::Import:
  case StmtKind::ImportFrom: error(s.loc, "imports inside kernels are not supported; import at module level");
  case StmtKind::Unsupported: error(s.loc, static_cast<const UnsupportedStmt &>(s).reason);
  }
}

} // namespace cutwin::fe
