// Types and signatures as kernels write them (`float32[:]`, `"void(int64[::1], float64)"`,
// `types.float32(types.int32)`, tuples of argument types), read from an expression or from
// numba's signature text.
#include "frontend/sema/module_scope.h"

#include "frontend/sema/record_layout.h"

#include "frontend/syntax/parser.h"

namespace cutwin::fe {

std::optional<Type> ModuleScope::typeFromExpr(const Expr &e, const SourceFile &file) const {
  if (auto *name = dyn<NameExpr>(&e)) {
    const Symbol *s = lookup(name->id);
    if (!s || s->kind != Symbol::Kind::Entity) {
      if (auto sc = scalarFromName(name->id))
        return Type::scalarOf(*sc);
      if (name->id == "void" || name->id == "none")
        return Type::none();
    }
    if (const RecordLayout *r = recordOfTypeName(name->id)) // a Record(...) spelling (nameRecordsIn)
      return Type::recordIn(r);
  }
  if (auto *sub = dyn<SubscriptExpr>(&e)) {
    // datetime64[D], timedelta64[ns]: a time type in its unit
    auto *kind = dyn<NameExpr>(sub->value.get());
    if (kind && (kind->id == "datetime64" || kind->id == "timedelta64")) {
      auto *unit = dyn<NameExpr>(sub->index.get());
      auto *text = dyn<ConstantExpr>(sub->index.get());
      std::string u = unit ? unit->id : text && text->type == ConstantExpr::Type::Str ? text->strValue : "";
      if (auto s = scalarFromName(kind->id + "[" + u + "]"))
        return Type::scalarOf(*s);
      return std::nullopt;
    }
    auto elem = typeFromExpr(*sub->value, file);
    if (!elem || !(elem->isScalar() || elem->isRecord()))
      return std::nullopt;
    std::vector<const SliceExpr *> slices;
    if (auto *t = asTupleLike(sub->index.get())) {
      for (auto &x : t->elts)
        slices.push_back(dyn<SliceExpr>(x.get()));
    } else {
      slices.push_back(dyn<SliceExpr>(sub->index.get()));
    }
    auto stepIsOne = [](const SliceExpr *s) {
      auto *c = s ? dyn<ConstantExpr>(s->step.get()) : nullptr;
      return c && c->type == ConstantExpr::Type::Int && c->intValue == 1;
    };
    for (auto *s : slices)
      if (!s || s->lower || s->upper || (s->step && !stepIsOne(s)))
        file.error(sub->index->loc, "array types are written with ':' per dimension, "
                                    "e.g. float32[:, :] or float32[:, ::1]");
    if (slices.size() > 3)
      file.error(sub->loc, "arrays of more than 3 dimensions are not supported");
    Layout layout = Layout::A;
    if (stepIsOne(slices.back()))
      layout = Layout::C;
    else if (slices.size() > 1 && stepIsOne(slices.front()))
      layout = Layout::F;
    if (elem->isRecord())
      return Type::recordArray(elem->record, unsigned(slices.size()), layout);
    return Type::array(elem->scalar, unsigned(slices.size()), layout);
  }
  if (auto *call = dyn<CallExpr>(&e); call && call->keywords.empty()) {
    auto *fn = call->func.get();
    std::string name = dyn<NameExpr>(fn)        ? dyn<NameExpr>(fn)->id
                       : dyn<AttributeExpr>(fn) ? dyn<AttributeExpr>(fn)->attr
                                                : "";
    // Tuple(int64, float32) / UniTuple(int64, 2): tuple types (Tuple() is the empty one)
    if (name == "Tuple" || name == "UniTuple") {
      std::vector<const Expr *> parts;
      if (call->args.size() == 1 && asTupleLike(call->args[0].get()) && name == "Tuple")
        for (auto &x : asTupleLike(call->args[0].get())->elts)
          parts.push_back(x.get());
      else
        for (auto &x : call->args)
          parts.push_back(x.get());
      std::vector<Type> elems;
      if (name == "UniTuple") {
        auto *count = parts.size() == 2 ? dyn<ConstantExpr>(parts[1]) : nullptr;
        auto elem = parts.empty() ? std::nullopt : typeFromExpr(*parts[0], file);
        if (!count || count->type != ConstantExpr::Type::Int || !elem)
          file.error(call->loc, "UniTuple() takes a type and a count, e.g. UniTuple(int64, 2)");
        elems.assign(size_t(count->intValue), *elem);
      } else {
        for (auto *p : parts) {
          auto t = typeFromExpr(*p, file);
          if (!t || t->kind == TypeKind::None)
            file.error(p->loc, "unknown type '" + exprToString(*p) + "' in Tuple()");
          elems.push_back(*t);
        }
      }
      return Type::tuple(std::move(elems));
    }
  }
  if (auto *call = dyn<CallExpr>(&e); call && call->args.size() == 1 && call->keywords.empty()) {
    // CPointer(uint8) / types.CPointer(types.uint8): a raw pointer argument
    auto *fn = call->func.get();
    std::string name = dyn<NameExpr>(fn)        ? dyn<NameExpr>(fn)->id
                       : dyn<AttributeExpr>(fn) ? dyn<AttributeExpr>(fn)->attr
                                                : "";
    if (name == "CPointer") {
      auto elem = typeFromExpr(*call->args[0], file);
      if (!elem || !elem->isScalar())
        file.error(call->args[0]->loc, "CPointer() takes a scalar type, e.g. CPointer(uint8)");
      return Type::pointerTo(elem->scalar);
    }
  }
  auto ent = resolveEntity(e);
  if (ent && ent->type.kind == TypeKind::TypeObject) {
    if (ent->type.typeObjectIsVoid)
      return Type::none();
    if (!ent->type.elems.empty() && ent->type.elems[0].isRecord())
      return ent->type.elems[0];
    return Type::scalarOf(ent->type.scalar);
  }
  return std::nullopt;
}

Signature ModuleScope::signatureFromExpr(const Expr &e, const SourceFile &file) const {
  Signature sig;
  const std::vector<ExprPtr> *args = nullptr;
  if (auto *call = dyn<CallExpr>(&e)) {
    auto ret = typeFromExpr(*call->func, file);
    if (!ret)
      file.error(call->func->loc, "unknown return type '" + exprToString(*call->func) + "'");
    if (ret->isArray())
      file.error(call->func->loc, "functions cannot return arrays");
    sig.ret = *ret;
    sig.hasReturn = true;
    args = &call->args;
  } else if (auto *tup = asTupleLike(&e)) {
    sig.ret = Type::none();
    args = &tup->elts;
  } else {
    file.error(e.loc, "expected a signature such as \"void(float32[:], int32)\"");
  }
  for (auto &a : *args) {
    auto t = typeFromExpr(*a, file);
    if (!t) {
      std::string text = exprToString(*a);
      std::string base = text.substr(0, text.find('['));
      if (base == "bfloat16")
        file.error(a->loc, "cutwin does not support bfloat16 in kernels yet");
      file.error(a->loc, "unknown type '" + text + "'");
    }
    if (t->kind == TypeKind::None)
      file.error(a->loc, "'void' is only valid as a return type");
    sig.args.push_back(*t);
  }
  return sig;
}

Signature ModuleScope::parseSignatureText(const std::string &text, SourceLoc loc) const {
  try {
    SourceFile sigFile("<signature>", nameRecordsIn(text));
    return signatureFromExpr(*parseExpression(sigFile), sigFile);
  } catch (const CompileError &err) {
    file_->error(loc, "in signature \"" + text + "\": " + err.message());
  } catch (const Error &err) { // a record spelling that does not read
    file_->error(loc, "in signature \"" + text + "\": " + err.what());
  }
}

Signature ModuleScope::parseSignature(const Expr &sig) const {
  if (auto *c = dyn<ConstantExpr>(&sig); c && c->type == ConstantExpr::Type::Str)
    return parseSignatureText(c->strValue, sig.loc);
  return signatureFromExpr(sig, *file_);
}

} // namespace cutwin::fe
