// Lowering of calls: casts, device functions, cuda.* intrinsics, math.* and builtins.
#include "frontend/builtins/builtin.h"
#include "frontend/ir/libdevice_signatures.h"
#include "frontend/lower/lowerer.h"

#include "frontend/builtins/math.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/sema/builtins.h"

#include <algorithm>
#include <cctype>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <limits>

namespace cutwin::ir {

using namespace llvm;

Value *Lowerer::lowerCall(const fe::CallExpr &c) {
  if (auto x = spec_->expandedCalls.find(&c); x != spec_->expandedCalls.end()) {
    for (auto &a : c.args) // this evaluation of the call evaluates its unpacked tuples anew
      if (auto *s = fe::dyn<fe::StarredExpr>(a.get()))
        unpackedTuples_.erase(s->value.get());
    return lowerCall(*x->second);
  }
  const fe::ExprInfo &ci = info(c);
  setLoc(c.loc);
  if (ci.callee)
    return lowerDeviceCall(c, ci);
  if (ci.foreign)
    return lowerForeignCall(c, ci);
  if (!ci.function || !ci.function->lower) { // range(), cuda.const.array_like: read by their users
    std::string name = ci.function ? ci.function->name : "this function";
    name = name.substr(name.find('.') + 1); // (builtins.range: range)
    spec_->file().error(c.loc, name +
                                   "() makes no value of its own in kernels: use it where it is read (a for "
                                   "loop's range, an array's initial contents)");
  }
  return ci.function->lower(*this, c, ci); // a builtin of the registry (frontend/builtins/)
}

Value *Lowerer::lowerDeviceCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  llvm::Function *callee = declareFunction(*ci.callee);
  std::vector<Value *> args;
  for (size_t i = 0; i < ci.callee->argTypes.size(); ++i) {
    const Type &t = ci.callee->argTypes[i];
    if (fe::isStaticType(t))
      continue;
    if (const fe::Expr *a = ci.boundArgs[i])
      args.push_back(lowerAs(*a, t));
    else // the parameter's default
      args.push_back(convert(constant(*ci.boundDefaults[i], ci.boundDefaults[i]->type()),
                             ci.boundDefaults[i]->type(), t));
  }
  args.push_back(errRecord_);
  setLoc(c.loc);
  return b_.CreateCall(callee, args);
}

Value *Lowerer::lowerForeignCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  const fe::Symbol &sym = *ci.foreign;
  const fe::Signature &sig = sym.foreignSignature;
  // The name is the linked code's symbol: a C identifier (PTX and the CPU's linker accept
  // no other; LLVM's NVPTX would abort on one)
  const std::string &name = sym.foreignName;
  bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                    std::all_of(name.begin(), name.end(), [](char ch) {
                      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
                    });
  if (!identifier)
    spec_->file().error(c.loc,
                        "cuda.declare_device() names '" + name +
                            "', which is not a C identifier: the linked code's function cannot have it");
  auto *ptr = PointerType::get(ctx_, 0);
  bool returns = sig.ret.isScalar();
  std::vector<llvm::Type *> params;
  std::vector<Value *> args;
  AllocaInst *ret = nullptr;
  if (!sym.foreignCAbi) { // numba's ABI: the result through a pointer, a status returned
    ret = entryAlloca(returns ? memType(sig.ret.scalar) : llvm::Type::getInt8Ty(ctx_),
                      sym.foreignName + ".ret");
    params.push_back(ptr);
    args.push_back(ret);
  }
  for (size_t i = 0; i < c.args.size(); ++i) {
    const Type &want = sig.args[i];
    if (want.pointer) { // the data pointer of the array or CPointer passed, as a generic address
      Value *arr = lowerExpr(*c.args[i]);
      params.push_back(ptr);
      args.push_back(b_.CreateAddrSpaceCast(arrayField(arr, 0, 0), ptr));
      continue;
    }
    Value *v = lowerAs(*c.args[i], want);
    if (want.isBool())
      v = b_.CreateZExt(v, memType(Scalar::Bool));
    params.push_back(v->getType());
    args.push_back(v);
  }
  llvm::Type *resultType = !sym.foreignCAbi ? llvm::Type::getInt32Ty(ctx_)
                           : returns        ? memType(sig.ret.scalar)
                                            : llvm::Type::getVoidTy(ctx_);
  auto *ft = FunctionType::get(resultType, params, false);
  FunctionCallee callee = mod_.getOrInsertFunction(sym.foreignName, ft);
  if (auto *f = dyn_cast<llvm::Function>(callee.getCallee()); !f || f->getFunctionType() != ft)
    spec_->file().error(c.loc, "foreign device function '" + sym.foreignName +
                                   "' is declared twice with different signatures");
  out_.info.foreign.emplace(sym.foreignName, c.loc);
  for (auto &f : sym.foreignLink)
    if (std::find(out_.info.link.begin(), out_.info.link.end(), f) == out_.info.link.end())
      out_.info.link.push_back(f);
  setLoc(c.loc);
  Value *result = b_.CreateCall(callee, args); // numba's status is ignored, as numba does
  if (!returns)
    return nullptr;
  Value *v = sym.foreignCAbi ? result : b_.CreateLoad(ret->getAllocatedType(), ret);
  return sig.ret.isBool() ? b_.CreateICmpNE(v, ConstantInt::get(v->getType(), 0)) : v;
}

} // namespace cutwin::ir
