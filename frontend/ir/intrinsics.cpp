#include "frontend/ir/intrinsics.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <array>

namespace cutwin::ir {

namespace {
constexpr std::array<const char *, kIntrinsicCount> kNames = {
    "cutwin.tid.x",    "cutwin.tid.y",    "cutwin.tid.z",   "cutwin.ctaid.x",     "cutwin.ctaid.y",
    "cutwin.ctaid.z",  "cutwin.ntid.x",   "cutwin.ntid.y",  "cutwin.ntid.z",      "cutwin.nctaid.x",
    "cutwin.nctaid.y", "cutwin.nctaid.z", "cutwin.barrier", "cutwin.error.raise", "cutwin.dynamic_shared_size",
    "cutwin.grid.sync", "cutwin.nanosleep", "cutwin.warp", "cutwin.print", "cutwin.tanh.approx",
};
} // namespace

const char *intrinsicName(Intrinsic id) { return kNames[size_t(id)]; }

std::optional<Intrinsic> lookupIntrinsic(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (name == kNames[i])
      return Intrinsic(i);
  return std::nullopt;
}

Intrinsic threadIdxIntrinsic(unsigned d) { return Intrinsic(unsigned(Intrinsic::TidX) + d); }
Intrinsic blockIdxIntrinsic(unsigned d) { return Intrinsic(unsigned(Intrinsic::CtaidX) + d); }
Intrinsic blockDimIntrinsic(unsigned d) { return Intrinsic(unsigned(Intrinsic::NtidX) + d); }
Intrinsic gridDimIntrinsic(unsigned d) { return Intrinsic(unsigned(Intrinsic::NctaidX) + d); }

llvm::Function *getIntrinsic(llvm::Module &m, Intrinsic id) {
  using namespace llvm;
  LLVMContext &c = m.getContext();
  const char *name = intrinsicName(id);
  if (Function *f = m.getFunction(name))
    return f;
  Type *i32 = Type::getInt32Ty(c), *i64 = Type::getInt64Ty(c), *voidTy = Type::getVoidTy(c);
  FunctionType *ft;
  switch (id) {
  case Intrinsic::Barrier:
  case Intrinsic::GridSync:
  case Intrinsic::Nanosleep: ft = FunctionType::get(voidTy, {i32}, false); break;
  case Intrinsic::RaiseError:
    ft = FunctionType::get(voidTy, {PointerType::get(c, 1), i32, i32, i64, i64, i64}, false);
    break;
  case Intrinsic::Warp: ft = FunctionType::get(i64, {i32, i32, i64, i32, i32}, false); break;
  case Intrinsic::Print: ft = FunctionType::get(voidTy, {PointerType::get(c, 0), PointerType::get(c, 0)}, false); break;
  case Intrinsic::TanhApprox: ft = FunctionType::get(Type::getFloatTy(c), {Type::getFloatTy(c)}, false); break;
  default: ft = FunctionType::get(i32, {}, false); break;
  }
  Function *f = Function::Create(ft, GlobalValue::ExternalLinkage, name, m);
  f->addFnAttr(Attribute::NoUnwind);
  switch (id) {
  case Intrinsic::Barrier:
  case Intrinsic::GridSync:
  case Intrinsic::Warp: f->addFnAttr(Attribute::Convergent); break; // and orders memory, as syncwarp does
  case Intrinsic::RaiseError:
    f->addFnAttr(Attribute::NoReturn);
    f->addFnAttr(Attribute::Cold);
    break;
  case Intrinsic::Nanosleep: // has an effect (time passes): never removed or moved
  case Intrinsic::Print: break;
  default:
    f->setDoesNotAccessMemory();
    f->addFnAttr(Attribute::WillReturn);
    f->addFnAttr(Attribute::NoSync);
    break;
  }
  return f;
}

} // namespace cutwin::ir
