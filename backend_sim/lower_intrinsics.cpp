#include "backend_sim/lower_intrinsics.h"

#include "backend_sim/approx_ops.h"
#include "backend_sim/breakpoints.h"
#include "backend_sim/host_callbacks.h"
#include "backend_sim/thread_context.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/ir/passes.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <map>

namespace cutwin::sim {

using namespace llvm;

namespace {

/// Gives every defined function a leading `ptr %ctx` parameter and passes it along at
/// every call.
void addContextParameter(Module &m) {
  LLVMContext &c = m.getContext();
  std::vector<Function *> defined;
  for (Function &f : m)
    if (!f.isDeclaration())
      defined.push_back(&f);
  std::map<Function *, Function *> newOf;
  for (Function *f : defined) {
    FunctionType *ft = f->getFunctionType();
    std::vector<Type *> params{PointerType::get(c, 0)};
    params.insert(params.end(), ft->param_begin(), ft->param_end());
    auto *nft = FunctionType::get(ft->getReturnType(), params, false);
    Function *nf = Function::Create(nft, f->getLinkage(), f->getAddressSpace(), "", &m);
    nf->setAttributes(
        AttributeList::get(c, f->getAttributes().getFnAttrs(), f->getAttributes().getRetAttrs(), {}));
    nf->setSubprogram(f->getSubprogram());
    f->setSubprogram(nullptr);
    nf->splice(nf->end(), f);
    for (unsigned i = 0; i < f->arg_size(); ++i) {
      f->getArg(i)->replaceAllUsesWith(nf->getArg(i + 1));
      nf->getArg(i + 1)->takeName(f->getArg(i));
    }
    nf->getArg(0)->setName("ctx");
    nf->addFnAttr(kKernelCodeAttribute);
    newOf[f] = nf;
  }
  for (auto &[f, nf] : newOf) {
    std::vector<CallInst *> calls;
    for (User *u : f->users())
      if (auto *ci = dyn_cast<CallInst>(u); ci && ci->getCalledFunction() == f)
        calls.push_back(ci);
    for (CallInst *ci : calls) {
      std::vector<Value *> args{ci->getFunction()->getArg(0)};
      args.insert(args.end(), ci->arg_begin(), ci->arg_end());
      auto *nci = CallInst::Create(nf->getFunctionType(), nf, args, "", ci);
      nci->setDebugLoc(ci->getDebugLoc());
      nci->takeName(ci);
      ci->replaceAllUsesWith(nci);
      ci->eraseFromParent();
    }
  }
  for (auto &[f, nf] : newOf) {
    std::string name = f->getName().str();
    f->replaceAllUsesWith(nf); // metadata such as !cutwin.kernels
    f->eraseFromParent();
    nf->setName(name);
  }
}

/// Places shared-memory globals at offsets in the block's shared buffer: the static
/// arrays first, then the dynamic one (the launch's extra bytes). Returns the static size.
uint64_t lowerSharedMemory(Module &m, StructType *ctxTy, std::vector<SharedArrayInfo> &arrays) {
  LLVMContext &c = m.getContext();
  const DataLayout &dl = m.getDataLayout();
  uint64_t offset = 0;
  std::vector<GlobalVariable *> shared;
  for (GlobalVariable &g : m.globals())
    if (g.getAddressSpace() == 3 && g.getName() != ir::kDynamicSharedName)
      shared.push_back(&g);
  if (GlobalVariable *dyn = m.getGlobalVariable(ir::kDynamicSharedName))
    shared.push_back(dyn);
  uint64_t staticBytes = 0;
  for (GlobalVariable *g : shared) {
    uint64_t align = std::max<uint64_t>(g->getAlign().valueOrOne().value(), 16);
    offset = (offset + align - 1) / align * align;
    uint64_t myOffset = offset;
    offset += dl.getTypeAllocSize(g->getValueType());
    if (g->getName() != ir::kDynamicSharedName) {
      staticBytes = offset;
      SharedArrayInfo a;
      a.offset = myOffset;
      a.bytes = offset - myOffset;
      if (MDNode *md = g->getMetadata(ir::kSharedArrayMetadata); md && md->getNumOperands() >= 2) {
        auto field = [&](unsigned i) {
          return mdconst::extract<ConstantInt>(md->getOperand(i))->getZExtValue();
        };
        a.line = uint32_t(field(0));
        a.itemSize = field(1);
        for (unsigned i = 2; i < md->getNumOperands(); ++i)
          a.dims.push_back(field(i));
      }
      arrays.push_back(a);
    }
    ir::expandConstantUsers(g);
    std::map<Function *, Value *> ptrIn;
    std::vector<Instruction *> uses;
    for (User *u : g->users())
      if (auto *inst = dyn_cast<Instruction>(u))
        uses.push_back(inst);
    for (Instruction *inst : uses) {
      Function *f = inst->getFunction();
      Value *&p = ptrIn[f];
      if (!p) {
        IRBuilder<> b(&*f->getEntryBlock().getFirstInsertionPt());
        Value *field = b.CreateStructGEP(ctxTy, f->getArg(0), 4);
        Value *base = b.CreateLoad(PointerType::get(c, 0), field, "shared.base");
        Value *at = b.CreateInBoundsGEP(Type::getInt8Ty(c), base, b.getInt64(myOffset));
        p = b.CreateAddrSpaceCast(at, g->getType(), g->getName());
      }
      inst->replaceUsesOfWith(g, p);
    }
    g->eraseFromParent();
  }
  return staticBytes;
}

void buildThreadEntry(Module &m, Function *kernel, const ir::KernelInfo &info) {
  Function *fn = createEntry(m, kThreadEntry);
  IRBuilder<> b(BasicBlock::Create(m.getContext(), "entry", fn));
  std::vector<Value *> args{fn->getArg(0)};
  auto params = unpackArguments(b, fn->getArg(1), kernel, info);
  args.insert(args.end(), params.begin(), params.end());
  CallInst *call = b.CreateCall(kernel, args);
  b.CreateRetVoid();
  if (!info.debuggerView) // as for the block entry
    attachDebugInfo(fn, kernel, call);
  else
    call->addFnAttr(Attribute::NoInline);
}

/// A whole block as nested loops over threadIdx z, y, x; the kernel is inlined into it.
void buildBlockEntry(Module &m, Function *kernel, const ir::KernelInfo &info) {
  LLVMContext &c = m.getContext();
  Function *fn = createEntry(m, kBlockEntry);
  Value *ctx = fn->getArg(0);
  IRBuilder<> b(BasicBlock::Create(c, "entry", fn));
  std::vector<Value *> args{ctx};
  auto params = unpackArguments(b, fn->getArg(1), kernel, info);
  args.insert(args.end(), params.begin(), params.end());
  CallInst *kernelCall = nullptr;
  emitThreadLoops(b, ctx, [&](IRBuilder<> &b, Value *) {
    CallInst *call = b.CreateCall(kernel, args);
    // Under gdb a debug kernel stays a call of its own: each simulated thread is one
    // frame, and stepping past its last line returns into code without lines (gdb's
    // cutwin extension says the thread ended) rather than into the next thread.
    call->addFnAttr(info.debuggerView ? Attribute::NoInline : Attribute::AlwaysInline);
    kernelCall = call;
  });
  b.CreateRetVoid();
  if (!info.debuggerView)
    attachDebugInfo(fn, kernel, kernelCall);
}

} // namespace

StructType *contextType(LLVMContext &c) {
  if (auto *t = StructType::getTypeByName(c, "cutwin.ctx"))
    return t;
  auto *a3 = ArrayType::get(Type::getInt32Ty(c), 3);
  auto *p = PointerType::get(c, 0);
  return StructType::create(
      c, {a3, a3, a3, a3, p, p, p, Type::getInt64Ty(c), p, Type::getInt32Ty(c), Type::getInt32Ty(c), p, p, p},
      "cutwin.ctx");
}

void attachDebugInfo(Function *entry, Function *kernel, CallInst *call) {
  DISubprogram *ksp = kernel->getSubprogram();
  if (!ksp)
    return;
  Module &m = *entry->getParent();
  DIBuilder dib(m, false, ksp->getUnit());
  auto *st = dib.createSubroutineType(dib.getOrCreateTypeArray({}));
  DISubprogram *sp =
      dib.createFunction(ksp->getFile(), entry->getName(), entry->getName(), ksp->getFile(), ksp->getLine(),
                         st, ksp->getLine(), DINode::FlagArtificial, DISubprogram::SPFlagDefinition);
  entry->setSubprogram(sp);
  call->setDebugLoc(DILocation::get(m.getContext(), ksp->getLine(), 0, sp));
  dib.finalize();
}

Function *createEntry(Module &m, const char *name) {
  auto *p = PointerType::get(m.getContext(), 0);
  auto *fn = Function::Create(FunctionType::get(Type::getVoidTy(m.getContext()), {p, p}, false),
                              GlobalValue::ExternalLinkage, name, m);
  fn->addParamAttr(0, Attribute::NoAlias);
  fn->addParamAttr(1, Attribute::NoAlias);
  return fn;
}

LoadInst *loadIndex(IRBuilder<> &b, Value *p, bool size) {
  LoadInst *l = b.CreateLoad(b.getInt32Ty(), p);
  llvm::MDBuilder md(b.getContext());
  l->setMetadata(LLVMContext::MD_range,
                 md.createRange(APInt(32, size ? 1 : 0), APInt(32, uint64_t(1) << 31))); // up to 2^31 - 1
  return l;
}

std::vector<Value *> unpackArguments(IRBuilder<> &b, Value *args, Function *kernel,
                                     const ir::KernelInfo &info) {
  std::vector<Value *> out;
  for (size_t i = 0; i < info.layout.slots.size(); ++i) {
    Type *t = kernel->getFunctionType()->getParamType(unsigned(i + 1));
    Value *p = b.CreateInBoundsGEP(b.getInt8Ty(), args, b.getInt64(info.layout.slots[i].offset));
    out.push_back(b.CreateLoad(t, p));
  }
  return out;
}

void emitThreadLoops(IRBuilder<> &b, Value *ctx, function_ref<void(IRBuilder<> &, Value *)> body) {
  LLVMContext &c = b.getContext();
  StructType *ctxTy = contextType(c);
  Function *fn = b.GetInsertBlock()->getParent();
  auto *i32 = b.getInt32Ty();
  auto *i64 = b.getInt64Ty();
  Value *n[3];
  for (unsigned d = 0; d < 3; ++d) {
    Value *field = b.CreateStructGEP(ctxTy, ctx, 2);
    n[d] = loadIndex(b, b.CreateConstInBoundsGEP2_32(ctxTy->getElementType(2), field, 0, d), true);
  }
  // for z: for y: for x: ctx->tid = (x, y, z); body(linear index)
  BasicBlock *exit = BasicBlock::Create(c, "exit", fn);
  std::function<void(int, BasicBlock *, Value *)> loop = [&](int d, BasicBlock *after, Value *outer) {
    BasicBlock *pre = b.GetInsertBlock();
    BasicBlock *head = BasicBlock::Create(c, "tid.loop", fn);
    BasicBlock *latch = BasicBlock::Create(c, "tid.next", fn);
    b.CreateBr(head);
    b.SetInsertPoint(head);
    PHINode *iv = b.CreatePHI(i32, 2);
    iv->addIncoming(b.getInt32(0), pre);
    Value *tid = b.CreateStructGEP(ctxTy, ctx, 0);
    b.CreateStore(iv, b.CreateConstInBoundsGEP2_32(ctxTy->getElementType(0), tid, 0, unsigned(d)));
    // The thread's linear index: x + ntid.x * (y + ntid.y * z).
    Value *scaled = b.CreateMul(outer, b.CreateZExt(n[d], i64));
    Value *here = b.CreateAdd(scaled, b.CreateZExt(iv, i64));
    if (d == 0) {
      body(b, here);
      b.CreateBr(latch);
    } else {
      loop(d - 1, latch, here); // (its exit branches to this latch)
    }
    b.SetInsertPoint(latch);
    Value *next = b.CreateAdd(iv, b.getInt32(1));
    iv->addIncoming(next, latch);
    b.CreateCondBr(b.CreateICmpULT(next, n[d]), head, after);
  };
  BasicBlock *block = BasicBlock::Create(c, "block", fn);
  b.CreateBr(block);
  b.SetInsertPoint(block);
  loop(2, exit, b.getInt64(0));
  b.SetInsertPoint(exit);
}

SimLoweringResult lowerIntrinsicsForSim(Module &m, const ir::KernelInfo &info) {
  LLVMContext &c = m.getContext();
  StructType *ctxTy = contextType(c);
  SimLoweringResult result;
  addContextParameter(m);

  auto *i32 = Type::getInt32Ty(c);
  Function *barrier = declareHostCallback(m, HostCallback::Barrier);
  Function *gridSync = declareHostCallback(m, HostCallback::GridSync);
  Function *warp = declareHostCallback(m, HostCallback::Warp);
  Function *print = declareHostCallback(m, HostCallback::Print);
  Function *breakpoint = declareHostCallback(m, HostCallback::Breakpoint);
  Function *raise = declareHostCallback(m, HostCallback::Raise);
  Function *spin = declareHostCallback(m, HostCallback::Spin);
  Function *poll = declareHostCallback(m, HostCallback::Poll);

  std::vector<CallInst *> calls;
  for (Function &f : m)
    for (BasicBlock &bb : f)
      for (Instruction &inst : bb)
        if (auto *ci = dyn_cast<CallInst>(&inst))
          if (Function *callee = ci->getCalledFunction(); callee && callee->getName().startswith("cutwin."))
            calls.push_back(ci);
  for (CallInst *ci : calls) {
    auto id = ir::lookupIntrinsic(ci->getCalledFunction()->getName());
    if (!id)
      throw Error("simulator: unknown intrinsic " + ci->getCalledFunction()->getName().str());
    IRBuilder<> b(ci);
    Value *ctx = ci->getFunction()->getArg(0);
    Value *repl = nullptr;
    // The polls (cutwin.spin, cutwin.poll): a countdown in thread-context field `field`;
    // at zero it starts again at `every` and `callee(ctx, line)` runs.
    auto countDownThenCall = [&](unsigned field, uint32_t every, Function *callee) {
      Value *slot = b.CreateStructGEP(ctxTy, ctx, field);
      Value *left = b.CreateSub(b.CreateLoad(i32, slot), b.getInt32(1));
      Value *end = b.CreateICmpEQ(left, b.getInt32(0));
      b.CreateStore(b.CreateSelect(end, b.getInt32(every), left), slot);
      IRBuilder<> then(SplitBlockAndInsertIfThen(end, ci, false));
      then.CreateCall(callee, {ctx, ci->getArgOperand(0)})->setDebugLoc(ci->getDebugLoc());
    };
    switch (*id) {
    case ir::Intrinsic::Barrier:
      result.usesBarrier = true;
      b.CreateCall(barrier, {ctx, ci->getArgOperand(0)})->setDebugLoc(ci->getDebugLoc());
      break;
    case ir::Intrinsic::GridSync:
      result.usesBarrier = result.usesGridSync = true;
      b.CreateCall(gridSync, {ctx, ci->getArgOperand(0)})->setDebugLoc(ci->getDebugLoc());
      break;
    case ir::Intrinsic::RaiseError: {
      std::vector<Value *> args{ctx};
      args.insert(args.end(), ci->arg_begin(), ci->arg_end());
      CallInst *call = b.CreateCall(raise, args);
      call->setDoesNotReturn();
      call->setDebugLoc(ci->getDebugLoc());
      break;
    }
    case ir::Intrinsic::Nanosleep: // a scheduling hint; simulated threads need none
      break;
    case ir::Intrinsic::Spin:    // count down; at the end, start again and yield
      result.usesBarrier = true; // (a thread loop could not let another thread run)
      countDownThenCall(9, kSpinPolls, spin);
      break;
    case ir::Intrinsic::Poll: // count down; at the end, start again and ask (interrupts.h)
      countDownThenCall(10, kInterruptPolls, poll);
      break;
    case ir::Intrinsic::CacheLoad: { // no caches here: the access itself
      unsigned bits = unsigned(cast<ConstantInt>(ci->getArgOperand(2))->getZExtValue());
      Value *v = b.CreateLoad(IntegerType::get(m.getContext(), bits), ci->getArgOperand(0));
      repl = b.CreateZExt(v, Type::getInt64Ty(m.getContext()));
      break;
    }
    case ir::Intrinsic::CacheStore: {
      unsigned bits = unsigned(cast<ConstantInt>(ci->getArgOperand(3))->getZExtValue());
      b.CreateStore(b.CreateTrunc(ci->getArgOperand(1), IntegerType::get(m.getContext(), bits)),
                    ci->getArgOperand(0));
      break;
    }
    case ir::Intrinsic::Approx: { // the unit's measured table model (approx_ops.h)
      Type *f32 = Type::getFloatTy(m.getContext());
      auto unit = ir::ApproxUnit(cast<ConstantInt>(ci->getArgOperand(0))->getZExtValue());
      if (auto seq = sim::approxSequence(unit)) { // the non-ftz forms: the unit and its fix-ups
        Function *h = declareHostCallback(m, HostCallback::ApproxSequenceF32);
        repl = b.CreateCall(h, {b.getInt32(int(*seq)), ci->getArgOperand(1), ConstantFP::get(f32, 0.0)});
        break;
      }
      FunctionCallee h = m.getOrInsertFunction(sim::approxUnitSymbol(unit), f32, f32);
      repl = b.CreateCall(h, {ci->getArgOperand(1)});
      break;
    }
    case ir::Intrinsic::Breakpoint: { // fibers stop in the scheduler; a thread loop calls the handler
      // Line and return events call the host only while a step or a line breakpoint exists.
      auto *index = dyn_cast<ConstantInt>(ci->getArgOperand(0));
      if (index && index->getZExtValue() < info.breakpoints.size() &&
          info.breakpoints[index->getZExtValue()].kind != ir::StopKind::Breakpoint) {
        auto *i8 = Type::getInt8Ty(c);
        auto *armed = cast<GlobalVariable>(m.getOrInsertGlobal(kDebugArmedSymbol, i8));
        LoadInst *on = b.CreateLoad(i8, armed);
        on->setAtomic(AtomicOrdering::Monotonic);
        on->setAlignment(Align(1));
        Value *lines = b.CreateIsNotNull(b.CreateAnd(on, b.getInt8(kArmedLines)));
        Instruction *then = SplitBlockAndInsertIfThen(lines, ci, false);
        b.SetInsertPoint(then);
      }
      b.CreateCall(breakpoint, {ctx, ci->getArgOperand(0), ci->getArgOperand(1)})
          ->setDebugLoc(ci->getDebugLoc());
      break;
    }
    case ir::Intrinsic::DebugEnter: { // the record joins the thread's debug stack (context field 8)
      Value *top = b.CreateStructGEP(ctxTy, ctx, 8);
      Value *record = ci->getArgOperand(0);
      auto *p = PointerType::get(c, 0);
      b.CreateStore(b.CreateLoad(p, top), record); // field 0: caller
      b.CreateStore(record, top);
      break;
    }
    case ir::Intrinsic::DebugLeave: {
      auto *p = PointerType::get(c, 0);
      Value *top = b.CreateStructGEP(
          ctxTy, ctx, 8); // (its own statement: the IR's order is the same from any C++ compiler)
      b.CreateStore(b.CreateLoad(p, ci->getArgOperand(0)), top);
      break;
    }
    case ir::Intrinsic::Print:
      b.CreateCall(print, {ci->getArgOperand(0), ci->getArgOperand(1)})->setDebugLoc(ci->getDebugLoc());
      break;
    case ir::Intrinsic::Warp: { // the lanes of a warp meet in the scheduler: fibers
      result.usesBarrier = true;
      std::vector<Value *> args{ctx};
      args.insert(args.end(), ci->arg_begin(), ci->arg_end());
      CallInst *call = b.CreateCall(warp, args);
      call->setDebugLoc(ci->getDebugLoc());
      repl = call;
      break;
    }
    case ir::Intrinsic::DynamicSharedSize:
      repl = b.CreateTrunc(b.CreateLoad(Type::getInt64Ty(m.getContext()), b.CreateStructGEP(ctxTy, ctx, 7)),
                           i32);
      break;
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
    case ir::Intrinsic::NctaidZ: { // fields 0-3 of the thread context, x y z each
      unsigned idx = unsigned(*id) - unsigned(ir::Intrinsic::TidX);
      unsigned field = idx / 3, dim = idx % 3;
      Value *f = b.CreateStructGEP(ctxTy, ctx, field);
      repl = loadIndex(b, b.CreateConstInBoundsGEP2_32(ctxTy->getElementType(field), f, 0, dim), field >= 2);
      break;
    }
    }
    if (repl)
      ci->replaceAllUsesWith(repl);
    ci->eraseFromParent();
  }
  ir::removeLoweredIntrinsics(m, "sim-lower");

  result.staticSharedBytes = lowerSharedMemory(m, ctxTy, result.sharedArrays);

  Function *kernel = m.getFunction(info.irName);
  if (!kernel)
    throw Error("simulator: kernel function " + info.irName + " missing from module");
  if (result.usesBarrier) {
    buildThreadEntry(m, kernel, info);
  } else {
    buildBlockEntry(m, kernel, info);
    kernel->setLinkage(GlobalValue::InternalLinkage);
  }
  return result;
}

} // namespace cutwin::sim
