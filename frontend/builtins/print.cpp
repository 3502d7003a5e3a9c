// print() in kernels: one printf-style line per call, as numba-cuda formats it (items
// separated by spaces; integers as %lld/%llu, floats as %f, booleans as True/False,
// tuples in parentheses, cuda.threadIdx & co. as the tuple (x, y, z)), passed to
// `cutwin.print` with its arguments in 8-byte slots. More than 32 items print the raw
// format string, with numba's warning: CUDA's printf takes at most 32 arguments.
#include "frontend/builtins/builtin.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

#include <functional>
#include <optional>

namespace cutwin {

namespace ir {
llvm::Value *lowerPrintBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace fe {

ExprInfo typePrintBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                          const Builtin &b);

std::span<const Builtin> printBuiltins() {
  static const Builtin table[] = {
      {"builtins.print", 0, &typePrintBuiltin, &ir::lowerPrintBuiltin},
  };
  return table;
}

namespace {
/// cuda.threadIdx, blockIdx, blockDim, gridDim (numba's Dim3): the register read, or null.
std::optional<Access> dim3Register(const Type &t) {
  if (t.kind != TypeKind::Module)
    return std::nullopt;
  static const std::pair<const char *, Access> registers[] = {{"cuda.threadIdx", Access::ThreadIdx},
                                                              {"cuda.blockIdx", Access::BlockIdx},
                                                              {"cuda.blockDim", Access::BlockDim},
                                                              {"cuda.gridDim", Access::GridDim}};
  for (auto &[path, access] : registers)
    if (t.path == path)
      return access;
  return std::nullopt;
}
} // namespace

ExprInfo typePrintBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                          const Builtin &b) {
  // numba's vprintf formats: %lld/%llu for integers, %f for floats
  ExprInfo info;
  std::function<bool(const Type &)> printable = [&](const Type &t) {
    if (t.kind == TypeKind::String || dim3Register(t))
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

Value *lowerPrintBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &) {
  IRBuilder<> &irb = cx.builder();
  std::string format;
  std::vector<Value *> slots;
  auto *ptr = PointerType::get(cx.context(), 0);
  auto text = [&](const std::string &s) { // a constant string, as a generic pointer
    Constant *init = ConstantDataArray::getString(cx.context(), s);
    auto *g = new GlobalVariable(cx.module(), init->getType(), true, GlobalValue::PrivateLinkage, init,
                                 "cutwin.str", nullptr, GlobalValue::NotThreadLocal, 4);
    g->setAlignment(Align(1));
    return irb.CreateAddrSpaceCast(g, ptr);
  };
  std::function<void(Value *, const Type &)> item = [&](Value *v, const Type &t) {
    if (t.isTuple()) {
      format += "(";
      for (unsigned i = 0; i < t.elems.size(); ++i) {
        if (i)
          format += ", ";
        item(irb.CreateExtractValue(v, {i}), t.elems[i]);
      }
      format += t.elems.size() == 1 ? ",)" : ")";
      return;
    }
    Scalar s = t.scalar;
    if (s == Scalar::Bool) {
      format += "%s";
      slots.push_back(irb.CreateSelect(v, text("True"), text("False")));
    } else if (fe::isFloat(s) || s == Scalar::BF16) { // as numba-cuda: %f of its float64
      format += "%f";
      slots.push_back(cx.convertScalar(v, s, Scalar::F64));
    } else {
      format += fe::isSigned(s) ? "%lld" : "%llu";
      slots.push_back(irb.CreateIntCast(v, irb.getInt64Ty(), fe::isSigned(s)));
    }
  };
  std::string raw; // numba's format string, with %s for each string
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (i)
      format += " ", raw += " ";
    const fe::ExprInfo &ai = cx.info(*c.args[i]);
    size_t start = format.size();
    if (ai.type.kind == fe::TypeKind::String) {
      format += escapePercent(ai.constant->s);
      raw += "%s";
      continue;
    }
    if (auto reg = fe::dim3Register(ai.type)) {
      format += "(%lld, %lld, %lld)";
      for (unsigned d = 0; d < 3; ++d)
        slots.push_back(irb.CreateSExt(cx.specialRegister(*reg, d), irb.getInt64Ty()));
    } else {
      item(cx.lowerExpr(*c.args[i]), ai.type);
    }
    raw += format.substr(start);
  }
  format += "\n";
  if (c.args.size() > 32) { // CUDA's printf takes at most 32 arguments
    cx.kernelInfo().warnings.push_back(
        "CUDA print() cannot print more than 32 items. The raw format string will be emitted by the kernel "
        "instead.");
    format = escapePercent(raw + "\n");
    slots.clear();
  }
  Value *args = ConstantPointerNull::get(ptr);
  if (!slots.empty()) {
    std::vector<llvm::Type *> types;
    for (Value *v : slots)
      types.push_back(v->getType());
    auto *st = StructType::get(cx.context(), types);
    AllocaInst *buf = cx.entryAlloca(st, "print.args");
    for (unsigned i = 0; i < slots.size(); ++i)
      irb.CreateStore(slots[i], irb.CreateStructGEP(st, buf, i));
    args = irb.CreateAddrSpaceCast(buf, ptr);
  }
  cx.setLoc(c.loc);
  irb.CreateCall(getIntrinsic(cx.module(), Intrinsic::Print), {text(format), args});
  return nullptr;
}

} // namespace ir
} // namespace cutwin
