// print() in kernels: one printf-style line per call, as numba-cuda formats it (items
// separated by spaces; integers as %lld/%llu, floats as %f, booleans as True/False,
// tuples in parentheses), passed to `cutwin.print` with its arguments in 8-byte slots.
#include "frontend/builtins/builtin.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowerer.h"
#include "frontend/sema/typing_context.h"

#include <functional>

namespace cutwin {

namespace fe {

ExprInfo typePrintBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                          const Builtin &b);

std::span<const Builtin> printBuiltins() {
  static const Builtin table[] = {
      {"builtins.print", 0, &typePrintBuiltin, &ir::Lowerer::lowerPrintBuiltin},
  };
  return table;
}

ExprInfo typePrintBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                          const Builtin &b) {
  // numba's vprintf formats: %lld/%llu for integers, %f for floats
  ExprInfo info;
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
      cx.error(c.args[i]->loc, "print() in a kernel takes strings, integers, floats, booleans and tuples of "
                               "them, not " +
                                   args[i].type.str());
  info.type = Type::none();
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

namespace {
std::string escapePercent(const std::string &s) {
  std::string out;
  for (char ch : s) {
    out += ch;
    if (ch == '%')
      out += '%';
  }
  return out;
}
} // namespace

Value *Lowerer::lowerPrintBuiltin(const fe::CallExpr &c, const fe::ExprInfo &) {
  std::string format;
  std::vector<Value *> slots;
  auto *ptr = PointerType::get(ctx_, 0);
  auto text = [&](const std::string &s) { // a constant string, as a generic pointer
    Constant *init = ConstantDataArray::getString(ctx_, s);
    auto *g = new GlobalVariable(mod_, init->getType(), true, GlobalValue::PrivateLinkage, init, "cutwin.str",
                                 nullptr, GlobalValue::NotThreadLocal, 4);
    g->setAlignment(Align(1));
    return b_.CreateAddrSpaceCast(g, ptr);
  };
  std::function<void(Value *, const Type &)> item = [&](Value *v, const Type &t) {
    if (t.isTuple()) {
      format += "(";
      for (unsigned i = 0; i < t.elems.size(); ++i) {
        if (i)
          format += ", ";
        item(b_.CreateExtractValue(v, {i}), t.elems[i]);
      }
      format += t.elems.size() == 1 ? ",)" : ")";
      return;
    }
    Scalar s = t.scalar;
    if (s == Scalar::Bool) {
      format += "%s";
      slots.push_back(b_.CreateSelect(v, text("True"), text("False")));
    } else if (fe::isFloat(s)) {
      format += "%f";
      slots.push_back(b_.CreateFPExt(v, b_.getDoubleTy()));
    } else {
      format += fe::isSigned(s) ? "%lld" : "%llu";
      slots.push_back(b_.CreateIntCast(v, b_.getInt64Ty(), fe::isSigned(s)));
    }
  };
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (i)
      format += " ";
    const fe::ExprInfo &ai = info(*c.args[i]);
    if (ai.type.kind == fe::TypeKind::String)
      format += escapePercent(ai.constant->s);
    else
      item(lowerExpr(*c.args[i]), ai.type);
  }
  format += "\n";
  Value *args = ConstantPointerNull::get(ptr);
  if (!slots.empty()) {
    std::vector<llvm::Type *> types;
    for (Value *v : slots)
      types.push_back(v->getType());
    auto *st = StructType::get(ctx_, types);
    AllocaInst *buf = entryAlloca(st, "print.args");
    for (unsigned i = 0; i < slots.size(); ++i)
      b_.CreateStore(slots[i], b_.CreateStructGEP(st, buf, i));
    args = b_.CreateAddrSpaceCast(buf, ptr);
  }
  setLoc(c.loc);
  b_.CreateCall(getIntrinsic(mod_, Intrinsic::Print), {text(format), args});
  return nullptr;
}

} // namespace ir
} // namespace cutwin
