// numba.cuda.libdevice: `libdevice.<name>(...)` calls `__nv_<name>` with numba-cuda's
// bindings (frontend/ir/libdevice_signatures.h): inputs converted to the declared types,
// pointer parameters returned as results after the value. A row exists for any name (made
// on first use, so libdevice is read only when a kernel calls it); typing reports the
// names libdevice does not have.
#include "frontend/builtins/builtin.h"
#include "frontend/ir/libdevice_signatures.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/builtins.h"
#include "frontend/sema/typing_context.h"

#include <map>
#include <mutex>

namespace cutwin {

namespace ir {
llvm::Value *lowerLibdeviceBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace fe {

ExprInfo typeLibdeviceBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                              const Builtin &b);

namespace {
constexpr std::string_view kPrefix = "cuda.libdevice.";
} // namespace

const Builtin *libdeviceBuiltin(std::string_view name) {
  static std::mutex mutex;
  static std::map<std::string, Builtin, std::less<>> rows; // nodes stay where they are
  static std::deque<std::string> names;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = rows.find(name);
  if (it != rows.end())
    return &it->second;
  names.push_back(std::string(kPrefix) + std::string(name));
  Builtin row{names.back().c_str(), 0, &typeLibdeviceBuiltin, &ir::lowerLibdeviceBuiltin};
  return &rows.emplace(std::string(name), row).first->second;
}

ExprInfo typeLibdeviceBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                              const Builtin &b) {
  const std::string fn = std::string(b.name).substr(kPrefix.size());
  const ir::LibdeviceSignature *sig;
  try {
    sig = ir::libdeviceSignature(fn);
  } catch (const Error &e) {
    cx.error(c.loc, std::string("libdevice.") + fn + "(): " + e.what());
  }
  if (!sig)
    cx.error(c.func->loc, "numba.cuda.libdevice has no function '" + fn + "'");
  // The inputs convert to the declared types (numba's bindings have one signature each);
  // the value and the outputs come back, a tuple when there are several.
  ExprInfo info;
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
    cx.error(c.loc, what + "() takes " + std::to_string(info.operandTypes.size()) + " argument" +
                        (info.operandTypes.size() == 1 ? "" : "s") + ", " + std::to_string(args.size()) +
                        " given");
  auto actual = cx.scalarArgs(c, args, what.c_str());
  for (size_t i = 0; i < actual.size(); ++i)
    if (isComplex(actual[i]))
      cx.error(c.args[i]->loc, what + "() argument " + std::to_string(i + 1) + " must be " +
                                   scalarName(info.operandTypes[i]) + ", not " + scalarName(actual[i]));
  info.type = results.size() == 1 ? results[0] : results.empty() ? Type::none() : Type::tuple(results);
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *lowerLibdeviceBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  std::string name = std::string(ci.function->name).substr(fe::kPrefix.size());
  const ir::LibdeviceSignature *sig = ir::libdeviceSignature(name); // found when typed
  auto typeOf = [&](ir::LibdeviceType t) -> llvm::Type * {
    return t == ir::LibdeviceType::Void ? llvm::Type::getVoidTy(cx.context())
                                        : cx.scalarType(fe::libdeviceScalar(t));
  };
  // Outputs go through slots in the thread's frame, read back after the call.
  std::vector<llvm::Type *> params;
  std::vector<Value *> args;
  std::vector<AllocaInst *> outs;
  size_t input = 0;
  for (const ir::LibdeviceParam &p : sig->params) {
    if (p.output) {
      outs.push_back(cx.entryAlloca(typeOf(p.type), "libdevice." + name + ".out"));
      params.push_back(PointerType::get(cx.context(), 0));
      args.push_back(outs.back());
      continue;
    }
    args.push_back(cx.lowerAs(*c.args[input], Type::scalarOf(ci.operandTypes[input])));
    params.push_back(args.back()->getType());
    ++input;
  }
  FunctionCallee callee =
      cx.module().getOrInsertFunction("__nv_" + name, FunctionType::get(typeOf(sig->ret), params, false));
  if (auto *fn = dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotThrow();
    fn->setWillReturn();
    if (outs.empty())
      fn->setDoesNotAccessMemory();
  }
  cx.setLoc(c.loc);
  Value *ret = irb.CreateCall(callee, args);
  std::vector<Value *> results;
  if (sig->ret != ir::LibdeviceType::Void)
    results.push_back(ret);
  for (AllocaInst *slot : outs)
    results.push_back(irb.CreateAlignedLoad(slot->getAllocatedType(), slot, slot->getAlign()));
  if (results.empty())
    return nullptr;
  if (results.size() == 1)
    return results[0];
  Value *tuple = UndefValue::get(cx.llvmType(ci.type));
  for (unsigned k = 0; k < results.size(); ++k)
    tuple = irb.CreateInsertValue(tuple, results[k], {k});
  return tuple;
}

} // namespace ir
} // namespace cutwin
