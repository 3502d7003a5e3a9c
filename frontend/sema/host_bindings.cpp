// The symbols of a module compiled from the host's values (a Python function's globals and
// closure as the dispatcher binds them: HostBindings), rather than from its source's imports.
#include "frontend/sema/module_scope.h"

#include "frontend/sema/const_array.h"
#include "frontend/sema/record_layout.h"
#include "frontend/syntax/parser.h"

namespace cutwin::fe {

Symbol ModuleScope::fromBinding(const std::string &name, const NameBinding &b, const std::string &unitKey) {
  Symbol s;
  auto hostOnly = [&](std::string why) {
    s.kind = Symbol::Kind::HostOnly;
    s.reason = std::move(why);
    return s;
  };
  switch (b.kind) {
  case NameBinding::Kind::Module: {
    if (auto m = knownModule(b.path)) {
      s.kind = Symbol::Kind::Entity;
      s.entity.type = *m;
      return s;
    }
    if (b.members.empty())
      return hostOnly("'" + name + "' is module '" + b.path + "', which is not available in kernels");
    // A user's module: its attributes the function reads are what the host says.
    std::string path = "namespace:" + std::to_string(namespaces_.size());
    std::map<std::string, Symbol> members;
    for (auto &[attr, mb] : b.members)
      members[attr] = fromBinding(b.path + "." + attr, mb, unitKey);
    namespaces_[path] = std::move(members);
    s.kind = Symbol::Kind::Entity;
    s.entity.type = Type::named(TypeKind::Module, path);
    return s;
  }
  case NameBinding::Kind::Member: {
    auto m = knownModule(b.path);
    std::optional<Entity> e;
    if (m)
      e = Entity{*m, {}};
    std::string dotted = b.path;
    for (const std::string &a : b.attrs) {
      dotted += "." + a;
      if (!e || e->type.kind != TypeKind::Module) {
        e.reset();
        break;
      }
      e = moduleMember(e->type, a);
    }
    if (!e)
      return hostOnly("'" + name + "' is " + dotted + ", which kernels cannot use");
    s.entity = *e;
    if (e->value) {
      s.kind = Symbol::Kind::Constant;
      s.value = *e->value;
    } else {
      s.kind = Symbol::Kind::Entity;
    }
    return s;
  }
  case NameBinding::Kind::Constant:
    s.kind = Symbol::Kind::Constant;
    s.value = b.value;
    s.entity.type = b.value.type();
    s.entity.value = b.value;
    return s;
  case NameBinding::Kind::Type: {
    std::optional<Type> t;
    try {
      SourceFile typeFile("<type of '" + name + "'>", nameRecordsIn(b.text));
      t = typeFromExpr(*parseExpression(typeFile), typeFile);
    } catch (const CompileError &) {
    } catch (const Error &e) { // a record type cutwin cannot hold (text or bytes fields, ...)
      return hostOnly("'" + name + "' is the type " + b.text + ", which kernels cannot use: " + e.what());
    }
    if (!t)
      return hostOnly("'" + name + "' is the type " + b.text + ", which kernels cannot use");
    s.kind = Symbol::Kind::Entity;
    if (t->kind == TypeKind::None) {
      s.entity.type = Type::make(TypeKind::TypeObject);
      s.entity.type.typeObjectIsVoid = true;
    } else if (t->isScalar()) {
      s.entity.type = Type::typeObject(t->scalar);
    } else if (t->isRecord()) {
      s.entity.type = Type::make(TypeKind::TypeObject);
      s.entity.type.elems = {*t};
    } else {
      s.entity.type = Type::make(TypeKind::TypeObject);
      s.entity.type.scalar = t->scalar;
      s.entity.type.elems = {*t};
    }
    return s;
  }
  case NameBinding::Kind::Function:
    s.kind = Symbol::Kind::JitFunction;
    s.key = b.text;
    return s;
  case NameBinding::Kind::Foreign: {
    s.kind = Symbol::Kind::Foreign;
    s.key = name + "@" + unitKey;
    s.home = this;
    s.foreignName = b.foreignName;
    s.foreignLink = b.foreignLink;
    s.foreignCAbi = b.foreignCAbi;
    s.foreignSignature = parseSignatureText(b.text, {});
    return s;
  }
  case NameBinding::Kind::Exception:
    s.kind = Symbol::Kind::Entity;
    s.entity.type = Type::named(TypeKind::Module, "exception." + b.text);
    return s;
  case NameBinding::Kind::HostOnly: return hostOnly(b.text);
  }
  return s;
}

} // namespace cutwin::fe
