#include "frontend/sema/module_scope.h"

#include "frontend/ir/sanitize_checks.h"
#include "frontend/sema/const_array.h"

#include <algorithm>

namespace cutwin::fe {

ModuleScope::ModuleScope(std::shared_ptr<const SourceFile> file, std::shared_ptr<const Module> module,
                         const HostBindings &host)
    : file_(std::move(file)), module_(std::move(module)), host_(host) {
  for (auto &[name, value] : host_.constants) {
    Symbol s;
    s.kind = Symbol::Kind::Constant;
    s.value = value;
    symbols_[name] = s;
  }
  for (auto &stmt : module_->body) {
    switch (stmt->kind) {
    case StmtKind::Import: readImport(static_cast<const ImportStmt &>(*stmt)); break;
    case StmtKind::ImportFrom: readImportFrom(static_cast<const ImportFromStmt &>(*stmt)); break;
    case StmtKind::Assign: readAssign(static_cast<const AssignStmt &>(*stmt)); break;
    case StmtKind::FunctionDef: readFunction(static_cast<const FunctionDefStmt &>(*stmt)); break;
    case StmtKind::Unsupported: {
      auto &u = static_cast<const UnsupportedStmt &>(*stmt);
      for (auto &n : u.boundNames) {
        Symbol s;
        s.loc = u.loc;
        s.reason = u.jitFunction
                       ? "'" + n + "' cannot be compiled: " + u.reason + " (" + file_->path() + ":" +
                             std::to_string(u.errorLoc.line) + ")"
                       : "'" + n + "' is defined by host code that kernels cannot use (" + u.reason + ")";
        if (u.jitFunction)
          s.unparsed = &u;
        bind(n, s);
      }
      break;
    }
    // Host statements (if __name__ == ..., prints, loops) are not evaluated.
    case StmtKind::Expr:
    case StmtKind::AugAssign:
    case StmtKind::AnnAssign:
    case StmtKind::If:
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Return:
    case StmtKind::Pass:
    case StmtKind::Assert:
    case StmtKind::Raise:
    case StmtKind::Global: break;
    }
  }
  for (auto &[name, opts] : host_.functions)
    if (!jitFunction(name) && !(lookup(name) && lookup(name)->unparsed)) // (reported when asked for)
      throw Error("'" + name + "' is not a function defined at the top level of " + file_->path());
}

ModuleScope::ModuleScope(std::shared_ptr<const SourceFile> file, std::shared_ptr<const Module> module,
                         const HostUnit &unit)
    : file_(std::move(file)), module_(std::move(module)) {
  for (auto &[name, b] : unit.names)
    symbols_[name] = fromBinding(name, b, unit.key);
  const FunctionDefStmt *def = nullptr;
  for (auto &stmt : module_->body)
    if (stmt->kind == StmtKind::FunctionDef &&
        static_cast<const FunctionDefStmt &>(*stmt).name == unit.function)
      def = static_cast<const FunctionDefStmt *>(stmt.get());
  if (!def) {
    // The host's source of a jitted function has no decorator, so the parser read it as a
    // host statement and, unable to parse it, kept why: that is this function's error.
    for (auto &stmt : module_->body)
      if (stmt->kind == StmtKind::Unsupported) {
        auto &u = static_cast<const UnsupportedStmt &>(*stmt);
        if (std::find(u.boundNames.begin(), u.boundNames.end(), unit.function) != u.boundNames.end())
          file_->error(u.errorLoc, u.reason);
      }
    throw Error("internal error: the source given for '" + unit.function + "' (" + file_->path() +
                ") does not define it");
  }
  Symbol self;
  self.kind = Symbol::Kind::JitFunction;
  self.loc = def->nameLoc;
  self.def = def;
  self.key = unit.key;
  self.home = this;
  self.options = unit.options;
  self.defaults = unit.defaults;
  for (SignatureDecl &sig : self.options.signatures)
    sig.loc = def->nameLoc;
  // The function's own name means what its globals say (usually itself); the definition
  // is registered under its key either way.
  ownKey_ = unit.key;
  std::string ownName = "\x01" + unit.key; // not a Python name: never looked up by name
  symbols_[ownName] = self;
  if (!self.options.device)
    jitOrder_.push_back(ownName);
  if (!symbols_.count(unit.function)) {
    Symbol ref = self;
    symbols_[unit.function] = ref;
  }
}

const Symbol *ModuleScope::namespaceMember(const std::string &path, const std::string &attr) const {
  auto ns = namespaces_.find(path);
  if (ns == namespaces_.end())
    return nullptr;
  auto it = ns->second.find(attr);
  return it == ns->second.end() ? nullptr : &it->second;
}

const Symbol *ModuleScope::lookup(const std::string &name) const {
  auto it = symbols_.find(name);
  return it == symbols_.end() ? nullptr : &it->second;
}

const Symbol *ModuleScope::jitFunction(const std::string &name) const {
  const Symbol *s = lookup(name);
  return s && s->kind == Symbol::Kind::JitFunction ? s : nullptr;
}

std::vector<std::string> ModuleScope::kernelNames() const {
  std::vector<std::string> out;
  for (auto &n : jitOrder_) {
    const Symbol *s = jitFunction(n);
    if (s && !s->options.device)
      out.push_back(s->def->name);
  }
  return out;
}

const Symbol *ModuleScope::definedFunction(const std::string &name) const {
  if (const Symbol *s = lookup(name); s && s->unparsed)
    file_->error(s->unparsed->errorLoc, s->unparsed->reason);
  if (!ownKey_.empty()) { // a host unit defines one function, under its key
    const Symbol *s = lookup("\x01" + ownKey_);
    return s && s->def->name == name ? s : nullptr;
  }
  const Symbol *s = jitFunction(name);
  return s && s->def ? s : nullptr;
}

// ---- Program ------------------------------------------------------------------------------------

void Program::add(std::unique_ptr<ModuleScope> scope) {
  auto reg = [&](const Symbol &s) {
    if ((s.kind == Symbol::Kind::JitFunction && s.def) || s.kind == Symbol::Kind::Foreign)
      functions_[s.key] = &s;
  };
  for (auto &[name, s] : scope->symbols())
    reg(s);
  for (auto &[path, members] : scope->namespaces())
    for (auto &[name, s] : members)
      reg(s);
  scopes_.push_back(std::move(scope));
}

void Program::link() const {
  for (auto &scope : scopes_)
    for (auto &[name, s] : scope->symbols())
      if (s.kind == Symbol::Kind::JitFunction && !s.def && !functions_.count(s.key))
        throw Error("internal error: '" + name + "' in " + scope->file().path() + " names function '" +
                    s.key + "', which no source defines");
}

const Symbol *Program::function(const std::string &key) const {
  auto it = functions_.find(key);
  return it == functions_.end() ? nullptr : it->second;
}

const Symbol &Program::definition(const Symbol &s) const {
  if (s.kind == Symbol::Kind::JitFunction && !s.def)
    if (const Symbol *d = function(s.key))
      return *d;
  return s;
}

void ModuleScope::readImport(const ImportStmt &s) {
  for (auto &a : s.names) {
    Symbol sym;
    sym.loc = a.loc;
    // `import numba.cuda` binds `numba`; `import numba.cuda as c` binds `c` to numba.cuda.
    std::string bound = a.asname.empty() ? a.name.substr(0, a.name.find('.')) : a.asname;
    std::string path = a.asname.empty() ? bound : a.name;
    if (auto m = knownModule(path)) {
      sym.kind = Symbol::Kind::Entity;
      sym.entity.type = *m;
    } else {
      sym.reason = "module '" + path + "' is not available in kernels";
    }
    bind(bound, sym);
  }
}

void ModuleScope::readImportFrom(const ImportFromStmt &s) {
  auto mod = s.level == 0 ? knownModule(s.module) : std::nullopt;
  for (auto &a : s.names) {
    if (a.name == "*")
      continue; // star imports bind nothing kernels can rely on
    Symbol sym;
    sym.loc = a.loc;
    std::string bound = a.asname.empty() ? a.name : a.asname;
    std::optional<Entity> e;
    if (mod)
      e = moduleMember(*mod, a.name);
    if (!e && s.level == 0) // `from numba import cuda` style submodule import
      if (auto sub = knownModule(s.module + "." + a.name))
        e = Entity{*sub, {}};
    if (e && e->value) {
      sym.kind = Symbol::Kind::Constant;
      sym.value = *e->value;
      sym.entity = *e;
    } else if (e) {
      sym.kind = Symbol::Kind::Entity;
      sym.entity = *e;
    } else {
      sym.reason = "'" + a.name + "' from module '" + std::string(s.level, '.') + s.module +
                   "' is not available in kernels";
    }
    bind(bound, sym);
  }
}

void ModuleScope::readAssign(const AssignStmt &s) {
  for (auto &target : s.targets) {
    auto *name = dyn<NameExpr>(target.get());
    if (!name) {
      // Tuple targets and the like are host code; names they bind are host-only.
      if (auto *t = asTupleLike(target.get()))
        for (auto &elt : t->elts)
          if (auto *n = dyn<NameExpr>(elt.get())) {
            Symbol sym;
            sym.loc = n->loc;
            sym.reason = "global '" + n->id + "' is assigned by tuple unpacking in host code";
            bind(n->id, sym);
          }
      continue;
    }
    if (readDeclareDevice(name->id, name->loc, *s.value))
      continue;
    Symbol sym;
    sym.loc = name->loc;
    std::optional<ConstValue> v;
    if (auto *call = dyn<CallExpr>(s.value.get()))
      v = literalArray(*call, *this, *file_);
    if (!v)
      v = evalConstant(*s.value);
    if (v) {
      sym.kind = Symbol::Kind::Constant;
      sym.value = *v;
      sym.entity.type = v->type();
      sym.entity.value = *v;
    } else if (auto e = resolveEntity(*s.value); e && !e->value) {
      sym.kind = Symbol::Kind::Entity;
      sym.entity = *e;
    } else {
      sym.reason = "global '" + name->id + "' is not a compile-time constant (it is computed by host code)";
    }
    bind(name->id, sym);
  }
}

std::optional<std::vector<std::string>> ModuleScope::fileList(const Expr &e, const char *what) const {
  if (auto *one = dyn<ConstantExpr>(&e); one && one->type == ConstantExpr::Type::Str)
    return std::vector<std::string>{one->strValue};
  auto *list = asTupleLike(&e);
  if (!list) {
    if (!what)
      return std::nullopt;
    file_->error(e.loc, std::string(what) + " must be a list of file names");
  }
  std::vector<std::string> files;
  for (auto &item : list->elts) {
    auto *c = dyn<ConstantExpr>(item.get());
    if (!c || c->type != ConstantExpr::Type::Str) {
      if (!what)
        return std::nullopt;
      file_->error(item->loc, std::string(what) + ": file names must be string literals");
    }
    files.push_back(c->strValue);
  }
  return files;
}

bool ModuleScope::readDeclareDevice(const std::string &name, SourceLoc loc, const Expr &value) {
  auto *call = dyn<CallExpr>(&value);
  if (!call)
    return false;
  auto fn = resolveEntity(*call->func);
  if (!fn || fn->type.kind != TypeKind::Function || fn->type.path != "cuda.declare_device")
    return false;
  const Expr *symbol = call->args.size() > 0 ? call->args[0].get() : nullptr;
  const Expr *sig = call->args.size() > 1 ? call->args[1].get() : nullptr;
  const Keyword *linkOption = nullptr;
  for (auto &k : call->keywords) {
    if (k.name == "name")
      symbol = k.value.get();
    else if (k.name == "sig")
      sig = k.value.get();
    else if (k.name == "link")
      linkOption = &k;
    else
      file_->error(k.loc, "cuda.declare_device() has no option '" + k.name + "'");
  }
  if (!symbol || !sig)
    file_->error(call->loc, "cuda.declare_device() takes the function's name and its signature");
  auto *text = dyn<ConstantExpr>(symbol);
  if (!text || text->type != ConstantExpr::Type::Str)
    file_->error(symbol->loc, "cuda.declare_device(): the function's name must be a string literal");
  Symbol s;
  s.kind = Symbol::Kind::Foreign;
  s.loc = loc;
  s.foreignName = text->strValue;
  s.foreignSignature = parseSignature(*sig);
  if (linkOption) {
    // A computed list (os.path.join(...)) is known to the host program only; the Python
    // package passes such declarations with their values.
    auto files = fileList(*linkOption->value, nullptr);
    if (!files) {
      Symbol h;
      h.loc = loc;
      h.reason = "'" + name +
                 "' = cuda.declare_device(..., link=...) names its files with an expression the "
                 "compiler cannot evaluate; use string literals";
      bind(name, h);
      return true;
    }
    s.foreignLink = *files;
  }
  if (!s.foreignSignature.hasReturn)
    file_->error(sig->loc, "cuda.declare_device() needs a signature with a return type, e.g. "
                           "\"float32(float32, float32)\"");
  for (const Type &t : s.foreignSignature.args)
    if (!t.isScalar() && !t.pointer)
      file_->error(sig->loc, "foreign device function '" + s.foreignName +
                                 "': arguments are scalars and "
                                 "CPointer(...), not " +
                                 t.str());
  if (!s.foreignSignature.ret.isScalar() && s.foreignSignature.ret.kind != TypeKind::None)
    file_->error(sig->loc, "foreign device function '" + s.foreignName + "' must return a scalar or void");
  bind(name, s);
  return true;
}

void ModuleScope::readFunction(const FunctionDefStmt &f) {
  Symbol sym;
  sym.loc = f.nameLoc;
  sym.def = &f;
  if (auto h = host_.functions.find(f.name); h != host_.functions.end()) {
    sym.kind = Symbol::Kind::JitFunction;
    sym.options = h->second;
    for (SignatureDecl &s : sym.options.signatures)
      s.loc = f.nameLoc;
  }
  for (auto &d : f.decorators) {
    if (sym.kind == Symbol::Kind::JitFunction)
      break;
    if (auto opts = jitDecorator(*d)) {
      sym.kind = Symbol::Kind::JitFunction;
      sym.options = *opts;
      break;
    }
  }
  if (sym.kind != Symbol::Kind::JitFunction)
    sym.reason = "'" + f.name +
                 "' is a plain Python function; decorate it with "
                 "@cuda.jit(device=True) to call it from a kernel";
  else
    jitOrder_.push_back(f.name);
  bind(f.name, sym);
}

std::optional<JitOptions> ModuleScope::jitDecorator(const Expr &d) const {
  auto kind = [&](const Expr &e) -> std::string {
    auto ent = resolveEntity(e);
    bool fn = ent && ent->type.kind == TypeKind::Function;
    return fn && (ent->type.path == "cuda.jit" || ent->type.path == "cpu.jit") ? ent->type.path : "";
  };
  JitOptions cpu;
  cpu.device = true; // numba.jit / cutwin.jit: compiled for the CPU, a device function in kernels
  if (std::string k = kind(d); !k.empty())
    return k == "cpu.jit" ? cpu : JitOptions{};
  auto *call = dyn<CallExpr>(&d);
  if (!call || kind(*call->func).empty())
    return std::nullopt;
  if (kind(*call->func) == "cpu.jit") {
    // Options (nopython, cache, fastmath, ...) concern the CPU compilation; signatures
    // are re-derived from the kernel's call, as for any device function.
    return cpu;
  }
  JitOptions o;
  if (call->args.size() > 1)
    file_->error(call->args[1]->loc, "@cuda.jit takes at most one positional argument "
                                     "(a signature or a list of signatures)");
  if (!call->args.empty()) {
    const Expr *sig = call->args[0].get();
    if (auto *list = asTupleLike(sig); list && !dyn<CallExpr>(sig)) {
      for (auto &s : list->elts)
        o.signatures.push_back({s.get(), "", s->loc});
    } else {
      o.signatures.push_back({sig, "", sig->loc});
    }
  }
  auto boolOpt = [&](const Keyword &k) {
    auto v = evalConstant(*k.value);
    if (!v || (v->kind != ConstValue::Kind::Bool && v->kind != ConstValue::Kind::Int))
      file_->error(k.value->loc, "@cuda.jit option '" + k.name + "' must be True or False");
    return v->kind == ConstValue::Kind::Bool ? v->b : v->i != 0;
  };
  for (auto &k : call->keywords) {
    if (k.name == "device")
      o.device = boolOpt(k);
    else if (k.name == "debug")
      o.debug = boolOpt(k);
    else if (k.name == "fastmath")
      o.fastmath = boolOpt(k);
    else if (k.name == "lineinfo")
      o.lineinfo = boolOpt(k);
    else if (k.name == "cache")
      o.cache = boolOpt(k);
    else if (k.name == "boundscheck")
      o.boundscheck = boolOpt(k);
    else if (k.name == "sanitize") {
      auto v = evalConstant(*k.value);
      if (v && v->kind == ConstValue::Kind::Str) {
        try {
          o.sanitize = ir::parseSanitizeChecks(v->s);
        } catch (const Error &e) {
          file_->error(k.value->loc, std::string("@cuda.jit option 'sanitize': ") + e.what());
        }
      } else if (v && v->kind == ConstValue::Kind::None) {
        o.sanitize.reset();
      } else {
        o.sanitize = boolOpt(k) ? ir::kSanitizeAll : ir::kSanitizeNone;
      }
    } else if (k.name == "opt") {
      auto v = evalConstant(*k.value);
      if (!v || !v->isNumber())
        file_->error(k.value->loc, "@cuda.jit option 'opt' must be a bool or an integer level");
      o.opt = v->kind == ConstValue::Kind::Bool ? (v->b ? 3 : 0) : int(v->i);
    } else if (k.name == "inline") {
      auto v = evalConstant(*k.value);
      o.inlineAlways = v && ((v->kind == ConstValue::Kind::Str && v->s == "always") ||
                             (v->kind == ConstValue::Kind::Bool && v->b));
    } else if (k.name == "forceinline") {
      auto v = evalConstant(*k.value);
      o.forceInline = v && v->kind == ConstValue::Kind::Bool && v->b;
    } else if (k.name == "link") {
      // A computed list is the host program's to pass (the Python package does); an
      // error only if this function is compiled from the source alone.
      if (auto files = fileList(*k.value, nullptr))
        o.link = *files;
      else
        o.linkComputedAt = k.value->loc;
    } else if (k.name == "max_registers" || k.name == "lto" || k.name == "forceinline") {
      // accepted; meaningful only to the GPU backend
    } else {
      file_->error(k.loc, "unknown @cuda.jit option '" + k.name + "'");
    }
  }
  return o;
}

std::optional<ConstValue> ModuleScope::evalConstant(const Expr &e) const {
  return evalConst(e, *file_, [this](const Expr &n) -> std::optional<ConstValue> {
    if (auto *name = dyn<NameExpr>(&n)) {
      const Symbol *s = lookup(name->id);
      if (s && s->kind == Symbol::Kind::Constant)
        return s->value;
      return std::nullopt;
    }
    if (auto ent = resolveEntity(n))
      return ent->value;
    return std::nullopt;
  });
}

std::optional<Entity> ModuleScope::resolveEntity(const Expr &e) const {
  if (auto *name = dyn<NameExpr>(&e)) {
    if (const Symbol *s = lookup(name->id)) {
      if (s->kind == Symbol::Kind::Entity || s->kind == Symbol::Kind::Constant)
        return s->entity;
      return std::nullopt;
    }
    return pythonBuiltin(name->id);
  }
  if (auto *attr = dyn<AttributeExpr>(&e)) {
    auto base = resolveEntity(*attr->value);
    if (base && base->type.kind == TypeKind::Module) {
      if (const Symbol *s = namespaceMember(base->type.path, attr->attr))
        return s->kind == Symbol::Kind::Entity || s->kind == Symbol::Kind::Constant ? std::optional(s->entity)
                                                                                    : std::nullopt;
      return moduleMember(base->type, attr->attr);
    }
  }
  return std::nullopt;
}

} // namespace cutwin::fe
