#include "backend_gpu/lower_intrinsics.h"

#include "backend_gpu/cache_hints.h"

#include "backend_gpu/lower_warp.h"

#include "frontend/ir/error_record.h"
#include "frontend/ir/intrinsics.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <cstddef>

namespace cutwin::gpu {

using namespace llvm;

namespace {

/// The PTX of one `cutwin.approx` unit ($0 = unit($1), both .f32 registers).
const char *approxUnitPtx(ir::ApproxUnit unit) {
  switch (unit) {
  case ir::ApproxUnit::Ex2Ftz: return "ex2.approx.ftz.f32 $0, $1;";
  case ir::ApproxUnit::Lg2Ftz: return "lg2.approx.ftz.f32 $0, $1;";
  case ir::ApproxUnit::RcpFtz: return "rcp.approx.ftz.f32 $0, $1;";
  case ir::ApproxUnit::RsqrtFtz: return "rsqrt.approx.ftz.f32 $0, $1;";
  case ir::ApproxUnit::SqrtFtz: return "sqrt.approx.ftz.f32 $0, $1;";
  case ir::ApproxUnit::Tanh: return "tanh.approx.f32 $0, $1;";
  case ir::ApproxUnit::TanhF16:
    return "{.reg .b16 h; cvt.rn.f16.f32 h, $1; tanh.approx.f16 h, h; cvt.f32.f16 $0, h;}";
  case ir::ApproxUnit::Ex2: return "ex2.approx.f32 $0, $1;";
  case ir::ApproxUnit::Lg2: return "lg2.approx.f32 $0, $1;";
  case ir::ApproxUnit::Rcp: return "rcp.approx.f32 $0, $1;";
  case ir::ApproxUnit::Rsqrt: return "rsqrt.approx.f32 $0, $1;";
  case ir::ApproxUnit::Sqrt: return "sqrt.approx.f32 $0, $1;";
  case ir::ApproxUnit::TanhBF16: // (a bfloat16 is a float32's upper half)
    return "{.reg .b16 h, z; cvt.rn.bf16.f32 h, $1; tanh.approx.bf16 h, h; mov.b16 z, 0; mov.b32 $0, {z, "
           "h};}";
  }
  throw Error("GPU backend: cutwin.approx with an unknown unit");
}

/// The NVVM special-register read of a thread/block index or size intrinsic.
Intrinsic::ID specialRegister(ir::Intrinsic id) {
  switch (id) {
  case ir::Intrinsic::TidX: return Intrinsic::nvvm_read_ptx_sreg_tid_x;
  case ir::Intrinsic::TidY: return Intrinsic::nvvm_read_ptx_sreg_tid_y;
  case ir::Intrinsic::TidZ: return Intrinsic::nvvm_read_ptx_sreg_tid_z;
  case ir::Intrinsic::CtaidX: return Intrinsic::nvvm_read_ptx_sreg_ctaid_x;
  case ir::Intrinsic::CtaidY: return Intrinsic::nvvm_read_ptx_sreg_ctaid_y;
  case ir::Intrinsic::CtaidZ: return Intrinsic::nvvm_read_ptx_sreg_ctaid_z;
  case ir::Intrinsic::NtidX: return Intrinsic::nvvm_read_ptx_sreg_ntid_x;
  case ir::Intrinsic::NtidY: return Intrinsic::nvvm_read_ptx_sreg_ntid_y;
  case ir::Intrinsic::NtidZ: return Intrinsic::nvvm_read_ptx_sreg_ntid_z;
  case ir::Intrinsic::NctaidX: return Intrinsic::nvvm_read_ptx_sreg_nctaid_x;
  case ir::Intrinsic::NctaidY: return Intrinsic::nvvm_read_ptx_sreg_nctaid_y;
  case ir::Intrinsic::NctaidZ: return Intrinsic::nvvm_read_ptx_sreg_nctaid_z;
  case ir::Intrinsic::Barrier:
  case ir::Intrinsic::RaiseError:
  case ir::Intrinsic::DynamicSharedSize:
  case ir::Intrinsic::GridSync:
  case ir::Intrinsic::Nanosleep:
  case ir::Intrinsic::Spin:
  case ir::Intrinsic::Poll:
  case ir::Intrinsic::Warp:
  case ir::Intrinsic::Print:
  case ir::Intrinsic::Breakpoint:
  case ir::Intrinsic::DebugEnter:
  case ir::Intrinsic::DebugLeave:
  case ir::Intrinsic::Approx:
  case ir::Intrinsic::CacheLoad:
  case ir::Intrinsic::CacheStore: break;
  }
  throw Error(std::string("GPU backend: ") + ir::intrinsicName(id) + " is not a special register");
}

/// The error channel on the GPU: claim the record (CAS 0 -> 1), fill it, publish (2),
/// then end the thread with PTX `exit`.
Function *buildRaise(Module &m) {
  LLVMContext &c = m.getContext();
  auto *i32 = Type::getInt32Ty(c), *i64 = Type::getInt64Ty(c);
  auto *rec = PointerType::get(c, 1);
  auto *fn = Function::Create(FunctionType::get(Type::getVoidTy(c), {rec, i32, i32, i64, i64, i64}, false),
                              GlobalValue::InternalLinkage, "cutwin.gpu.raise", m);
  fn->addFnAttr(Attribute::NoReturn);
  fn->addFnAttr(Attribute::NoInline);
  fn->addFnAttr(Attribute::Cold);
  auto *entry = BasicBlock::Create(c, "entry", fn);
  auto *fill = BasicBlock::Create(c, "fill", fn);
  auto *done = BasicBlock::Create(c, "done", fn);
  IRBuilder<> b(entry);
  Value *r = fn->getArg(0);
  auto field = [&](size_t offset) { return b.CreateInBoundsGEP(b.getInt8Ty(), r, b.getInt64(offset)); };
  Value *claim = b.CreateAtomicCmpXchg(field(offsetof(ir::ErrorRecord, flag)), b.getInt32(0), b.getInt32(1),
                                       MaybeAlign(4), AtomicOrdering::Monotonic, AtomicOrdering::Monotonic);
  b.CreateCondBr(b.CreateExtractValue(claim, {1}), fill, done);
  b.SetInsertPoint(fill);
  b.CreateStore(fn->getArg(1), field(offsetof(ir::ErrorRecord, kind)));
  b.CreateStore(fn->getArg(2), field(offsetof(ir::ErrorRecord, site)));
  for (unsigned d = 0; d < 3; ++d) {
    b.CreateStore(b.CreateIntrinsic(specialRegister(ir::threadIdxIntrinsic(d)), {}, {}),
                  field(offsetof(ir::ErrorRecord, thread) + 4 * d));
    b.CreateStore(b.CreateIntrinsic(specialRegister(ir::blockIdxIntrinsic(d)), {}, {}),
                  field(offsetof(ir::ErrorRecord, block) + 4 * d));
  }
  for (unsigned p = 0; p < 3; ++p)
    b.CreateStore(fn->getArg(3 + p), field(offsetof(ir::ErrorRecord, payload) + 8 * p));
  b.CreateIntrinsic(Intrinsic::nvvm_membar_gl, {}, {}); // the fields before the flag
  b.CreateStore(b.getInt32(2), field(offsetof(ir::ErrorRecord, flag)))->setVolatile(true);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  auto *exitAsm = InlineAsm::get(FunctionType::get(Type::getVoidTy(c), false), "exit;", "", true);
  b.CreateCall(exitAsm);
  b.CreateUnreachable();
  return fn;
}

/// Grid synchronisation on the GPU, the algorithm of CUDA's cooperative groups: after a
/// block barrier one thread per block adds to a counter in global memory (block 0 adds
/// 2^31 - (blocks - 1), the others 1, so each completed barrier flips the top bit and leaves
/// the rest as it was, launch after launch) and spins until the top bit flips; a GPU-scope
/// fence on each side orders memory. Unlike cooperative groups, the block's thread that
/// arrives is elected among the threads that call sync (the lowest thread index, through a
/// shared word), so that threads which returned early (numba's sessionize example) do not
/// stall the grid. Needs all blocks resident: the runtime launches such kernels with the
/// cooperative attribute.
Function *buildGridSync(Module &m, GlobalVariable *leader) {
  LLVMContext &c = m.getContext();
  auto *i32 = Type::getInt32Ty(c);
  auto *counter = new GlobalVariable(m, i32, false, GlobalValue::InternalLinkage, ConstantInt::get(i32, 0),
                                     "cutwin_grid_barrier", nullptr, GlobalValue::NotThreadLocal, 1);
  counter->setAlignment(Align(4));
  auto *fn = Function::Create(FunctionType::get(Type::getVoidTy(c), false), GlobalValue::InternalLinkage,
                              "cutwin.gpu.grid_sync", m);
  fn->addFnAttr(Attribute::NoInline);
  fn->addFnAttr(Attribute::Convergent);
  auto *entry = BasicBlock::Create(c, "entry", fn);
  auto *arrive = BasicBlock::Create(c, "arrive", fn);
  auto *spin = BasicBlock::Create(c, "spin", fn);
  auto *released = BasicBlock::Create(c, "released", fn);
  auto *done = BasicBlock::Create(c, "done", fn);
  IRBuilder<> b(entry);
  auto sreg = [&](ir::Intrinsic id) { return b.CreateIntrinsic(specialRegister(id), {}, {}); };
  auto barrier = [&] { b.CreateIntrinsic(Intrinsic::nvvm_barrier0, {}, {}); };
  Value *tid =
      b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(sreg(ir::Intrinsic::TidZ), sreg(ir::Intrinsic::NtidY)),
                                          sreg(ir::Intrinsic::TidY)),
                              sreg(ir::Intrinsic::NtidX)),
                  sreg(ir::Intrinsic::TidX));
  barrier();
  b.CreateAtomicRMW(AtomicRMWInst::UMin, leader, tid, MaybeAlign(4), AtomicOrdering::Monotonic);
  barrier();
  LoadInst *elected = b.CreateLoad(i32, leader);
  elected->setVolatile(true);
  Value *isLeader = b.CreateICmpEQ(elected, tid);
  barrier(); // every thread has read the election before the leader resets it
  b.CreateCondBr(isLeader, arrive, done);
  b.SetInsertPoint(arrive);
  b.CreateStore(b.getInt32(0xFFFFFFFFu), leader)->setVolatile(true);
  b.CreateIntrinsic(Intrinsic::nvvm_membar_gl, {}, {});
  Value *blocks = b.CreateMul(b.CreateMul(sreg(ir::Intrinsic::NctaidX), sreg(ir::Intrinsic::NctaidY)),
                              sreg(ir::Intrinsic::NctaidZ));
  Value *first =
      b.CreateICmpEQ(b.CreateOr(b.CreateOr(sreg(ir::Intrinsic::CtaidX), sreg(ir::Intrinsic::CtaidY)),
                                sreg(ir::Intrinsic::CtaidZ)),
                     b.getInt32(0));
  Value *inc = b.CreateSelect(first, b.CreateSub(b.getInt32(0x80000000u), b.CreateSub(blocks, b.getInt32(1))),
                              b.getInt32(1));
  Value *old = b.CreateAtomicRMW(AtomicRMWInst::Add, counter, inc, MaybeAlign(4), AtomicOrdering::Monotonic);
  b.CreateBr(spin);
  b.SetInsertPoint(spin);
  LoadInst *now = b.CreateLoad(i32, counter);
  now->setVolatile(true);
  Value *flipped = b.CreateICmpNE(b.CreateAnd(b.CreateXor(old, now), b.getInt32(0x80000000u)), b.getInt32(0));
  b.CreateCondBr(flipped, released, spin);
  b.SetInsertPoint(released);
  b.CreateIntrinsic(Intrinsic::nvvm_membar_gl, {}, {});
  b.CreateBr(done);
  b.SetInsertPoint(done);
  barrier();
  b.CreateRetVoid();
  return fn;
}

/// The shared word grid syncs elect their arriving thread with, set to "nobody" (all ones)
/// when the kernel starts: shared memory starts undefined.
GlobalVariable *initGridLeader(Module &m, Function *kernel) {
  LLVMContext &c = m.getContext();
  auto *i32 = Type::getInt32Ty(c);
  auto *leader = new GlobalVariable(m, i32, false, GlobalValue::InternalLinkage, UndefValue::get(i32),
                                    "cutwin_grid_leader", nullptr, GlobalValue::NotThreadLocal, 3);
  leader->setAlignment(Align(4));
  BasicBlock &entry = kernel->getEntryBlock();
  auto at = entry.getFirstInsertionPt();
  while (isa<AllocaInst>(*at)) // allocas stay in the entry block (static stack slots)
    ++at;
  BasicBlock *rest = entry.splitBasicBlock(at, "entry.after_grid_init");
  entry.getTerminator()->eraseFromParent();
  auto *init = BasicBlock::Create(c, "grid_init", kernel, rest);
  auto *join = BasicBlock::Create(c, "grid_init.done", kernel, rest);
  IRBuilder<> b(&entry);
  Value *t = b.CreateOr(b.CreateOr(b.CreateIntrinsic(specialRegister(ir::Intrinsic::TidX), {}, {}),
                                   b.CreateIntrinsic(specialRegister(ir::Intrinsic::TidY), {}, {})),
                        b.CreateIntrinsic(specialRegister(ir::Intrinsic::TidZ), {}, {}));
  b.CreateCondBr(b.CreateICmpEQ(t, b.getInt32(0)), init, join);
  b.SetInsertPoint(init);
  b.CreateStore(b.getInt32(0xFFFFFFFFu), leader)->setVolatile(true);
  b.CreateBr(join);
  b.SetInsertPoint(join);
  b.CreateIntrinsic(Intrinsic::nvvm_barrier0, {}, {});
  b.CreateBr(rest);
  return leader;
}

} // namespace

namespace {

/// Fences from cuda.threadfence*: NVPTX selects no `fence`, so they become membar by scope.
void lowerFences(Module &m) {
  std::vector<FenceInst *> fences;
  for (Function &f : m)
    for (BasicBlock &bb : f)
      for (Instruction &i : bb)
        if (auto *fi = dyn_cast<FenceInst>(&i))
          fences.push_back(fi);
  if (fences.empty())
    return;
  SmallVector<StringRef, 8> names;
  m.getContext().getSyncScopeNames(names);
  for (FenceInst *fi : fences) {
    StringRef scope = fi->getSyncScopeID() < names.size() ? names[fi->getSyncScopeID()] : "";
    Intrinsic::ID id = scope == "block"    ? Intrinsic::nvvm_membar_cta
                       : scope == "device" ? Intrinsic::nvvm_membar_gl
                                           : Intrinsic::nvvm_membar_sys;
    IRBuilder<> b(fi);
    b.CreateIntrinsic(id, {}, {})->setDebugLoc(fi->getDebugLoc());
    fi->eraseFromParent();
  }
}

} // namespace

GpuLoweringResult lowerIntrinsicsForGpu(Module &m, const ir::KernelInfo &info) {
  GpuLoweringResult result;
  lowerFences(m);
  std::vector<CallInst *> calls;
  for (Function &f : m)
    for (BasicBlock &bb : f)
      for (Instruction &i : bb)
        if (auto *ci = dyn_cast<CallInst>(&i))
          if (Function *callee = ci->getCalledFunction(); callee && callee->getName().startswith("cutwin."))
            calls.push_back(ci);
  Function *raise = nullptr, *gridSync = nullptr;
  for (CallInst *ci : calls) {
    auto id = ir::lookupIntrinsic(ci->getCalledFunction()->getName());
    if (!id)
      throw Error("GPU backend: unknown intrinsic " + ci->getCalledFunction()->getName().str());
    IRBuilder<> b(ci);
    switch (*id) {
    case ir::Intrinsic::Barrier:
      result.usesBarrier = true;
      b.CreateIntrinsic(Intrinsic::nvvm_barrier0, {}, {})->setDebugLoc(ci->getDebugLoc());
      break;
    case ir::Intrinsic::GridSync:
      result.usesBarrier = result.usesGridSync = true;
      if (info.exported)
        throw Error("device function '" + info.name +
                    "' syncs the grid: only kernels can be compiled with "
                    "cuda.cg.this_grid().sync()");
      if (!gridSync) {
        Function *kernel = m.getFunction(info.irName);
        if (!kernel)
          throw Error("GPU backend: kernel function " + info.irName + " missing from module");
        gridSync = buildGridSync(m, initGridLeader(m, kernel));
        b.SetInsertPoint(ci); // initGridLeader split the entry block, which may hold ci
      }
      b.CreateCall(gridSync)->setDebugLoc(ci->getDebugLoc());
      break;
    case ir::Intrinsic::Nanosleep: {
      auto *ty =
          FunctionType::get(Type::getVoidTy(m.getContext()), {Type::getInt32Ty(m.getContext())}, false);
      b.CreateCall(InlineAsm::get(ty, "nanosleep.u32 $0;", "r", true), {ci->getArgOperand(0)})
          ->setDebugLoc(ci->getDebugLoc());
      break;
    }
    case ir::Intrinsic::Spin: break; // a GPU thread makes progress of its own
    case ir::Intrinsic::Poll: break; // (the host watches for Ctrl-C between synchronisations)
    case ir::Intrinsic::Warp: lowerWarpCall(ci); break;
    case ir::Intrinsic::CacheLoad: lowerCacheAccess(ci, false); break;
    case ir::Intrinsic::CacheStore: lowerCacheAccess(ci, true); break;
    case ir::Intrinsic::Approx: {
      auto *unit = cast<ConstantInt>(ci->getArgOperand(0));
      auto *f32 = Type::getFloatTy(m.getContext());
      CallInst *r =
          b.CreateCall(InlineAsm::get(FunctionType::get(f32, {f32}, false),
                                      approxUnitPtx(ir::ApproxUnit(unit->getZExtValue())), "=f,f", false),
                       {ci->getArgOperand(1)});
      r->setDebugLoc(ci->getDebugLoc());
      ci->replaceAllUsesWith(r);
      break;
    }
    case ir::Intrinsic::Breakpoint: // a GPU kernel does not stop (the runtime warns)
    case ir::Intrinsic::DebugEnter:
    case ir::Intrinsic::DebugLeave: break;
    case ir::Intrinsic::Print: { // the CUDA runtime's device printf
      auto *p = PointerType::get(m.getContext(), 0);
      FunctionCallee vprintf = m.getOrInsertFunction("vprintf", Type::getInt32Ty(m.getContext()), p, p);
      b.CreateCall(vprintf, {ci->getArgOperand(0), ci->getArgOperand(1)})->setDebugLoc(ci->getDebugLoc());
      break;
    }
    case ir::Intrinsic::DynamicSharedSize: {
      auto *ty = FunctionType::get(Type::getInt32Ty(m.getContext()), false);
      CallInst *size = b.CreateCall(InlineAsm::get(ty, "mov.u32 $0, %dynamic_smem_size;", "=r", false));
      size->setDebugLoc(ci->getDebugLoc());
      ci->replaceAllUsesWith(size);
      break;
    }
    case ir::Intrinsic::RaiseError: {
      if (!raise)
        raise = buildRaise(m);
      std::vector<Value *> args(ci->arg_begin(), ci->arg_end());
      CallInst *call = b.CreateCall(raise, args);
      call->setDoesNotReturn();
      call->setDebugLoc(ci->getDebugLoc());
      break;
    }
    case ir::Intrinsic::TidX:
    case ir::Intrinsic::TidY:
    case ir::Intrinsic::TidZ:
    case ir::Intrinsic::CtaidX:
    case ir::Intrinsic::CtaidY:
    case ir::Intrinsic::CtaidZ:
    case ir::Intrinsic::NtidX:
    case ir::Intrinsic::NtidY:
    case ir::Intrinsic::NtidZ:
    case ir::Intrinsic::NctaidX:
    case ir::Intrinsic::NctaidY:
    case ir::Intrinsic::NctaidZ: {
      CallInst *sreg = b.CreateIntrinsic(specialRegister(*id), {}, {});
      sreg->setDebugLoc(ci->getDebugLoc());
      ci->replaceAllUsesWith(sreg);
      break;
    }
    }
    ci->eraseFromParent();
  }
  ir::removeLoweredIntrinsics(m, "gpu-lower");

  if (info.exported)
    return result; // a device function, not a kernel entry
  Function *kernel = m.getFunction(info.irName);
  if (!kernel)
    throw Error("GPU backend: kernel function " + info.irName + " missing from module");
  LLVMContext &c = m.getContext();
  auto annotate = [&](const char *key, int value) {
    m.getOrInsertNamedMetadata("nvvm.annotations")
        ->addOperand(MDNode::get(c, {ValueAsMetadata::get(kernel), MDString::get(c, key),
                                     ValueAsMetadata::get(ConstantInt::get(Type::getInt32Ty(c), value))}));
  };
  annotate("kernel", 1);
  // launch_bounds: .maxntid, .minnctapersm (and .maxclusterrank, added to the PTX later:
  // LLVM 16's NVPTX has no annotation for it).
  if (!info.launchBounds.empty())
    annotate("maxntidx", info.launchBounds[0]);
  if (info.launchBounds.size() > 1)
    annotate("minctasm", info.launchBounds[1]);
  return result;
}

} // namespace cutwin::gpu
