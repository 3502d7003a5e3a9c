#include "backend_sim/host_callbacks.h"

#include "backend_sim/breakpoints.h"

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/ModRef.h>

#include <tuple>
#include <type_traits>

namespace cutwin::sim {

using namespace llvm;

namespace {

/// The LLVM type of a callback parameter or result as the kernel IR passes it: the error
/// record is a global-memory pointer there (addrspace 1), every other pointer generic.
template <class T> Type *llvmType(LLVMContext &c) {
  if constexpr (std::is_void_v<T>)
    return Type::getVoidTy(c);
  else if constexpr (std::is_same_v<T, ir::ErrorRecord *>)
    return PointerType::get(c, 1);
  else if constexpr (std::is_pointer_v<T>)
    return PointerType::get(c, 0);
  else if constexpr (std::is_same_v<T, float>)
    return Type::getFloatTy(c);
  else if constexpr (std::is_same_v<T, double>)
    return Type::getDoubleTy(c);
  else if constexpr (std::is_integral_v<T>)
    return Type::getIntNTy(c, 8 * sizeof(T));
  else
    static_assert(sizeof(T) == 0, "a host callback type without an LLVM mapping");
}

template <class R, class... A> FunctionType *llvmFunctionType(LLVMContext &c, R (*)(A...)) {
  return FunctionType::get(llvmType<R>(c), {llvmType<A>(c)...}, false);
}

template <class R, class... A> constexpr bool takesContext(R (*)(A...)) {
  if constexpr (sizeof...(A) == 0)
    return false;
  else
    return std::is_same_v<std::tuple_element_t<0, std::tuple<A...>>, ThreadContext *>;
}

Function *declare(Module &m, const char *symbol, FunctionType *type, CallbackEffect effect, bool context) {
  auto *fn = cast<Function>(m.getOrInsertFunction(symbol, type).getCallee());
  if (context) {
    fn->setDoesNotThrow();
    fn->addParamAttr(0, Attribute::ReadOnly);
    fn->addParamAttr(0, Attribute::NoCapture);
  }
  switch (effect) {
  case CallbackEffect::Plain: break;
  case CallbackEffect::NoReturn: fn->setDoesNotReturn(); break;
  case CallbackEffect::NoThrow: fn->setDoesNotThrow(); break;
  case CallbackEffect::Pure:
    fn->setDoesNotThrow();
    fn->setDoesNotAccessMemory();
    break;
  case CallbackEffect::Shadow: // reads what its pointers point to; writes only its own state
    fn->setMemoryEffects(MemoryEffects::argMemOnly(ModRefInfo::Ref) |
                         MemoryEffects::inaccessibleMemOnly(ModRefInfo::ModRef));
    for (unsigned i = context ? 1 : 0; i < type->getNumParams(); ++i)
      if (type->getParamType(i)->isPointerTy()) {
        fn->addParamAttr(i, Attribute::ReadOnly);
        fn->addParamAttr(i, Attribute::NoCapture);
      }
    break;
  }
  return fn;
}

} // namespace

Function *declareHostCallback(Module &m, HostCallback id) {
  switch (id) {
#define CUTWIN_DECLARE_IN_MODULE(id, symbol, effect, result, params)                                         \
  case HostCallback::id:                                                                                     \
    return declare(m, #symbol, llvmFunctionType(m.getContext(), &::symbol), CallbackEffect::effect,          \
                   takesContext(&::symbol));
    CUTWIN_SIM_HOST_CALLBACKS(CUTWIN_DECLARE_IN_MODULE)
#undef CUTWIN_DECLARE_IN_MODULE
  }
  return nullptr;
}

const char *hostCallbackSymbol(HostCallback id) {
  switch (id) {
#define CUTWIN_SYMBOL_OF(id, symbol, effect, result, params)                                                 \
  case HostCallback::id: return #symbol;
    CUTWIN_SIM_HOST_CALLBACKS(CUTWIN_SYMBOL_OF)
#undef CUTWIN_SYMBOL_OF
  }
  return nullptr;
}

std::vector<std::pair<const char *, void *>> hostCallbackSymbols() {
  return {
#define CUTWIN_SYMBOL(id, symbol, effect, result, params) {#symbol, reinterpret_cast<void *>(&::symbol)},
      CUTWIN_SIM_HOST_CALLBACKS(CUTWIN_SYMBOL)
#undef CUTWIN_SYMBOL
          {kDebugArmedSymbol, debugArmedAddress()}, // data: read by line events and watched stores
  };
}

} // namespace cutwin::sim
