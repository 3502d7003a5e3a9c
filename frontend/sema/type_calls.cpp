// Type inference of calls: casts, device functions, cuda.*, math.*, Python builtins.
#include "frontend/builtins/builtin.h"
#include "frontend/sema/builtins.h"
#include "frontend/sema/function_typer.h"
#include "frontend/sema/operator_rules.h"
#include "frontend/syntax/ast_clone.h"

#include <functional>

namespace cutwin::fe {

using S = Scalar;

std::vector<Scalar> FunctionTyper::scalarArgs(const CallExpr &c, const std::vector<ExprInfo> &args,
                                              const char *what) {
  std::vector<Scalar> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].type.isScalar())
      error(c.args[i]->loc, std::string(what) + "() argument must be a number, not " + args[i].type.str());
    out.push_back(args[i].type.scalar);
  }
  return out;
}

ExprInfo FunctionTyper::typeExpandedCall(const CallExpr &c) {
  size_t count = 0; // the arguments once the tuples are unpacked
  for (auto &a : c.args) {
    auto *s = dyn<StarredExpr>(a.get());
    if (!s) {
      ++count;
      continue;
    }
    Type t = typeExpr(*s->value).type;
    if (t.isUnknown())
      return {};
    if (!t.isTuple())
      error(s->loc, "argument unpacking ('*') in kernels takes a tuple, not " + t.str());
    count += t.elems.size();
  }
  std::unique_ptr<CallExpr> &expanded = spec_.expandedCalls[&c];
  if (!expanded) { // (made once: its nodes key their types)
    expanded = std::make_unique<CallExpr>(c.loc, cloneExpr(*c.func));
    for (auto &a : c.args) {
      auto *s = dyn<StarredExpr>(a.get());
      if (!s) {
        expanded->args.push_back(cloneExpr(*a));
        continue;
      }
      for (unsigned k = 0; k < spec_.info(*s->value).type.elems.size(); ++k)
        expanded->args.push_back(std::make_unique<StarElementExpr>(s->value->loc, s->value.get(), k));
    }
    for (auto &k : c.keywords)
      expanded->keywords.push_back({k.loc, k.name, cloneExpr(*k.value)});
  } else if (count != expanded->args.size()) {
    error(c.loc, "the tuple unpacked into this call changes its length while the function is typed");
  }
  ExprInfo info = typeExpr(*expanded); // (its own ExprInfo, which lowering reads)
  if (info.function && (!info.function->lower || info.function->rawArguments))
    error(c.loc,
          std::string("argument unpacking ('*') is not supported in calls of '") + info.function->name + "'");
  return info;
}

ExprInfo FunctionTyper::typeCall(const CallExpr &c) {
  for (auto &a : c.args)
    if (a->kind == ExprKind::Starred)
      return typeExpandedCall(c);
  ExprInfo fn = typeExpr(*c.func);
  // A builtin is a row of the registry (frontend/builtins/); a type object's call is the
  // conversions family's row for it.
  const Builtin *builtin = fn.type.kind == TypeKind::Function     ? findBuiltin(fn.type.path)
                           : fn.type.kind == TypeKind::TypeObject ? findBuiltin("scalar.type_object_call")
                                                                  : nullptr;
  if (builtin && builtin->rawArguments)
    return typeBuiltinCall(c, {}, *builtin);
  std::vector<ExprInfo> args;
  bool unknown = fn.type.isUnknown();
  for (auto &a : c.args) {
    args.push_back(typeExpr(*a));
    unknown = unknown || args.back().type.isUnknown();
  }
  for (auto &k : c.keywords) { // device functions take them by parameter name
    if (fn.type.kind != TypeKind::DeviceFunction && !fn.type.isUnknown())
      error(k.loc, "keyword arguments are not supported in this call");
    unknown = typeExpr(*k.value).type.isUnknown() || unknown;
  }
  if (unknown)
    return {};
  if (builtin)
    return typeBuiltinCall(c, args, *builtin);

  const std::string &path = fn.type.path;
  switch (fn.type.kind) {
  case TypeKind::DeviceFunction: return typeDeviceCall(c, fn, args);
  case TypeKind::ForeignFunction: return typeForeignCall(c, fn, args);
  case TypeKind::Function:
    if (path == "cuda.jit")
      error(c.loc, "cuda.jit cannot be used inside a kernel");
    error(c.loc, "'" + path.substr(path.find('.') + 1) + "' is not supported in kernels");
  case TypeKind::Unknown:
  case TypeKind::None:
  case TypeKind::Scalar:
  case TypeKind::Array:
  case TypeKind::Tuple:
  case TypeKind::Range:
  case TypeKind::Module:
  case TypeKind::TypeObject:
  case TypeKind::String:
  case TypeKind::Slice:
  case TypeKind::Iterator:
  case TypeKind::Optional:
  case TypeKind::Record: break;
  }
  error(c.func->loc, "'" + exprToString(*c.func) + "' (" + fn.type.str() + ") is not callable");
}

ExprInfo FunctionTyper::typeBuiltinCall(const CallExpr &c, const std::vector<ExprInfo> &args,
                                        const Builtin &b) {
  ExprInfo info = b.type(*this, c, args, b);
  if (!info.function) // a rule may hand the call to another row (math.frexp: libdevice's frexpf)
    info.function = &b;
  return info;
}

ExprInfo FunctionTyper::typeDeviceCall(const CallExpr &c, const ExprInfo &fn,
                                       const std::vector<ExprInfo> &args) {
  const Symbol *sym = typer_.program().function(fn.type.path);
  if (!sym)
    throw Error("internal error: no definition of device function '" + fn.type.path + "'");
  // Bind the call's arguments to the parameters: positional, then by keyword, then the
  // parameters' defaults (compile-time constants of the callee's module).
  const auto &params = sym->def->params;
  std::string name = displayName(fn.type.path);
  if (c.args.size() > params.size())
    error(c.loc, "'" + name + "' takes " + std::to_string(params.size()) + " arguments but " +
                     std::to_string(c.args.size()) + " were given");
  std::vector<const Expr *> bound(params.size(), nullptr);
  std::vector<ExprInfo> boundInfo(params.size());
  for (size_t i = 0; i < c.args.size(); ++i) {
    bound[i] = c.args[i].get();
    boundInfo[i] = args[i];
  }
  for (auto &k : c.keywords) {
    size_t p = 0;
    while (p < params.size() && params[p].name != k.name)
      ++p;
    if (p == params.size())
      error(k.loc, "'" + name + "' has no parameter '" + k.name + "'");
    if (bound[p])
      error(k.loc, "'" + name + "' got multiple values for parameter '" + k.name + "'");
    bound[p] = k.value.get();
    boundInfo[p] = typeExpr(*k.value);
  }
  std::vector<std::optional<ConstValue>> defaults(params.size());
  for (size_t p = 0; p < params.size(); ++p) {
    if (bound[p])
      continue;
    if (!params[p].defaultValue)
      error(c.loc, "'" + name + "' is missing an argument for parameter '" + params[p].name + "'");
    auto d = sym->defaults.find(params[p].name);
    auto v = d != sym->defaults.end() ? std::optional<ConstValue>(d->second)
                                      : sym->home->evalConstant(*params[p].defaultValue);
    if (!v)
      sym->home->file().error(params[p].defaultValue->loc,
                              "a device function's default argument must be a compile-time constant");
    defaults[p] = v;
    boundInfo[p].type = v->kind == ConstValue::Kind::None ? Type::none() : v->type();
    boundInfo[p].constant = v;
  }

  std::vector<Type> types;
  std::vector<std::optional<ConstValue>> constants;
  auto specialisable = [](const ConstValue &v, auto &self) -> bool {
    if (v.kind == ConstValue::Kind::Int || v.kind == ConstValue::Kind::Bool)
      return true;
    if (v.kind != ConstValue::Kind::Tuple)
      return false;
    for (auto &e : v.elems)
      if (!self(e, self))
        return false;
    return true;
  };
  for (size_t i = 0; i < params.size(); ++i) {
    const Type &t = boundInfo[i].type;
    SourceLoc at = bound[i] ? bound[i]->loc : c.loc;
    if (t.kind != TypeKind::Scalar && t.kind != TypeKind::Array && t.kind != TypeKind::Tuple &&
        t.kind != TypeKind::Record && !isStaticType(t))
      error(at, "cannot pass " + t.str() + " to device function '" + name + "'");
    types.push_back(t);
    // Only numbers and tuples of them, and not from calls: the info of an array or a call
    // may carry other compile-time facts (a shape, a call's dimension count).
    bool k = (t.isScalar() || t.isTuple()) && (!bound[i] || bound[i]->kind != ExprKind::Call) &&
             boundInfo[i].constant && specialisable(*boundInfo[i].constant, specialisable);
    constants.push_back(k ? boundInfo[i].constant : std::nullopt);
  }
  const FunctionSpec &callee = typer_.typeDeviceFunction(*sym, file_, types, c.loc, constants);
  if (strict_ && callee.returnType.isUnknown()) { // only a recursive call can return nothing typed yet
    if (&callee == &spec_ && sawBareReturn_)      // numba would grow an Optional without end
      error(c.loc, "Return type of recursive function does not converge: '" + sym->def->name +
                       "' returns None on some paths and a value made from its own result on others");
    error(c.loc, "cannot type infer runaway recursion: no return of '" + sym->def->name +
                     "' gives a value without calling itself");
  }
  ExprInfo info;
  info.type = callee.returnType;
  info.callee = &callee;
  info.boundArgs = bound;
  info.boundDefaults = defaults;
  return info;
}

ExprInfo FunctionTyper::typeForeignCall(const CallExpr &c, const ExprInfo &fn,
                                        const std::vector<ExprInfo> &args) {
  const Symbol *sym = typer_.program().function(fn.type.path);
  const Signature &sig = sym->foreignSignature;
  if (args.size() != sig.args.size())
    error(c.loc, "foreign device function '" + displayName(fn.type.path) + "' takes " +
                     std::to_string(sig.args.size()) + " arguments, " + std::to_string(args.size()) +
                     " given");
  for (size_t i = 0; i < args.size(); ++i) {
    const Type &want = sig.args[i], &got = args[i].type;
    bool ok = want.pointer ? got.isArray() && got.scalar == want.scalar && got.record == want.record
                           : got.isScalar();
    if (!ok)
      error(c.args[i]->loc, "argument " + std::to_string(i + 1) + " of foreign device function '" +
                                displayName(fn.type.path) + "' must be " + want.str() + ", not " + got.str());
  }
  ExprInfo info;
  info.type = sig.ret;
  info.foreign = sym;
  return info;
}

void FunctionTyper::checkArity(const CallExpr &c, const std::string &fn, size_t given, size_t lo, size_t hi) {
  if (given >= lo && given <= hi)
    return;
  std::string name = fn.substr(fn.find('.') + 1);
  error(c.loc, name + "() takes " +
                   (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                   " argument" + (hi == 1 ? "" : "s") + ", " + std::to_string(given) + " given");
}

} // namespace cutwin::fe
