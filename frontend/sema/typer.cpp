// Type inference: specialisations, the fixed-point driver, the locals a function binds.
#include "frontend/sema/typer.h"

#include "frontend/sema/function_typer.h"
#include "frontend/sema/literal_unroll.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/sema/use_before_assign.h"
#include "frontend/sema/variable_versions.h"

#include <algorithm>

namespace cutwin::fe {

const ExprInfo &FunctionSpec::info(const Expr &e) const {
  auto it = exprs.find(&e);
  if (it == exprs.end())
    throw Error("internal error: expression at line " + std::to_string(e.loc.line) + " was not typed");
  return it->second;
}

namespace {

bool sameConstants(const std::vector<std::optional<ConstValue>> &a,
                   const std::vector<std::optional<ConstValue>> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].has_value() != b[i].has_value() || (a[i] && a[i]->str() != b[i]->str()))
      return false;
  return true;
}

std::string mangledName(const FunctionSpec &s, size_t ordinal) {
  // Device functions of different scopes may share a name: their keys differ ("f@3").
  // "dev.f.3__f32": the name stands apart from the prefix and the scope (tools that look
  // for a function by its Python name, numba's tests among them, find it).
  std::string key = s.symbol->key;
  std::replace(key.begin(), key.end(), '@', '.');
  std::string n = (s.isKernel ? s.def->name : "dev." + key) + "__";
  for (size_t i = 0; i < s.argTypes.size(); ++i)
    n += (i ? "_" : "") + s.argTypes[i].mangle();
  for (auto &c : s.argConstants)
    if (c) // specialised on constant arguments: the ordinal tells them apart
      return n + "_k" + std::to_string(ordinal);
  return n;
}

} // namespace

Conversion argConversion(const Type &actual, const Type &formal) {
  if (actual.isScalar() && formal.isScalar())
    return canConvert(actual.scalar, formal.scalar);
  if (actual.isArray() && formal.isArray()) {
    if (actual.scalar != formal.scalar || actual.ndim != formal.ndim || actual.record != formal.record)
      return Conversion::None;
    if (formal.layout != Layout::A && actual.layout != formal.layout)
      return Conversion::None;
    return actual.layout == formal.layout ? Conversion::Exact : Conversion::Promote;
  }
  return actual == formal ? Conversion::Exact : Conversion::None;
}

std::vector<Type> kernelArgTypesFromSignature(const ModuleScope &scope, const Symbol &kernel,
                                              const Signature &sig) {
  if (sig.hasReturn && sig.ret.kind != TypeKind::None)
    scope.file().error(kernel.loc, "kernel '" + kernel.def->name +
                                       "' must return void, but its signature returns " + sig.ret.str());
  if (sig.args.size() != kernel.def->params.size())
    scope.file().error(
        kernel.loc, "kernel '" + kernel.def->name + "' takes " + std::to_string(kernel.def->params.size()) +
                        " arguments, but its signature has " + std::to_string(sig.args.size()));
  return sig.args;
}

const FunctionSpec &Typer::typeKernel(const std::string &name, const std::vector<Type> &argTypes) {
  const ModuleScope &scope = program_.primary();
  const Symbol *sym = scope.definedFunction(name);
  if (!sym) {
    if (const Symbol *s = scope.lookup(name); s && s->def)
      scope.file().error(s->loc, "'" + name + "' is not a @cuda.jit kernel");
    throw CompileError(scope.file().path(), {}, "no kernel named '" + name + "'",
                       scope.file().path() + ": error: no kernel named '" + name + "'");
  }
  if (sym->options.device)
    scope.file().error(sym->loc, "'" + name + "' is a device function (device=True), not a kernel");
  if (argTypes.size() != sym->def->params.size())
    throw Error("kernel '" + name + "' takes " + std::to_string(sym->def->params.size()) + " arguments, " +
                std::to_string(argTypes.size()) + " given");
  return specialize(*sym, argTypes, true);
}

bool isStaticType(const Type &t) {
  switch (t.kind) {
  case TypeKind::None: // a None argument (`b=None`): `b is None` decides at compile time
  case TypeKind::TypeObject:
  case TypeKind::Function:
  case TypeKind::DeviceFunction:
  case TypeKind::ForeignFunction: return true;
  case TypeKind::Module: return t.path != "cuda.cg.grid_group";
  case TypeKind::Unknown:
  case TypeKind::Scalar:
  case TypeKind::Array:
  case TypeKind::Tuple:
  case TypeKind::Range:
  case TypeKind::String:
  case TypeKind::Slice:
  case TypeKind::Iterator:
  case TypeKind::Optional:
  case TypeKind::Record: return false;
  }
  return false;
}

const FunctionSpec &Typer::typeDeviceFunction(const Symbol &fn, const SourceFile &file,
                                              const std::vector<Type> &argTypes, SourceLoc callLoc,
                                              const std::vector<std::optional<ConstValue>> &argConstants) {
  // A kernel called from a kernel compiles as a device function, as numba-cuda does; its
  // signatures' argument types still apply.
  if (argTypes.size() != fn.def->params.size())
    file.error(callLoc, "'" + fn.def->name + "' takes " + std::to_string(fn.def->params.size()) +
                            " arguments but " + std::to_string(argTypes.size()) + " were given");
  std::vector<Type> formal = argTypes;
  if (!fn.options.signatures.empty()) {
    // Pick the declared signature the arguments convert to best (numba's overload rating).
    std::optional<Signature> best;
    std::tuple<int, int, int> bestRate{};
    for (const SignatureDecl &s : fn.options.signatures) {
      Signature sig = fn.home->parseSignature(s);
      if (sig.args.size() != argTypes.size())
        continue;
      int unsafe = 0, safe = 0, promote = 0;
      bool ok = true;
      for (size_t i = 0; i < argTypes.size() && ok; ++i) {
        switch (argConversion(argTypes[i], sig.args[i])) {
        case Conversion::Exact: break;
        case Conversion::Promote: ++promote; break;
        case Conversion::Safe: ++safe; break;
        case Conversion::Unsafe: ++unsafe; break;
        case Conversion::None: ok = false; break;
        }
      }
      std::tuple<int, int, int> rate{unsafe, safe, promote};
      if (ok && (!best || rate < bestRate)) {
        best = sig;
        bestRate = rate;
      }
    }
    if (!best) {
      std::string got;
      for (size_t i = 0; i < argTypes.size(); ++i)
        got += (i ? ", " : "") + argTypes[i].str();
      file.error(callLoc, "no declared signature of '" + fn.def->name + "' accepts (" + got + ")");
    }
    formal = best->args;
  }
  // Constant arguments specialise only where the declared types are the arguments' own.
  // A recursive call does not specialise on constants (fib(10) would make a version per n).
  bool recursive = std::any_of(inProgress_.begin(), inProgress_.end(),
                               [&](const FunctionSpec *p) { return p->symbol->def == fn.def; });
  std::vector<std::optional<ConstValue>> constants(argTypes.size());
  for (size_t i = 0; i < argConstants.size() && i < argTypes.size() && !recursive; ++i)
    if (formal[i] == argTypes[i] && argConstants[i])
      constants[i] = argConstants[i];
  for (auto &spec : specs_)
    if (spec->symbol->def == fn.def && spec->argTypes == formal && !spec->isKernel &&
        sameConstants(spec->argConstants, constants))
      return *spec;
  // Self- or mutual recursion: the version being typed, its return type as far as its
  // typing has got (numba's rule: the non-recursive returns decide it).
  for (const FunctionSpec *p : inProgress_)
    if (p->symbol->def == fn.def && p->argTypes == formal && !p->isKernel &&
        sameConstants(p->argConstants, constants)) {
      p->calledRecursively = true;
      return *p;
    }
  return specialize(fn, formal, false, constants);
}

FunctionSpec &Typer::specialize(const Symbol &fn, const std::vector<Type> &argTypes, bool isKernel,
                                const std::vector<std::optional<ConstValue>> &argConstants) {
  for (auto &spec : specs_)
    if (spec->symbol->def == fn.def && spec->argTypes == argTypes && spec->isKernel == isKernel &&
        sameConstants(spec->argConstants, argConstants))
      return *spec;
  auto spec = std::make_unique<FunctionSpec>();
  spec->def = fn.def;
  spec->symbol = &fn;
  spec->isKernel = isKernel;
  spec->argTypes = argTypes;
  spec->argConstants = argConstants;
  spec->irName = mangledName(*spec, created_++);
  inProgress_.push_back(spec.get());
  struct Pop {
    std::vector<const FunctionSpec *> &v;
    ~Pop() { v.pop_back(); }
  } pop{inProgress_};
  FunctionTyper(*this, *spec).run();
  specs_.push_back(std::move(spec));
  return *specs_.back();
}

// ---------------------------------------------------------------------------------------------

FunctionTyper::FunctionTyper(Typer &typer, FunctionSpec &spec)
    : typer_(typer), scope_(spec.scope()), file_(spec.file()), spec_(spec) {}

void FunctionTyper::unrollLiteralLoops() {
  const FunctionDefStmt &def = *spec_.def;
  LiteralUnrollHooks hooks;
  hooks.isLiteralUnroll = [&](const CallExpr &c) {
    // Only a callee spelled literal_unroll can be it (typing another name here, before the
    // function's locals are known, could misread a local).
    auto *n = dyn<NameExpr>(c.func.get());
    auto *a = dyn<AttributeExpr>(c.func.get());
    if (!(n && n->id == "literal_unroll") && !(a && a->attr == "literal_unroll"))
      return false;
    return typeExpr(*c.func).type.path == "cuda.literal_unroll";
  };
  hooks.tupleLength = [&](const Expr &e) -> size_t {
    if (auto *t = asTupleLike(&e))
      return t->elts.size();
    if (auto *n = dyn<NameExpr>(&e))
      for (size_t i = 0; i < def.params.size(); ++i)
        if (def.params[i].name == n->id) {
          if (!spec_.argTypes[i].isTuple())
            error(e.loc, "literal_unroll() needs a tuple, not " + spec_.argTypes[i].str());
          return spec_.argTypes[i].elems.size();
        }
    if (auto v = constantOf(e); v && v->kind == ConstValue::Kind::Tuple)
      return v->elems.size();
    error(e.loc, "literal_unroll() needs a tuple whose length is known when the kernel compiles: a global, "
                 "an argument or a tuple written in place");
  };
  hooks.error = [&](SourceLoc loc, const std::string &message) { error(loc, message); };
  if ((spec_.unrolled = fe::unrollLiteralLoops(def, hooks)))
    spec_.def = spec_.unrolled.get();
}

void FunctionTyper::run() {
  unrollLiteralLoops();
  if ((spec_.versioned = splitVariableVersions(*spec_.def))) // numba's SSA versions
    spec_.def = spec_.versioned.get();
  const FunctionDefStmt &def = *spec_.def;
  for (size_t i = 0; i < def.params.size(); ++i) {
    const Type &t = spec_.argTypes[i];
    if (t.kind != TypeKind::Scalar && t.kind != TypeKind::Array && t.kind != TypeKind::Tuple &&
        t.kind != TypeKind::Record && (spec_.isKernel || !isStaticType(t)))
      error(def.params[i].loc, "parameter '" + def.params[i].name + "' cannot have type " + t.str());
    spec_.locals[def.params[i].name] = t;
    localNames_.insert(def.params[i].name);
  }
  if (!spec_.isKernel && !spec_.options().signatures.empty()) {
    for (const SignatureDecl &s : spec_.options().signatures) {
      Signature sig = scope_.parseSignature(s);
      if (sig.args == spec_.argTypes && sig.hasReturn) { // a bare argument tuple infers the result
        declared_ = sig;
        spec_.returnType = sig.ret; // what recursive calls return while the body is typed
        break;
      }
    }
  }
  collectLocals(def.body);
  checkUseBeforeAssignment(def, localNames_, file_);
  for (size_t i = 0; i < spec_.argConstants.size(); ++i)
    if (spec_.argConstants[i] && !assignedNames_.count(def.params[i].name))
      knownConstants_[def.params[i].name] = *spec_.argConstants[i];
  // A local assigned once, from a compile-time constant (`N = 128`, `SHAPE = (N, 4)`), is
  // that constant, as numba's constant propagation makes it (a shared array's shape).
  std::set<std::string> params;
  for (auto &p : def.params)
    params.insert(p.name);
  for (const AssignStmt *a : plainAssigns_) {
    const std::string &name = static_cast<const NameExpr &>(*a->targets[0]).id;
    if (assignCounts_[name] != 1 || params.count(name))
      continue;
    auto v = constantOf(*a->value);
    bool number = v && (v->kind == ConstValue::Kind::Int || v->kind == ConstValue::Kind::Float ||
                        v->kind == ConstValue::Kind::Bool);
    bool tuple = v && v->kind == ConstValue::Kind::Tuple &&
                 std::all_of(v->elems.begin(), v->elems.end(), [](const ConstValue &e) {
                   return e.kind == ConstValue::Kind::Int || e.kind == ConstValue::Kind::Float ||
                          e.kind == ConstValue::Kind::Bool;
                 });
    if (number || tuple)
      knownConstants_[name] = *v;
  }

  constexpr int kMaxIterations = 64;
  for (int it = 0;; ++it) {
    if (it == kMaxIterations)
      error(def.loc, "type inference of '" + def.name + "' did not converge");
    changed_ = false;
    sawReturnValue_ = sawBareReturn_ = false;
    typeBlock(def.body);
    if (!changed_)
      break;
  }
  strict_ = true;
  spec_.exprs.clear();
  spec_.augOps.clear();
  typeBlock(def.body);

  for (auto it = spec_.locals.begin(); it != spec_.locals.end();) {
    // A variable only a pruned branch assigns has no type and is never read (a read
    // would have been an error): it does not exist.
    if (it->second.isUnknown() && !spec_.constantBranches.empty()) {
      it = spec_.locals.erase(it);
      continue;
    }
    if (it->second.hasUnknown())
      error(def.loc, "the type of variable '" + it->first + "' in '" + def.name + "' cannot be inferred");
    ++it;
  }

  if (spec_.isKernel) {
    if (sawReturnValue_)
      error(def.loc, "kernel '" + def.name + "' must not return a value");
    spec_.returnType = Type::none();
    return;
  }
  if (declared_) {
    spec_.returnType = declared_->ret;
    if (spec_.returnType.kind != TypeKind::None && !alwaysReturns(def.body))
      error(def.loc, "device function '" + def.name + "' can reach its end without returning a value");
  } else if (sawReturnValue_ && (sawBareReturn_ || !alwaysReturns(def.body))) {
    // A value on some paths, None on others (a bare return, or falling off the end):
    // numba types the result Optional.
    if (spec_.calledRecursively)
      error(def.loc, "Return type of recursive function does not converge: '" + def.name +
                         "' returns None on some paths and calls itself");
    spec_.returnType = Type::optional(returnType_);
  } else if (sawReturnValue_) {
    spec_.returnType = returnType_;
  } else {
    spec_.returnType = Type::none();
  }
}

bool FunctionTyper::alwaysReturns(const Block &b) const {
  if (b.empty())
    return false;
  const Stmt &last = *b.back();
  if (last.kind == StmtKind::Return || last.kind == StmtKind::Raise)
    return true;
  if (auto *i = dyn<IfStmt>(&last)) {
    if (auto k = spec_.constantBranches.find(i); k != spec_.constantBranches.end())
      return alwaysReturns(k->second ? i->body : i->orelse);
    return alwaysReturns(i->body) && alwaysReturns(i->orelse);
  }
  if (auto *w = dyn<WhileStmt>(&last)) {
    // `while True:` without break only leaves through return.
    auto *c = dyn<ConstantExpr>(w->test.get());
    if (!c || c->type != ConstantExpr::Type::Bool || !c->boolValue)
      return false;
    std::function<bool(const Block &)> hasBreak = [&](const Block &blk) {
      for (auto &s : blk) {
        if (s->kind == StmtKind::Break)
          return true;
        if (auto *ii = dyn<IfStmt>(s.get()))
          if (hasBreak(ii->body) || hasBreak(ii->orelse))
            return true;
      }
      return false;
    };
    return !hasBreak(w->body);
  }
  return false;
}

void FunctionTyper::collectTargetNames(const Expr &t) {
  if (auto *n = dyn<NameExpr>(&t)) {
    if (globalNames_.count(n->id))
      error(n->loc, "assignment to global '" + n->id + "' is not supported in kernels");
    localNames_.insert(n->id);
    assignedNames_.insert(n->id);
    ++assignCounts_[n->id];
  } else if (auto *tup = asTupleLike(&t)) {
    for (auto &e : tup->elts)
      collectTargetNames(*e);
  } else if (auto *s = dyn<StarredExpr>(&t)) {
    error(s->loc, "starred assignment is not supported in kernels");
  }
}

void FunctionTyper::collectLocals(const Block &b) {
  for (auto &s : b) {
    switch (s->kind) {
    case StmtKind::Assign: {
      auto &a = static_cast<const AssignStmt &>(*s);
      for (auto &t : a.targets)
        collectTargetNames(*t);
      if (a.targets.size() == 1 && a.targets[0]->kind == ExprKind::Name)
        plainAssigns_.push_back(&a);
      break;
    }
    case StmtKind::AugAssign: collectTargetNames(*static_cast<const AugAssignStmt &>(*s).target); break;
    case StmtKind::AnnAssign: collectTargetNames(*static_cast<const AnnAssignStmt &>(*s).target); break;
    case StmtKind::For: {
      auto &f = static_cast<const ForStmt &>(*s);
      collectTargetNames(*f.target);
      collectLocals(f.body);
      collectLocals(f.orelse);
      break;
    }
    case StmtKind::While: {
      auto &w = static_cast<const WhileStmt &>(*s);
      collectLocals(w.body);
      collectLocals(w.orelse);
      break;
    }
    case StmtKind::If: {
      auto &i = static_cast<const IfStmt &>(*s);
      collectLocals(i.body);
      collectLocals(i.orelse);
      break;
    }
    case StmtKind::Global:
      for (auto &n : static_cast<const GlobalStmt &>(*s).names)
        globalNames_.insert(n);
      break;
    case StmtKind::Expr: // (no names bound)
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Return:
    case StmtKind::Pass:
    case StmtKind::FunctionDef:
    case StmtKind::Import:
    case StmtKind::ImportFrom:
    case StmtKind::Assert:
    case StmtKind::Raise:
    case StmtKind::Unsupported: break;
    }
  }
}

Type FunctionTyper::iterElement(const Type &t, SourceLoc loc) {
  switch (t.kind) {
  case TypeKind::Unknown: return t;
  case TypeKind::Range: return Type::scalarOf(t.scalar);
  case TypeKind::Array:
    if (t.isRecordArray() || t.pointer)
      break;
    if (t.ndim == 1)
      return Type::scalarOf(t.scalar);
    return Type::array(t.scalar, t.ndim - 1u, t.layout == Layout::C ? Layout::C : Layout::A, t.space);
  case TypeKind::Tuple:
    if (t.elems.empty())
      error(loc, "cannot iterate over an empty tuple in a kernel");
    if (!t.isUniTuple())
      error(loc, "cannot iterate over the heterogeneous tuple " + t.str() +
                     " (numba needs literal_unroll for that, which cutwin does not have)");
    return t.elems[0];
  case TypeKind::Iterator: {
    std::vector<Type> parts;
    if (t.path == "enumerate")
      parts.push_back(Type::scalarOf(Scalar::I64));
    for (const Type &e : t.elems) {
      Type et = iterElement(e, loc);
      if (et.isUnknown())
        return et;
      parts.push_back(et);
    }
    return Type::tuple(std::move(parts));
  }
  case TypeKind::None:
  case TypeKind::Scalar:
  case TypeKind::Module:
  case TypeKind::Function:
  case TypeKind::TypeObject:
  case TypeKind::DeviceFunction:
  case TypeKind::ForeignFunction:
  case TypeKind::String:
  case TypeKind::Slice:
  case TypeKind::Optional:
  case TypeKind::Record: break;
  }
  error(loc, "cannot iterate over " + t.str() +
                 " in a kernel (range, arrays, uniform tuples, enumerate and "
                 "zip can be)");
}

} // namespace cutwin::fe
