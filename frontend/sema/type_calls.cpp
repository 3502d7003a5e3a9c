// Type inference of calls: casts, device functions, cuda.*, math.*, Python builtins.
#include "frontend/builtins/builtin.h"
#include "frontend/sema/builtins.h"
#include "frontend/sema/function_typer.h"
#include "frontend/sema/numpy_ufuncs.h"
#include "frontend/sema/operator_module.h"
#include "frontend/sema/operator_rules.h"

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

ExprInfo FunctionTyper::typeCall(const CallExpr &c) {
  ExprInfo fn = typeExpr(*c.func);
  const std::string &path = fn.type.path;
  bool isAlloc =
      fn.type.kind == TypeKind::Function && (path == "cuda.shared.array" || path == "cuda.local.array");
  if (isAlloc)
    return typeArrayAlloc(c, path == "cuda.shared.array" ? MemSpace::Shared : MemSpace::Local);
  if (fn.type.kind == TypeKind::Function && path == "cuda.const.array_like") {
    // numba copies a global host array into constant memory; here every global host
    // array already is one, so this names the same constant.
    if (c.args.size() != 1 || !c.keywords.empty())
      error(c.loc, "cuda.const.array_like() takes one global array");
    ExprInfo a = typeExpr(*c.args[0]);
    if (!a.constant || a.constant->kind != ConstValue::Kind::Array)
      error(c.args[0]->loc, "cuda.const.array_like() needs a global NumPy array (known when the kernel is "
                            "compiled), got " +
                                a.type.str());
    ExprInfo info = a;
    info.builtin = "cuda.const.array_like";
    return info;
  }

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

  switch (fn.type.kind) {
  case TypeKind::TypeObject: {
    if (fn.type.typeObjectIsVoid)
      error(c.loc, "cannot call 'void'");
    if (args.size() != 1)
      error(c.loc, std::string(scalarName(fn.type.scalar)) + "() takes exactly one argument");
    scalarArgs(c, args, scalarName(fn.type.scalar));
    ExprInfo info;
    info.type = Type::scalarOf(fn.type.scalar);
    info.builtin = "cast";
    info.operandTypes = {fn.type.scalar};
    return info;
  }
  case TypeKind::DeviceFunction: return typeDeviceCall(c, fn, args);
  case TypeKind::ForeignFunction: return typeForeignCall(c, fn, args);
  case TypeKind::Function:
    if (path.rfind("math.", 0) == 0)
      return typeMathCall(c, path.substr(5), args);
    if (path.rfind("numpy.", 0) == 0)
      return typeUfuncCall(c, path.substr(6), args);
    if (path.rfind("cmath.", 0) == 0)
      return typeCmathCall(c, path.substr(6), args);
    if (path.rfind("cuda.libdevice.", 0) == 0)
      return typeLibdeviceCall(c, path.substr(15), args);
    if (path.rfind("operator.", 0) == 0)
      return typeOperatorCall(c, path.substr(9), args);
    return typeBuiltinCall(c, path, args);
  default: error(c.func->loc, "'" + exprToString(*c.func) + "' (" + fn.type.str() + ") is not callable");
  }
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
        !isStaticType(t))
      error(at, "cannot pass " + t.str() + " to device function '" + name + "'");
    types.push_back(t);
    // Only numbers and tuples of them, and not from calls: the info of an array or a call
    // may carry other compile-time facts (a shape, a call's dimension count).
    bool k = (t.isScalar() || t.isTuple()) && (!bound[i] || bound[i]->kind != ExprKind::Call) &&
             boundInfo[i].constant && specialisable(*boundInfo[i].constant, specialisable);
    constants.push_back(k ? boundInfo[i].constant : std::nullopt);
  }
  const FunctionSpec &callee = typer_.typeDeviceFunction(*sym, file_, types, c.loc, constants);
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
  info.builtin = "foreign." + fn.type.path;
  return info;
}

ExprInfo FunctionTyper::typeAtomicCall(const CallExpr &c, const std::string &op,
                                       const std::vector<ExprInfo> &args) {
  // numba's forms: op(ary, idx, val); cas(ary, idx, old, val); compare_and_swap(ary, old, val)
  // on element 0. The index is an integer or a tuple of one per dimension; values convert
  // to the array's type, and the element's old value is returned.
  std::string what = "cuda.atomic." + op + "()";
  bool cas = op == "cas", cas0 = op == "compare_and_swap";
  size_t arity = cas ? 4 : 3;
  if (args.size() != arity)
    error(c.loc,
          what + " takes " + std::to_string(arity) + " arguments, " + std::to_string(args.size()) + " given");
  const Type &at = args[0].type;
  if (!at.isArray() || at.isRecordArray() || at.pointer)
    error(c.args[0]->loc, what + " needs an array as its first argument, not " + at.str());
  if (at.space == MemSpace::Const)
    error(c.args[0]->loc, what + ": the array is read-only (constant memory)");
  S t = at.scalar;
  bool isInt = t == S::I32 || t == S::I64 || t == S::U32 || t == S::U64;
  bool isFloat = t == S::F32 || t == S::F64;
  bool ok = op == "add" || op == "sub" || op == "max" || op == "min" || op == "nanmax" || op == "nanmin"
                ? isInt || isFloat
            : op == "inc" || op == "dec" ? t == S::U32 || t == S::U64
                                         : isInt; // and_ or_ xor exch cas
  if (!ok)
    error(c.args[0]->loc, what + " does not support arrays of " + scalarName(t));
  ExprInfo info;
  info.builtin = "cuda.atomic." + op;
  info.type = Type::scalarOf(t);
  if (cas0) {
    if (at.ndim != 1)
      error(c.args[0]->loc, what + " works on element 0 of a 1-D array");
  } else {
    const Type &it = args[1].type;
    if (it.isScalar() && isInteger(it.scalar) && at.ndim == 1) {
      info.operandTypes.push_back(it.scalar);
    } else if (it.isTuple() && it.elems.size() == at.ndim) {
      for (auto &e : it.elems) {
        if (!e.isScalar() || !isInteger(e.scalar))
          error(c.args[1]->loc, what + ": indices must be integers, not " + e.str());
        info.operandTypes.push_back(e.scalar);
      }
    } else {
      error(c.args[1]->loc, what + ": the index of a " + std::to_string(at.ndim) +
                                "-D array is an integer per dimension, not " + it.str());
    }
  }
  for (size_t i = cas0 ? 1 : 2; i < args.size(); ++i) {
    if (!args[i].type.isScalar() || isComplex(args[i].type.scalar))
      error(c.args[i]->loc, what + ": values are numbers, not " + args[i].type.str());
    info.operandTypes.push_back(t);
  }
  return info;
}

ExprInfo FunctionTyper::typeOperatorCall(const CallExpr &c, const std::string &fn,
                                         const std::vector<ExprInfo> &args) {
  using K = OperatorFunction::Kind;
  const OperatorFunction &f = *operatorFunction(fn);
  size_t arity = f.kind == K::Binary || f.kind == K::Compare ? 2 : 1;
  if (args.size() != arity || !c.keywords.empty())
    error(c.loc, "operator." + fn + "() takes " + std::to_string(arity) + " positional argument" +
                     (arity == 1 ? "" : "s") + ", " + std::to_string(args.size()) + " given");
  for (auto &a : args)
    if (a.type.isUnknown())
      return ExprInfo{};
  ExprInfo info;
  switch (f.kind) {
  case K::Binary: info = typeBinary(f.bin, args[0].type, args[1].type, c.loc); break;
  case K::Compare: {
    if (!args[0].type.isScalar() || !args[1].type.isScalar())
      error(c.loc, "operator." + fn + "() compares numbers in kernels, not " + args[0].type.str() + " and " +
                       args[1].type.str());
    auto cs = fe::typeCompare(f.cmp, args[0].type.scalar, args[1].type.scalar);
    if (!cs)
      error(c.loc, "cannot compare '" + args[0].type.str() + "' and '" + args[1].type.str() + "'");
    info.operandTypes = cs->args;
    info.type = Type::scalarOf(Scalar::Bool);
    break;
  }
  case K::Unary: {
    if (!args[0].type.isScalar())
      error(c.loc, "operator." + fn + "() takes a number in kernels, not " + args[0].type.str());
    auto cs = fe::typeUnaryOp(f.unary, args[0].type.scalar);
    if (!cs)
      error(c.loc, "bad operand type for operator." + fn + "(): '" + args[0].type.str() + "'");
    info.operandTypes = cs->args;
    info.type = Type::scalarOf(cs->result);
    break;
  }
  case K::Not:
    checkTruthTestable(args[0].type, c.args[0]->loc);
    info.type = Type::scalarOf(Scalar::Bool);
    break;
  }
  info.builtin = "operator." + fn;
  return info;
}

ExprInfo FunctionTyper::typeLibdeviceCall(const CallExpr &c, const std::string &fn,
                                          const std::vector<ExprInfo> &args) {
  const ir::LibdeviceSignature *sig;
  try {
    sig = ir::libdeviceSignature(fn);
  } catch (const Error &e) {
    error(c.loc, std::string("libdevice.") + fn + "(): " + e.what());
  }
  if (!sig)
    error(c.func->loc, "numba.cuda.libdevice has no function '" + fn + "'");
  // The inputs convert to the declared types (numba's bindings have one signature each);
  // the value and the outputs come back, a tuple when there are several.
  ExprInfo info;
  info.builtin = "cuda.libdevice." + fn;
  std::vector<Type> results;
  if (sig->ret != ir::LibdeviceType::Void)
    results.push_back(Type::scalarOf(libdeviceScalar(sig->ret)));
  for (const ir::LibdeviceParam &p : sig->params) {
    if (p.output)
      results.push_back(Type::scalarOf(libdeviceScalar(p.type)));
    else
      info.operandTypes.push_back(libdeviceScalar(p.type));
  }
  std::string what = "libdevice." + fn;
  if (args.size() != info.operandTypes.size())
    error(c.loc, what + "() takes " + std::to_string(info.operandTypes.size()) + " argument" +
                     (info.operandTypes.size() == 1 ? "" : "s") + ", " + std::to_string(args.size()) +
                     " given");
  auto actual = scalarArgs(c, args, what.c_str());
  for (size_t i = 0; i < actual.size(); ++i)
    if (isComplex(actual[i]))
      error(c.args[i]->loc, what + "() argument " + std::to_string(i + 1) + " must be " +
                                scalarName(info.operandTypes[i]) + ", not " + scalarName(actual[i]));
  info.type = results.size() == 1 ? results[0] : results.empty() ? Type::none() : Type::tuple(results);
  return info;
}

ExprInfo FunctionTyper::typeCmathCall(const CallExpr &c, const std::string &fn,
                                      const std::vector<ExprInfo> &args) {
  // Real and integer arguments become complex128 (complex64 stays), as in numba.
  size_t arity = fn == "rect" || (fn == "log" && args.size() == 2) ? 2 : 1; // log(z, base)
  if (args.size() != arity)
    error(c.loc, "cmath." + fn + "() takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") +
                     ", " + std::to_string(args.size()) + " given");
  auto actual = scalarArgs(c, args, ("cmath." + fn).c_str());
  ExprInfo info;
  info.builtin = "cmath." + fn;
  if (fn == "rect") { // rect(r, phi): floats in, complex out
    S part = actual[0] == S::F32 && actual[1] == S::F32 ? S::F32 : S::F64;
    for (S a : actual)
      if (isComplex(a))
        error(c.loc, "cmath.rect() takes real numbers");
    info.operandTypes = {part, part};
    info.type = Type::scalarOf(complexOf(part));
    return info;
  }
  S z = actual[0] == S::C64 && (arity == 1 || actual[1] == S::C64 || actual[1] == S::F32) ? S::C64 : S::C128;
  info.operandTypes = std::vector<S>(arity, z);
  if (fn == "isnan" || fn == "isinf" || fn == "isfinite")
    info.type = Type::scalarOf(S::Bool);
  else if (fn == "phase")
    info.type = Type::scalarOf(partOf(z));
  else if (fn == "polar")
    info.type = Type::uniTuple(Type::scalarOf(partOf(z)), 2);
  else
    info.type = Type::scalarOf(z);
  return info;
}

ExprInfo FunctionTyper::typeMathCall(const CallExpr &c, const std::string &fn,
                                     const std::vector<ExprInfo> &args) {
  const MathFunction *m = mathFunction(fn);
  if (!m)
    error(c.loc, "math." + fn + " is not supported in kernels");
  if (args.size() != m->arity)
    error(c.loc, "math." + fn + "() takes " + std::to_string(m->arity) + " argument" +
                     (m->arity == 1 ? "" : "s") + ", " + std::to_string(args.size()) + " given");
  auto actual = scalarArgs(c, args, ("math." + fn).c_str());
  if (fn == "frexp" || fn == "ldexp" || fn == "modf") {
    // numba's float32 and float64 cases (integers as float64): libdevice's function of
    // that precision, its pointer results a tuple ((mantissa, exponent), (fraction, whole))
    if (isComplex(actual[0]) || (fn == "ldexp" && !isInteger(actual[1]) && actual[1] != Scalar::Bool))
      error(c.loc, "math." + fn + "() does not accept " + std::string(scalarName(actual[0])) +
                       (fn == "ldexp" ? std::string(", ") + scalarName(actual[1]) : std::string()));
    return typeLibdeviceCall(c, actual[0] == Scalar::F32 ? fn + "f" : fn, args);
  }
  auto cs = mathCase(fn, actual);
  if (!cs) {
    std::string got;
    for (size_t i = 0; i < actual.size(); ++i)
      got += std::string(i ? ", " : "") + scalarName(actual[i]);
    error(c.loc, "math." + fn + "() does not accept (" + got + ")");
  }
  ExprInfo info;
  info.type = Type::scalarOf(cs->result);
  info.builtin = "math." + fn;
  info.operandTypes = cs->args;
  return info;
}

ExprInfo FunctionTyper::typeUfuncCall(const CallExpr &c, const std::string &fn,
                                      const std::vector<ExprInfo> &args) {
  const Ufunc *u = numpyUfunc(fn);
  std::string what = "np." + fn + "()";
  if (args.size() != u->nin && args.size() != u->nin + 1)
    error(c.loc, what + " takes " + std::to_string(u->nin) + " input" + (u->nin == 1 ? "" : "s") +
                     " and optionally an output array, " + std::to_string(args.size()) + " given");
  bool withOut = args.size() == u->nin + 1;
  std::vector<Scalar> in;
  for (unsigned i = 0; i < u->nin; ++i) {
    const Type &t = args[i].type;
    if (t.isArray() && !t.isRecordArray() && withOut) {
      if (t.ndim != args.back().type.ndim)
        error(c.args[i]->loc, what + " input has " + std::to_string(t.ndim) + " dimensions, the output " +
                                  std::to_string(args.back().type.ndim));
      in.push_back(t.scalar);
    } else if (t.isScalar()) {
      in.push_back(t.scalar);
    } else {
      error(c.args[i]->loc, what +
                                (withOut ? " inputs must be arrays or numbers, not "
                                         : " on arrays needs the output array as its last argument; got ") +
                                t.str());
    }
  }
  if (withOut) {
    const Type &o = args.back().type;
    if (!o.isArray() || o.isRecordArray() || o.space == MemSpace::Const)
      error(c.args.back()->loc, what + " output must be a writable array, not " + o.str());
  }
  auto cs = ufuncCase(*u, in);
  if (!cs) {
    std::string got;
    for (size_t i = 0; i < in.size(); ++i)
      got += std::string(i ? ", " : "") + scalarName(in[i]);
    error(c.loc, what + " does not support (" + got + ")");
  }
  ExprInfo info;
  info.builtin = withOut ? "numpy.out." + fn : "numpy." + fn;
  info.operandTypes = cs->args;
  info.operandTypes.push_back(cs->result); // the loop's result scalar comes last
  info.type = withOut ? args.back().type : Type::scalarOf(cs->result);
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

ExprInfo FunctionTyper::typeBuiltinCall(const CallExpr &c, const std::string &fn,
                                        const std::vector<ExprInfo> &args) {
  if (const Builtin *b = findBuiltin(fn)) { // the registry's families (frontend/builtins/)
    ExprInfo info = (this->*b->type)(c, args, *b);
    info.builtin = fn;
    info.function = b;
    return info;
  }
  ExprInfo info;
  info.builtin = fn;
  auto arity = [&](size_t lo, size_t hi) { checkArity(c, fn, args.size(), lo, hi); };

  if (fn.rfind("cuda.random.", 0) == 0) {
    // (states, index[, seed]): states a 1-D RNG state array, index and seed integers.
    std::string name = fn.substr(12);
    bool init = name == "init_xoroshiro128p_state";
    arity(init ? 3 : 2, init ? 3 : 2);
    const Type &st = args[0].type;
    if (!st.isRecordArray() || st.ndim != 1)
      error(c.args[0]->loc,
            name + "() needs a 1-D array of RNG states (create_xoroshiro128p_states), got " + st.str());
    for (size_t i = 1; i < args.size(); ++i)
      if (!args[i].type.isInt())
        error(c.args[i]->loc,
              name + "() " + (i == 1 ? "index" : "seed") + " must be an integer, not " + args[i].type.str());
    for (size_t i = 1; i < args.size(); ++i)
      info.operandTypes.push_back(args[i].type.scalar);
    if (name == "xoroshiro128p_next")
      info.type = Type::scalarOf(S::U64);
    else if (name.find("float32") != std::string::npos)
      info.type = Type::scalarOf(S::F32);
    else if (name.find("float64") != std::string::npos)
      info.type = Type::scalarOf(S::F64);
    else
      info.type = Type::none();
    return info;
  }
  if (fn == "cuda.jit")
    error(c.loc, "cuda.jit cannot be used inside a kernel");

  if (fn == "builtins.range") {
    arity(1, 3);
    auto actual = scalarArgs(c, args, "range");
    for (size_t i = 0; i < actual.size(); ++i)
      if (!isInteger(actual[i]) && actual[i] != S::Bool)
        error(c.args[i]->loc,
              std::string("range() arguments must be integers, not ") + scalarName(actual[i]));
    std::vector<ScalarCase> cases;
    for (S t : {S::I32, S::I64, S::U64})
      cases.push_back({std::vector<S>(actual.size(), t), t});
    auto cs = resolveOverload(cases, actual);
    if (!cs)
      error(c.loc, "range() arguments cannot be combined");
    if (args.size() == 3)
      if (auto step = constInt(*c.args[2]); step && *step == 0)
        error(c.args[2]->loc, "range() step must not be zero");
    info.type = Type::range(cs->result);
    info.operandTypes = cs->args;
    return info;
  }
  if (fn == "builtins.enumerate" || fn == "builtins.zip") {
    // Iterators of for loops: the element type is the loop's (iterElement).
    bool isEnum = fn == "builtins.enumerate";
    if (isEnum)
      arity(1, 2);
    else if (args.empty())
      error(c.loc, "zip() needs at least one iterable in kernels");
    Type it = Type::make(TypeKind::Iterator);
    it.path = isEnum ? "enumerate" : "zip";
    for (size_t i = 0; i < (isEnum ? 1 : args.size()); ++i) {
      iterElement(args[i].type, c.args[i]->loc); // checks it is iterable
      it.elems.push_back(args[i].type);
    }
    if (isEnum && args.size() == 2 && !args[1].type.isInt())
      error(c.args[1]->loc, "enumerate()'s start must be an integer, not " + args[1].type.str());
    info.type = it;
    return info;
  }
  if (fn == "builtins.print") { // numba's vprintf formats: %lld/%llu for integers, %f for floats
    std::function<bool(const Type &)> printable = [&](const Type &t) {
      if (t.kind == TypeKind::String)
        return true;
      if (t.isScalar())
        return !isComplex(t.scalar);
      if (t.isTuple()) {
        for (auto &e : t.elems)
          if (!printable(e))
            return false;
        return true;
      }
      return false;
    };
    for (size_t i = 0; i < args.size(); ++i)
      if (!printable(args[i].type))
        error(c.args[i]->loc, "print() in a kernel takes strings, integers, floats, booleans and tuples of "
                              "them, not " +
                                  args[i].type.str());
    info.type = Type::none();
    return info;
  }
  if (fn.rfind("cuda.atomic.", 0) == 0)
    return typeAtomicCall(c, fn.substr(12), args);
  if (isWarpFunction(fn))
    return typeWarpCall(c, fn, args);
  if (fn == "builtins.int" || fn == "builtins.float" || fn == "builtins.bool") {
    // numba: int() keeps integer types and makes floats int64; float() keeps float types
    // and makes integers float64.
    arity(1, 1);
    std::string name = fn.substr(9);
    S a = scalarArgs(c, args, name.c_str())[0];
    S r = name == "bool" ? S::Bool : name == "int" ? (isInteger(a) ? a : S::I64) : (isFloat(a) ? a : S::F64);
    info.type = Type::scalarOf(r);
    info.builtin = "cast";
    info.operandTypes = {r};
    return info;
  }
  error(c.loc, "'" + fn.substr(fn.find('.') + 1) + "' is not supported in kernels");
}

ExprInfo FunctionTyper::typeArrayAlloc(const CallExpr &c, MemSpace space) {
  const char *what = space == MemSpace::Shared ? "cuda.shared.array" : "cuda.local.array";
  const Expr *shape = nullptr, *dtype = nullptr, *alignment = nullptr;
  if (c.args.size() > 3)
    error(c.loc, std::string(what) + "() takes a shape, a dtype and an alignment");
  if (c.args.size() > 2)
    alignment = c.args[2].get();
  if (c.args.size() > 0)
    shape = c.args[0].get();
  if (c.args.size() > 1)
    dtype = c.args[1].get();
  for (auto &k : c.keywords) {
    if (k.name == "shape" && !shape)
      shape = k.value.get();
    else if (k.name == "dtype" && !dtype)
      dtype = k.value.get();
    else if (k.name == "alignment")
      alignment = k.value.get();
    else
      error(k.loc, std::string(what) + "() got an unexpected keyword argument '" + k.name + "'");
  }
  if (!shape || !dtype)
    error(c.loc, std::string(what) + "() needs a shape and a dtype");

  ConstValue dims;
  dims.kind = ConstValue::Kind::Tuple;
  auto shapeVal = [&]() -> std::optional<ConstValue> {
    // Locals are never compile-time constants: numba requires literals or globals.
    if (auto n = constInt(*shape))
      return ConstValue::ofInt(*n);
    if (auto *t = asTupleLike(shape)) {
      ConstValue tv;
      tv.kind = ConstValue::Kind::Tuple;
      for (auto &e : t->elts) {
        auto n = constInt(*e);
        if (!n)
          return std::nullopt;
        tv.elems.push_back(ConstValue::ofInt(*n));
      }
      return tv;
    }
    if (auto *nm = dyn<NameExpr>(shape); nm && (!localNames_.count(nm->id) || knownConstants_.count(nm->id)))
      if (auto v = constantOf(*shape); v && v->kind == ConstValue::Kind::Tuple)
        return v;
    return std::nullopt;
  }();
  if (!shapeVal)
    error(shape->loc, std::string(what) +
                          "() shape must be a constant integer or tuple of integers (a literal or "
                          "a module-level constant)");
  if (shapeVal->kind == ConstValue::Kind::Int)
    dims.elems.push_back(*shapeVal);
  else
    dims = *shapeVal;
  if (dims.elems.empty() || dims.elems.size() > 3)
    error(shape->loc, std::string(what) + "() supports 1 to 3 dimensions");
  for (auto &d : dims.elems) {
    if (d.kind != ConstValue::Kind::Int)
      error(shape->loc, std::string(what) + "() shape entries must be integers");
    if (d.i < 0 || (d.i == 0 && (space != MemSpace::Shared || dims.elems.size() != 1)))
      error(shape->loc, std::string(what) + "() dimensions must be positive, got " + std::to_string(d.i));
  }
  ExprInfo dt = typeExpr(*dtype);
  if (dt.type.kind != TypeKind::TypeObject || dt.type.typeObjectIsVoid)
    error(dtype->loc, std::string(what) + "() dtype must be a numba or NumPy scalar type such as "
                                          "float32 or np.int32");
  ExprInfo info;
  info.type = Type::array(dt.type.scalar, unsigned(dims.elems.size()), Layout::C, space);
  info.constant = dims;
  info.builtin = space == MemSpace::Shared ? "cuda.shared.array" : "cuda.local.array";
  if (alignment) { // numba: a power of two, and a multiple of the element size
    auto a = constInt(*alignment);
    uint64_t item = byteSize(dt.type.scalar);
    if (!a || *a <= 0 || (*a & (*a - 1)) != 0)
      error(alignment->loc, std::string(what) + "() alignment must be a constant power of two");
    if (uint64_t(*a) % item != 0)
      error(alignment->loc, std::string(what) + "() alignment " + std::to_string(*a) +
                                " is not a multiple of the element size " + std::to_string(item));
    info.alignment = uint32_t(*a);
  }
  return info;
}

} // namespace cutwin::fe
