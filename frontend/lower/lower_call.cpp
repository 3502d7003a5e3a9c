// Lowering of calls: casts, device functions, cuda.* intrinsics, math.* and builtins.
#include "frontend/ir/libdevice_signatures.h"
#include "frontend/lower/lowerer.h"

#include "frontend/ir/intrinsics.h"
#include "frontend/sema/builtins.h"

#include <algorithm>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <limits>

namespace cutwin::ir {

using namespace llvm;

Value *Lowerer::lowerCall(const fe::CallExpr &c) {
  const fe::ExprInfo &ci = info(c);
  setLoc(c.loc);
  if (ci.callee)
    return lowerDeviceCall(c, ci);
  if (ci.builtin == "cast")
    return lowerAs(*c.args[0], Type::scalarOf(ci.operandTypes[0]));
  if (ci.builtin == "cuda.shared.array" || ci.builtin == "cuda.local.array")
    return lowerArrayAlloc(c);
  if (ci.builtin.rfind("math.", 0) == 0)
    return lowerMathCall(c, ci);
  if (ci.builtin.rfind("cuda.random.", 0) == 0)
    return lowerRandomCall(c, ci);
  if (ci.builtin.rfind("numpy.", 0) == 0)
    return lowerUfuncCall(c, ci);
  if (ci.builtin.rfind("foreign.", 0) == 0)
    return lowerForeignCall(c, ci);
  if (ci.builtin.rfind("cuda.libdevice.", 0) == 0)
    return lowerLibdeviceCall(c, ci);
  if (ci.builtin.rfind("cmath.", 0) == 0)
    return lowerCmathCall(c, ci);
  if (ci.builtin.rfind("operator.", 0) == 0)
    return lowerOperatorCall(c, ci);
  if (ci.builtin.rfind("cuda.atomic.", 0) == 0)
    return lowerAtomicCall(c, ci);
  if (fe::isWarpFunction(ci.builtin))
    return lowerWarpCall(c, ci);
  if (ci.builtin == "builtins.print")
    return lowerPrint(c);
  return lowerBuiltinCall(c, ci);
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
      args.push_back(convert(constant(*ci.boundDefaults[i], ci.boundDefaults[i]->type()), ci.boundDefaults[i]->type(), t));
  }
  args.push_back(errRecord_);
  setLoc(c.loc);
  return b_.CreateCall(callee, args);
}

Value *Lowerer::lowerForeignCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  const fe::Symbol &sym = *typer_.program().function(ci.builtin.substr(8));
  const fe::Signature &sig = sym.foreignSignature;
  auto *ptr = PointerType::get(ctx_, 0);
  bool returns = sig.ret.isScalar();
  std::vector<llvm::Type *> params;
  std::vector<Value *> args;
  AllocaInst *ret = nullptr;
  if (!sym.foreignCAbi) { // numba's ABI: the result through a pointer, a status returned
    ret = entryAlloca(returns ? memType(sig.ret.scalar) : llvm::Type::getInt8Ty(ctx_), sym.foreignName + ".ret");
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

Value *Lowerer::minMax(bool isMax, ArrayRef<Value *> vals, Scalar t) {
  // Python's min/max: the first of equal candidates wins; a NaN operand is kept only
  // when it comes first (comparisons with NaN are false).
  Value *acc = vals[0];
  for (size_t i = 1; i < vals.size(); ++i) {
    Value *better = compare(isMax ? fe::CmpOp::Gt : fe::CmpOp::Lt, vals[i], acc, t);
    acc = b_.CreateSelect(better, vals[i], acc);
  }
  return acc;
}

Value *Lowerer::lowerLibdeviceCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  std::string name = ci.builtin.substr(strlen("cuda.libdevice."));
  const ir::LibdeviceSignature *sig = ir::libdeviceSignature(name); // found when typed
  auto typeOf = [&](ir::LibdeviceType t) -> llvm::Type * {
    return t == ir::LibdeviceType::Void ? llvm::Type::getVoidTy(ctx_) : scalarType(fe::libdeviceScalar(t));
  };
  // Outputs go through slots in the thread's frame, read back after the call.
  std::vector<llvm::Type *> params;
  std::vector<Value *> args;
  std::vector<AllocaInst *> outs;
  size_t input = 0;
  for (const ir::LibdeviceParam &p : sig->params) {
    if (p.output) {
      outs.push_back(entryAlloca(typeOf(p.type), "libdevice." + name + ".out"));
      params.push_back(PointerType::get(ctx_, 0));
      args.push_back(outs.back());
      continue;
    }
    args.push_back(lowerAs(*c.args[input], Type::scalarOf(ci.operandTypes[input])));
    params.push_back(args.back()->getType());
    ++input;
  }
  FunctionCallee callee =
      mod_.getOrInsertFunction("__nv_" + name, FunctionType::get(typeOf(sig->ret), params, false));
  if (auto *fn = dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotThrow();
    fn->setWillReturn();
    if (outs.empty())
      fn->setDoesNotAccessMemory();
  }
  setLoc(c.loc);
  Value *ret = b_.CreateCall(callee, args);
  std::vector<Value *> results;
  if (sig->ret != ir::LibdeviceType::Void)
    results.push_back(ret);
  for (AllocaInst *slot : outs)
    results.push_back(b_.CreateAlignedLoad(slot->getAllocatedType(), slot, slot->getAlign()));
  if (results.empty())
    return nullptr;
  if (results.size() == 1)
    return results[0];
  Value *tuple = UndefValue::get(llvmType(ci.type));
  for (unsigned k = 0; k < results.size(); ++k)
    tuple = b_.CreateInsertValue(tuple, results[k], {k});
  return tuple;
}

Value *Lowerer::lowerBuiltinCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  const std::string &fn = ci.builtin;
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  if (fn == "cuda.grid" || fn == "cuda.gridsize") {
    unsigned n = unsigned(ci.constant->i);
    std::vector<Value *> vals;
    for (unsigned d = 0; d < n; ++d) {
      if (fn == "cuda.grid") {
        Value *tid = b_.CreateSExt(b_.CreateCall(getIntrinsic(mod_, threadIdxIntrinsic(d))), i64);
        Value *ntid = b_.CreateSExt(b_.CreateCall(getIntrinsic(mod_, blockDimIntrinsic(d))), i64);
        Value *ctaid = b_.CreateSExt(b_.CreateCall(getIntrinsic(mod_, blockIdxIntrinsic(d))), i64);
        vals.push_back(b_.CreateAdd(b_.CreateMul(ntid, ctaid), tid));
      } else {
        Value *ntid = b_.CreateSExt(b_.CreateCall(getIntrinsic(mod_, blockDimIntrinsic(d))), i64);
        Value *nctaid = b_.CreateSExt(b_.CreateCall(getIntrinsic(mod_, gridDimIntrinsic(d))), i64);
        vals.push_back(b_.CreateMul(ntid, nctaid));
      }
    }
    if (n == 1)
      return vals[0];
    Value *agg = UndefValue::get(llvmType(ci.type));
    for (unsigned d = 0; d < n; ++d)
      agg = b_.CreateInsertValue(agg, vals[d], {d});
    return agg;
  }
  if (fn == "cuda.cg.this_grid")
    return ConstantStruct::get(StructType::get(ctx_)); // a grid group carries nothing
  if (fn == "cuda.cg.grid_group.sync") {
    b_.CreateCall(getIntrinsic(mod_, Intrinsic::GridSync),
                  {ConstantInt::get(llvm::Type::getInt32Ty(ctx_), site(c.loc, "grid barrier"))});
    return nullptr;
  }
  if (fn == "cuda.syncthreads_count" || fn == "cuda.syncthreads_and" || fn == "cuda.syncthreads_or") {
    // Three barriers around a shared counter of this call site: thread (0,0,0) clears it,
    // every thread adds its predicate, every thread reads the sum. Exact on both backends
    // (the next such call clears only after every thread has passed its own first barrier).
    Value *pred = truth(lowerExpr(*c.args[0]), info(*c.args[0]).type);
    auto *i32 = llvm::Type::getInt32Ty(ctx_);
    auto *counter = new GlobalVariable(mod_, i32, false, GlobalValue::InternalLinkage, UndefValue::get(i32),
                                       spec_->def->name + ".block_vote." + std::to_string(sharedCounter_++),
                                       nullptr, GlobalValue::NotThreadLocal, 3);
    counter->setAlignment(Align(4));
    unsigned id = site(c.loc, "barrier");
    auto barrier = [&] { b_.CreateCall(getIntrinsic(mod_, Intrinsic::Barrier), {ConstantInt::get(i32, id)}); };
    setLoc(c.loc);
    barrier();
    Value *first = b_.CreateIsNull(b_.CreateOr(b_.CreateOr(specialRegister("cuda.threadIdx.x"),
                                                           specialRegister("cuda.threadIdx.y")),
                                               specialRegister("cuda.threadIdx.z")));
    auto *clear = BasicBlock::Create(ctx_, "vote.clear", fn_);
    auto *cont = BasicBlock::Create(ctx_, "vote.add", fn_);
    b_.CreateCondBr(first, clear, cont);
    b_.SetInsertPoint(clear);
    b_.CreateStore(ConstantInt::get(i32, 0), counter);
    b_.CreateBr(cont);
    b_.SetInsertPoint(cont);
    barrier();
    b_.CreateAtomicRMW(AtomicRMWInst::Add, counter, b_.CreateZExt(pred, i32), MaybeAlign(4),
                       AtomicOrdering::Monotonic);
    barrier();
    Value *count = b_.CreateLoad(i32, counter);
    if (fn == "cuda.syncthreads_count")
      return count;
    if (fn == "cuda.syncthreads_or")
      return b_.CreateZExt(b_.CreateICmpNE(count, ConstantInt::get(i32, 0)), i32);
    Value *threads = b_.CreateMul(b_.CreateMul(specialRegister("cuda.blockDim.x"), specialRegister("cuda.blockDim.y")),
                                  specialRegister("cuda.blockDim.z"));
    return b_.CreateZExt(b_.CreateICmpEQ(count, threads), i32);
  }
  if (fn == "cuda.syncthreads") {
    b_.CreateCall(getIntrinsic(mod_, Intrinsic::Barrier),
                  {ConstantInt::get(llvm::Type::getInt32Ty(ctx_), site(c.loc, "barrier"))});
    return nullptr;
  }
  if (fn == "builtins.len") {
    if (ci.constant)
      return ConstantInt::get(i64, uint64_t(ci.constant->i));
    return arrayField(lowerExpr(*c.args[0]), 1, 0);
  }
  if (fn == "builtins.min" || fn == "builtins.max" || fn == "builtins.min.tuple" ||
      fn == "builtins.max.tuple") {
    bool isMax = fn.rfind("builtins.max", 0) == 0;
    Scalar t = ci.type.scalar;
    std::vector<Value *> vals;
    if (fn.size() > 12 && fn.substr(fn.size() - 6) == ".tuple") {
      Value *tup = lowerExpr(*c.args[0]);
      const Type &tt = info(*c.args[0]).type;
      for (unsigned i = 0; i < tt.elems.size(); ++i)
        vals.push_back(convert(b_.CreateExtractValue(tup, {i}), tt.elems[i], ci.type));
    } else {
      // numba-cuda lowers min/max of two floats to libdevice's fmin/fmax (min.f32 and
      // friends): a NaN operand loses. Other operands follow Python's rules.
      if (c.args.size() == 2 && info(*c.args[0]).type.isFloat() && info(*c.args[1]).type.isFloat())
        return libdeviceCall(isMax ? "fmax" : "fmin", t, {lowerAs(*c.args[0], ci.type), lowerAs(*c.args[1], ci.type)});
      for (auto &a : c.args)
        vals.push_back(lowerAs(*a, ci.type));
    }
    return minMax(isMax, vals, t);
  }
  if (fn == "builtins.complex") { // complex(real=0, imag=0); complex arguments as in Python
    Value *re = ConstantFP::get(llvm::Type::getDoubleTy(ctx_), 0.0), *im = re;
    Value *parts[2] = {nullptr, nullptr};
    for (size_t i = 0; i < c.args.size(); ++i)
      parts[i] = lowerAs(*c.args[i], Type::scalarOf(ci.operandTypes[i]));
    auto realOf = [&](size_t i) { return fe::isComplex(ci.operandTypes[i]) ? realPart(parts[i]) : parts[i]; };
    auto imagOf = [&](size_t i) {
      return fe::isComplex(ci.operandTypes[i]) ? imagPart(parts[i]) : ConstantFP::get(re->getType(), 0.0);
    };
    if (parts[0]) {
      re = realOf(0);
      im = imagOf(0);
    }
    if (parts[1]) { // complex(a, b) = a + b*1j
      re = b_.CreateFSub(re, imagOf(1));
      im = b_.CreateFAdd(im, realOf(1));
    }
    return makeComplex(re, im, Scalar::C128);
  }
  if (fn == "cuda.popc" || fn == "cuda.clz" || fn == "cuda.ffs" || fn == "cuda.brev") {
    Scalar t = ci.operandTypes[0];
    Value *v = lowerAs(*c.args[0], Type::scalarOf(t));
    if (fn == "cuda.popc")
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, v);
    if (fn == "cuda.brev")
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::bitreverse, v);
    if (fn == "cuda.clz")
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, v, b_.getFalse());
    // ffs: 1 + the index of the lowest set bit, 0 when none is
    Value *tz = b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, v, b_.getFalse());
    Value *pos = b_.CreateAdd(b_.CreateZExtOrTrunc(tz, b_.getInt32Ty()), b_.getInt32(1));
    return b_.CreateSelect(b_.CreateICmpEQ(v, ConstantInt::get(v->getType(), 0)), b_.getInt32(0), pos);
  }
  if (fn == "cuda.fma") {
    Type ft = Type::scalarOf(ci.operandTypes[0]);
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {scalarType(ft.scalar)},
                              {lowerAs(*c.args[0], ft), lowerAs(*c.args[1], ft), lowerAs(*c.args[2], ft)});
  }
  if (fn == "cuda.cbrt") {
    Scalar t = ci.operandTypes[0];
    return libdeviceCall("cbrt", t, {lowerAs(*c.args[0], Type::scalarOf(t))});
  }
  if (fn == "cuda.selp") {
    Type vt = Type::scalarOf(ci.operandTypes[1]);
    Value *test = truth(lowerExpr(*c.args[0]), info(*c.args[0]).type);
    return b_.CreateSelect(test, lowerAs(*c.args[1], vt), lowerAs(*c.args[2], vt));
  }
  if (fn == "cuda.lanemask_lt")
    return b_.CreateSub(b_.CreateShl(b_.getInt32(1), laneId()), b_.getInt32(1));
  if (fn == "cuda.nanosleep") {
    b_.CreateCall(getIntrinsic(mod_, Intrinsic::Nanosleep), {lowerAs(*c.args[0], Type::scalarOf(Scalar::U32))});
    return nullptr;
  }
  if (fn == "cuda.threadfence" || fn == "cuda.threadfence_block" || fn == "cuda.threadfence_system") {
    // The scope travels as the fence's sync scope ("block", "device", "system"); the GPU
    // backend turns it into membar.cta/gl/sys, the CPU into its ordinary fence.
    const char *scope = fn == "cuda.threadfence_block" ? "block" : fn == "cuda.threadfence" ? "device" : "system";
    b_.CreateFence(AtomicOrdering::SequentiallyConsistent, ctx_.getOrInsertSyncScopeID(scope));
    return nullptr;
  }
  if (fn == "scalar.bit_count") {
    Scalar t = ci.operandTypes[0];
    Value *v = lowerAs(*static_cast<const fe::AttributeExpr &>(*c.func).value, Type::scalarOf(t));
    return b_.CreateZExtOrTrunc(b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, v), b_.getInt64Ty());
  }
  if (fn == "scalar.conjugate") {
    Scalar t = ci.operandTypes[0];
    Value *v = lowerAs(*static_cast<const fe::AttributeExpr &>(*c.func).value, Type::scalarOf(t));
    if (!fe::isComplex(t))
      return v;
    return makeComplex(realPart(v), b_.CreateFNeg(imagPart(v)), t);
  }
  if (fn == "builtins.abs") {
    Scalar t = ci.operandTypes[0];
    Value *v = lowerAs(*c.args[0], Type::scalarOf(t));
    if (fe::isComplex(t))
      return complexAbs(v, t);
    if (fe::isFloat(t))
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
    if (!fe::isSigned(t))
      return v;
    return b_.CreateSelect(b_.CreateICmpSLT(v, ConstantInt::get(v->getType(), 0)), b_.CreateNeg(v), v);
  }
  if (fn == "builtins.round" && c.args.size() == 2)
    return roundToDigits(lowerAs(*c.args[0], Type::scalarOf(Scalar::F64)), lowerAs(*c.args[1], Type::scalarOf(Scalar::I64)),
                         ci.type.scalar);
  if (fn == "builtins.round") {
    Scalar t = ci.operandTypes[0];
    Value *v = lowerAs(*c.args[0], Type::scalarOf(t));
    // Python rounds half to even, which is rint in the default rounding mode.
    Value *r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::rint, v);
    return convertScalar(r, t, ci.type.scalar);
  }
  if (fn == "builtins.pow") {
    Scalar la = ci.operandTypes[0], rb = ci.operandTypes[1];
    Value *l = lowerAs(*c.args[0], Type::scalarOf(la));
    Value *r = lowerAs(*c.args[1], Type::scalarOf(rb));
    return power(l, r, la, rb, ci.type.scalar);
  }
  throw Error("internal error: builtin '" + fn + "' not lowered");
}

Value *Lowerer::roundToDigits(Value *x, Value *nd, Scalar out) {
  // CPython's fallback double_round, as numba-cuda compiles it (in float64): scale by a
  // power of ten, round half to even, scale back; infinities, NaN and a scaling that
  // overflows give x itself.
  auto *f64 = llvm::Type::getDoubleTy(ctx_);
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  auto cst = [&](double v) { return ConstantFP::get(f64, v); };
  auto pow10 = [&](Value *n) { return power(cst(10.0), n, Scalar::F64, Scalar::I64, Scalar::F64); };
  auto rnd = [&](Value *v) { // round(): an int64, back to float64
    return b_.CreateSIToFP(libdeviceCall("llrint", Scalar::F64, {v}, i64), f64);
  };
  Value *zero = ConstantInt::get(i64, 0);
  Value *nonNeg = b_.CreateICmpSGE(nd, zero);
  Value *big = b_.CreateICmpSGT(nd, ConstantInt::get(i64, 22));
  Value *pow1 = b_.CreateSelect(
      nonNeg, pow10(b_.CreateSelect(big, b_.CreateSub(nd, ConstantInt::get(i64, 22)), nd)), pow10(b_.CreateNeg(nd)));
  Value *pow2 = b_.CreateSelect(b_.CreateAnd(nonNeg, big), cst(1e22), cst(1.0));
  Value *y = b_.CreateSelect(nonNeg, b_.CreateFMul(b_.CreateFMul(x, pow1), pow2), fdiv(x, pow1));
  Value *z = rnd(y);
  Value *half = b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, b_.CreateFSub(y, z)), cst(0.5));
  z = b_.CreateSelect(half, b_.CreateFMul(cst(2.0), rnd(fdiv(y, cst(2.0)))), z);
  Value *back = b_.CreateSelect(nonNeg, fdiv(fdiv(z, pow2), pow1), b_.CreateFMul(z, pow1));
  Value *ax = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), *ay = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, y);
  Value *inf = cst(std::numeric_limits<double>::infinity());
  Value *keep = b_.CreateOr(b_.CreateFCmpUEQ(ax, inf), b_.CreateAnd(nonNeg, b_.CreateFCmpOEQ(ay, inf)));
  Value *r = b_.CreateSelect(keep, x, back); // UEQ: NaN keeps x too
  return convertScalar(r, Scalar::F64, out);
}

Value *Lowerer::lowerMathCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  std::vector<Value *> args;
  for (size_t i = 0; i < c.args.size(); ++i)
    args.push_back(lowerAs(*c.args[i], Type::scalarOf(ci.operandTypes[i])));
  setLoc(c.loc);
  return mathOp(ci.builtin.substr(5), args, ci.operandTypes, ci.type.scalar);
}

Value *Lowerer::mathOp(const std::string &name, ArrayRef<Value *> args, ArrayRef<Scalar> argTypes, Scalar out) {
  Scalar in = argTypes[0];

  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    if (!fe::isFloat(in))
      return ConstantInt::getBool(ctx_, name == "isfinite");
    Value *x = args[0];
    if (name == "isnan")
      return b_.CreateFCmpUNO(x, x);
    Value *ax = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    Value *inf = ConstantFP::getInfinity(x->getType());
    return name == "isinf" ? b_.CreateFCmpOEQ(ax, inf) : b_.CreateFCmpOLT(ax, inf);
  }
  if (name == "radians" || name == "degrees") {
    double k = name == "radians" ? M_PI / 180.0 : 180.0 / M_PI;
    return b_.CreateFMul(ConstantFP::get(args[0]->getType(), k), args[0]);
  }
  if (name == "sqrt")
    return fsqrt(args[0]);
  // numba-cuda's fastmath takes tanh.approx.f32 for float32 tanh, and libdevice's fast
  // float32 versions of these.
  if (out_.info.fastmath && name == "tanh" && in == Scalar::F32)
    return b_.CreateCall(getIntrinsic(mod_, Intrinsic::TanhApprox), {args[0]});
  static const char *const fast[] = {"cos", "sin", "tan", "exp", "log", "log2", "log10", "pow"};
  if (out_.info.fastmath && out == Scalar::F32 && in == Scalar::F32 &&
      std::find(std::begin(fast), std::end(fast), name) != std::end(fast) &&
      (name != "pow" || argTypes[1] == Scalar::F32))
    return libdeviceCall("fast_" + name, out, args);
  // Exact operations are LLVM intrinsics (IEEE on every target); the rest is libdevice.
  static const std::pair<const char *, llvm::Intrinsic::ID> exact[] = {
      {"fabs", llvm::Intrinsic::fabs},
      {"floor", llvm::Intrinsic::floor}, {"ceil", llvm::Intrinsic::ceil},
      {"trunc", llvm::Intrinsic::trunc}, {"copysign", llvm::Intrinsic::copysign},
  };
  for (auto &[n, id] : exact)
    if (name == n)
      return args.size() == 1 ? b_.CreateUnaryIntrinsic(id, args[0])
                              : b_.CreateBinaryIntrinsic(id, args[0], args[1]);
  if (name == "pow" && fe::isInteger(argTypes[1]))
    return libdeviceCall("powi", out, args); // __nv_powi / __nv_powif (float, int32)
  const fe::MathFunction *m = fe::mathFunction(name);
  return libdeviceCall(m->libdevice, out, args);
}

} // namespace cutwin::ir
