#include "frontend/ir/libdevice_signatures.h"

#include "cutwin/errors.h"
#include "frontend/ir/libdevice_link.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>

#include <map>
#include <mutex>
#include <optional>

namespace cutwin::ir {

namespace {

std::optional<LibdeviceType> typeOf(const llvm::Type *t) {
  if (t->isVoidTy())
    return LibdeviceType::Void;
  if (t->isFloatTy())
    return LibdeviceType::F32;
  if (t->isDoubleTy())
    return LibdeviceType::F64;
  if (t->isIntegerTy(16))
    return LibdeviceType::I16;
  if (t->isIntegerTy(32))
    return LibdeviceType::I32;
  if (t->isIntegerTy(64))
    return LibdeviceType::I64;
  return std::nullopt;
}

/// What `f` stores through its pointer parameter `p` (the bitcode's pointers are opaque):
/// the stored value's type where every use is a store to it, else none.
std::optional<LibdeviceType> outputType(llvm::Argument &p) {
  std::optional<LibdeviceType> stored;
  for (llvm::User *u : p.users()) {
    auto *st = llvm::dyn_cast<llvm::StoreInst>(u);
    if (!st || st->getPointerOperand() != &p)
      return std::nullopt;
    auto t = typeOf(st->getValueOperand()->getType());
    if (!t || *t == LibdeviceType::Void || (stored && *stored != *t))
      return std::nullopt;
    stored = t;
  }
  return stored;
}

std::map<std::string, LibdeviceSignature> readSignatures() {
  llvm::LLVMContext ctx;
  auto lib = llvm::getLazyBitcodeModule(libdeviceBitcode().getMemBufferRef(), ctx);
  if (!lib)
    throw Error("cannot read libdevice: " + llvm::toString(lib.takeError()));
  std::map<std::string, LibdeviceSignature> out;
  for (llvm::Function &f : **lib) {
    if (!f.getName().startswith("__nv_"))
      continue;
    auto ret = typeOf(f.getReturnType());
    if (!ret)
      continue;
    LibdeviceSignature sig{*ret, {}};
    bool expressible = true;
    for (llvm::Argument &a : f.args()) {
      if (!a.getType()->isPointerTy()) {
        auto t = typeOf(a.getType());
        expressible = expressible && t && *t != LibdeviceType::Void;
        sig.params.push_back({t.value_or(LibdeviceType::Void), false});
        continue;
      }
      if (llvm::Error e = f.materialize()) { // only functions with pointers need their bodies
        llvm::consumeError(std::move(e));
        expressible = false;
        break;
      }
      auto t = outputType(a);
      expressible = expressible && t;
      sig.params.push_back({t.value_or(LibdeviceType::Void), true});
    }
    if (expressible)
      out.emplace(f.getName().drop_front(5).str(), std::move(sig));
  }
  return out;
}

const std::map<std::string, LibdeviceSignature> &signatures() {
  static std::once_flag once;
  static std::map<std::string, LibdeviceSignature> table;
  std::call_once(once, [] { table = readSignatures(); });
  return table;
}

} // namespace

const LibdeviceSignature *libdeviceSignature(const std::string &name) {
  auto &t = signatures();
  auto it = t.find(name);
  return it == t.end() ? nullptr : &it->second;
}

std::vector<std::string> libdeviceFunctionNames() {
  std::vector<std::string> names;
  for (auto &[n, s] : signatures())
    names.push_back(n);
  return names;
}

} // namespace cutwin::ir
