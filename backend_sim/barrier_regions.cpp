#include "backend_sim/barrier_regions.h"

#include "backend_sim/block_uniformity.h"
#include "backend_sim/host_callbacks.h"
#include "backend_sim/lower_intrinsics.h"
#include "backend_sim/thread_context.h"
#include "backend_sim/warp_ops.h"
#include "cutwin/errors.h"
#include "frontend/ir/intrinsics.h"

#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/SSAUpdater.h>

#include <map>
#include <set>

namespace cutwin::sim {

using namespace llvm;

namespace {

Function *calleeOf(const Instruction &i) {
  auto *call = dyn_cast<CallBase>(&i);
  return call ? call->getCalledFunction() : nullptr;
}

/// The host callbacks threads stop at: a block barrier, a warp operation (null where the
/// module has none).
struct Waits {
  Function *barrier = nullptr, *warp = nullptr;
  bool any() const { return barrier || warp; }
  bool is(const Function *f) const { return f && (f == barrier || f == warp); }
};

/// The functions that wait at a barrier or warp operation, themselves or through a call.
std::set<Function *> functionsReaching(Module &m, const Waits &waits) {
  std::set<Function *> out;
  for (bool grew = true; grew;) {
    grew = false;
    for (Function &f : m)
      if (!f.isDeclaration() && !out.count(&f))
        for (BasicBlock &bb : f)
          for (Instruction &i : bb)
            if (Function *g = calleeOf(i); g && (waits.is(g) || out.count(g)) && out.insert(&f).second)
              grew = true;
  }
  return out;
}

/// Whether `f` calls itself, through functions of `within`.
bool callsItself(Function *f, const std::set<Function *> &within) {
  std::set<Function *> seen;
  std::vector<Function *> work{f};
  while (!work.empty()) {
    Function *g = work.back();
    work.pop_back();
    for (BasicBlock &bb : *g)
      for (Instruction &i : bb)
        if (Function *h = calleeOf(i); h && within.count(h)) {
          if (h == f)
            return true;
          if (seen.insert(h).second)
            work.push_back(h);
        }
  }
  return false;
}

/// What keeps the kernel on fibers, or "" if it can be split.
std::string whyFibers(Module &m, const ir::KernelInfo &info, Function *kernel,
                      const std::set<Function *> &reaching) {
  if (info.debug || info.debuggerView)
    return "compiled for debugging";
  if (info.sanitize)
    return "compiled with the sanitizer";
  const std::pair<HostCallback, const char *> needFibers[] = {
      {HostCallback::GridSync, "grid sync"},
      {HostCallback::Spin, "a loop that waits for another thread"},
      {HostCallback::Breakpoint, "breakpoints"},
  };
  for (auto [id, what] : needFibers)
    if (Function *f = m.getFunction(hostCallbackSymbol(id)); f && !f->use_empty())
      return what;
  if (!reaching.count(kernel))
    return "no barrier reached from the kernel";
  for (Function *f : reaching)
    if (callsItself(f, reaching))
      return "a recursive function waits at a barrier";
  return "";
}

/// Fields of the context that stay the same through a thread's life: indices, sizes, the
/// shared memory, the dynamic shared size, the frames, the warp lanes.
bool fixedField(int f) { return (f >= 0 && f <= 4) || f == 7 || f == 12 || f == 13; }

/// Whether `v` is computed in the first block (the frame addresses and what they are made
/// of), which every resume point passes through: available everywhere.
bool inFirstBlock(Value *v) {
  auto *i = dyn_cast<Instruction>(v);
  return i && i->getParent() == &i->getFunction()->getEntryBlock();
}

/// Whether `v` can be computed again after a barrier from the context and the arguments
/// alone (instructions not in `seen`, at most `budget` of them): cheaper than keeping it in
/// the frame. (Index wrap-arounds and bounds make an array address a dozen or so.)
bool recomputable(Value *v, Argument *ctx, std::set<Value *> &seen, unsigned &budget) {
  if (isa<Argument>(v) || isa<Constant>(v) || seen.count(v) || inFirstBlock(v))
    return true;
  auto *i = dyn_cast<Instruction>(v);
  if (!i || budget == 0)
    return false;
  --budget;
  seen.insert(v);
  if (auto *l = dyn_cast<LoadInst>(i))
    return l->isSimple() && fixedField(contextField(l->getPointerOperand(), ctx)) &&
           recomputable(l->getPointerOperand(), ctx, seen, budget);
  if (!isa<BinaryOperator, CastInst, GetElementPtrInst, CmpInst, SelectInst>(i))
    return false;
  for (Value *op : i->operands())
    if (!recomputable(op, ctx, seen, budget))
      return false;
  return true;
}

/// `v` computed again before `at` (recomputable's values).
Value *recompute(Value *v, Instruction *at, std::map<Value *, Value *> &done) {
  auto *i = dyn_cast<Instruction>(v);
  if (!i || inFirstBlock(v))
    return v;
  if (auto it = done.find(v); it != done.end())
    return it->second;
  Instruction *c = i->clone();
  for (unsigned k = 0; k < c->getNumOperands(); ++k)
    c->setOperand(k, recompute(i->getOperand(k), at, done));
  c->insertBefore(at);
  c->setName(i->getName() + ".again");
  done[v] = c;
  return c;
}

/// A thread's frame: slots, each with the block's threads side by side.
/// Slots are aligned to at most kFrameAlign (the frames' own alignment).
constexpr uint64_t kFrameAlign = 64;

struct FrameLayout {
  struct Slot {
    uint64_t offset = 0, stride = 0;
  };
  uint64_t bytes = 0;
  Slot add(uint64_t size, uint64_t align) {
    align = std::clamp<uint64_t>(align, 1, kFrameAlign);
    Slot s;
    s.offset = (bytes + align - 1) / align * align;
    s.stride = (std::max<uint64_t>(size, 1) + align - 1) / align * align;
    bytes = s.offset + s.stride;
    return s;
  }
};

/// Where a thread's slot is: frames + offset * threads + thread * stride (emitted by `b`
/// in the function's first block from its context reads).
struct FrameAddresses {
  IRBuilder<> &b;
  Value *frames, *threads, *thread;
  Value *lanes; ///< the block's warp lanes (ThreadContext::lanes)
  Value *at(FrameLayout::Slot s) {
    Value *column = b.CreateMul(threads, b.getInt64(s.offset));
    Value *row = b.CreateMul(thread, b.getInt64(s.stride));
    Value *offset = b.CreateAdd(column, row);
    return b.CreateInBoundsGEP(b.getInt8Ty(), frames, offset, "frame.slot");
  }
};

FrameAddresses frameAddresses(IRBuilder<> &b, Argument *ctx) {
  StructType *ctxTy = contextType(b.getContext());
  auto *i64 = b.getInt64Ty();
  Value *framesField = b.CreateStructGEP(ctxTy, ctx, 12);
  Value *frames = b.CreateLoad(b.getPtrTy(), framesField, "frames");
  Value *lanesField = b.CreateStructGEP(ctxTy, ctx, 13);
  Value *lanes = b.CreateLoad(b.getPtrTy(), lanesField, "lanes");
  Value *tid[3], *ntid[3];
  for (unsigned d = 0; d < 3; ++d) {
    Value *tidField = b.CreateStructGEP(ctxTy, ctx, 0);
    Value *t = loadIndex(b, b.CreateConstInBoundsGEP2_32(ctxTy->getElementType(0), tidField, 0, d), false);
    tid[d] = b.CreateZExt(t, i64);
    Value *ntidField = b.CreateStructGEP(ctxTy, ctx, 2);
    Value *n = loadIndex(b, b.CreateConstInBoundsGEP2_32(ctxTy->getElementType(2), ntidField, 0, d), true);
    ntid[d] = b.CreateZExt(n, i64);
  }
  Value *plane = b.CreateMul(ntid[0], ntid[1]);
  Value *threads = b.CreateMul(plane, ntid[2]);
  Value *zy = b.CreateMul(tid[2], ntid[1]);
  Value *row = b.CreateAdd(zy, tid[1]);
  Value *rows = b.CreateMul(row, ntid[0]);
  Value *thread = b.CreateAdd(rows, tid[0], "thread");
  return FrameAddresses{b, frames, threads, thread, lanes};
}

/// Where threads stop: each barrier and warp operation (resume point r ≥ 1 at index r),
/// its call, site and the block just after it.
struct Barriers {
  std::vector<BasicBlock *> after{nullptr};
  std::vector<uint32_t> sites{0};
  std::vector<CallInst *> calls{nullptr};
  std::vector<uint8_t> warp{0}; ///< 1: a warp operation (its lanes meet in the scheduler)
};

/// The site operand of a stop's call: cutwin_sim_barrier(ctx, site), cutwin_sim_warp(ctx,
/// op, mask, value, b, site).
Value *siteOperand(CallInst *call, const Waits &waits) {
  return call->getArgOperand(call->getCalledFunction() == waits.warp ? 5 : 1);
}

/// Ends the block of each barrier and warp-operation call of `f` at the call; returns what
/// follows them.
Barriers cutAtBarriers(Function &f, const Waits &waits) {
  std::vector<CallInst *> calls;
  for (BasicBlock &bb : f)
    for (Instruction &i : bb)
      if (Function *g = calleeOf(i); g && (g == waits.barrier || g == waits.warp))
        calls.push_back(cast<CallInst>(&i));
  Barriers out;
  for (CallInst *call : calls) {
    bool warp = call->getCalledFunction() == waits.warp;
    Value *site = siteOperand(call, waits);
    out.after.push_back(SplitBlock(call->getParent(), call->getNextNode(), (DominatorTree *)nullptr, nullptr,
                                   nullptr, warp ? "after.warp" : "after.barrier"));
    out.sites.push_back(uint32_t(cast<ConstantInt>(site)->getZExtValue()));
    out.calls.push_back(call);
    out.warp.push_back(warp);
  }
  return out;
}

/// Whether every warp operation asks for the whole warp (a constant full mask; not
/// activemask, which waits for no one): every lane of a warp then completes it at the
/// same time, so no lane falls a round behind the others, as lanes do where overlapping
/// masks release some of them first (what values kept once per block rely on).
bool warpsInLockstep(const Barriers &barriers) {
  for (size_t r = 1; r < barriers.calls.size(); ++r) {
    if (!barriers.warp[r])
      continue;
    auto *op = dyn_cast<ConstantInt>(barriers.calls[r]->getArgOperand(1));
    auto *mask = dyn_cast<ConstantInt>(barriers.calls[r]->getArgOperand(2));
    if (!op || !mask || !mask->isAllOnesValue() ||
        (op->getZExtValue() & ir::kWarpOpMask) == unsigned(ir::WarpOp::ActiveMask))
      return false;
  }
  return true;
}

/// What the cut cannot handle in the kernel (its functions that wait inlined), or "".
std::string whyNotCut(Function &kernel, const Waits &waits) {
  for (Function *wait : {waits.barrier, waits.warp}) {
    if (!wait)
      continue;
    for (User *u : wait->users()) {
      auto *call = dyn_cast<CallInst>(u);
      if (!call || call->getFunction() != &kernel || call->getCalledFunction() != wait)
        return "a barrier or warp operation in a function not inlined into the kernel";
      if (!isa<ConstantInt>(siteOperand(call, waits)))
        return "a barrier or warp operation of unknown site";
    }
  }
  for (BasicBlock &bb : kernel)
    for (Instruction &i : bb) {
      if (isa<InvokeInst, CallBrInst>(&i) || i.getType()->isTokenTy())
        return "exception handling or token values";
      if (calleeOf(i) == nullptr && isa<CallBase>(&i) &&
          !isa<InlineAsm>(cast<CallBase>(&i)->getCalledOperand()))
        return "an indirect call";
      auto *a = dyn_cast<AllocaInst>(&i);
      if (!a)
        continue;
      std::optional<TypeSize> size = a->getAllocationSize(kernel.getParent()->getDataLayout());
      if (!a->isStaticAlloca() || &bb != &kernel.getEntryBlock() || !size || size->isScalable())
        return "a local array of a size known only at run time";
      if (a->getAlign().value() > kFrameAlign)
        return "a local array aligned to more than " + std::to_string(kFrameAlign) + " bytes";
    }
  return "";
}

/// The kernel's body moved into a function that runs one thread from a resume point:
/// (ctx, params..., i32 resume, ptr stopped, ptr leaders, i32 parity) -> i32, the barrier
/// it stopped at or kRegionDone, also stored to *stopped (its store is in `stateStores`:
/// see markFrameAccesses). `leaders`: null, or the first thread's copies of kept values
/// that every thread holds alike (keepValuesAcrossBarriers); `parity`: the number of
/// regions the thread ran before, modulo 2 (which of a block value's two cells it reads).
/// `stopBlocks[r]`: the block that ends in stop r.
Function *resumableBody(Function *kernel, const Barriers &barriers, std::set<Instruction *> &stateStores,
                        std::vector<BasicBlock *> &stopBlocks) {
  LLVMContext &c = kernel->getContext();
  auto *i32 = Type::getInt32Ty(c);
  std::vector<Type *> params(kernel->getFunctionType()->param_begin(),
                             kernel->getFunctionType()->param_end());
  params.push_back(i32);
  params.push_back(PointerType::get(c, 0));
  params.push_back(PointerType::get(c, 0));
  params.push_back(i32);
  Function *fn = Function::Create(FunctionType::get(i32, params, false), GlobalValue::InternalLinkage, "",
                                  kernel->getParent());
  fn->copyAttributesFrom(kernel);
  fn->setLinkage(GlobalValue::InternalLinkage);
  fn->setSubprogram(kernel->getSubprogram());
  kernel->setSubprogram(nullptr);
  fn->splice(fn->end(), kernel);
  for (unsigned i = 0; i < kernel->arg_size(); ++i) {
    kernel->getArg(i)->replaceAllUsesWith(fn->getArg(i));
    fn->getArg(i)->takeName(kernel->getArg(i));
  }
  Argument *resume = fn->getArg(fn->arg_size() - 4);
  resume->setName("resume");
  Argument *stopped = fn->getArg(fn->arg_size() - 3);
  stopped->setName("stopped");
  fn->getArg(fn->arg_size() - 2)->setName("leaders");
  fn->getArg(fn->arg_size() - 1)->setName("parity");
  auto stopAt = [&](uint32_t r, BasicBlock *bb, DebugLoc loc) {
    stateStores.insert(new StoreInst(ConstantInt::get(i32, r), stopped, bb));
    ReturnInst::Create(c, ConstantInt::get(i32, r), bb)->setDebugLoc(loc);
  };
  // Returns say the thread is done; a barrier returns its resume point.
  std::vector<Instruction *> exits;
  for (BasicBlock &bb : *fn)
    if (isa<ReturnInst>(bb.getTerminator()))
      exits.push_back(bb.getTerminator());
  for (Instruction *ret : exits) {
    BasicBlock *bb = ret->getParent();
    DebugLoc loc = ret->getDebugLoc();
    ret->eraseFromParent();
    stopAt(kRegionDone, bb, loc);
  }
  for (size_t r = 1; r < barriers.after.size(); ++r) { // (a warp operation's call stays: warpLanes)
    CallInst *call = barriers.calls[r];
    BasicBlock *before = call->getParent();
    DebugLoc loc = call->getDebugLoc();
    before->getTerminator()->eraseFromParent();
    if (!barriers.warp[r])
      call->eraseFromParent();
    stopAt(uint32_t(r), before, loc);
    stopBlocks.push_back(before);
  }
  // The debugger's variable locations do not survive the cut (debug kernels keep fibers).
  std::vector<Instruction *> dbg;
  for (BasicBlock &bb : *fn)
    for (Instruction &i : bb)
      if (isa<DbgInfoIntrinsic>(&i))
        dbg.push_back(&i);
  for (Instruction *i : dbg)
    i->eraseFromParent();
  // A first block choosing where to start.
  BasicBlock *start = &fn->getEntryBlock();
  BasicBlock *choose = BasicBlock::Create(c, "resume", fn, start);
  SwitchInst *sw = SwitchInst::Create(resume, start, unsigned(barriers.after.size() - 1), choose);
  for (size_t r = 1; r < barriers.after.size(); ++r)
    sw->addCase(ConstantInt::get(i32, r), barriers.after[r]);
  return fn;
}

/// Local arrays and other allocas (static, whyNotCut) become frame slots.
void allocasToFrame(Function *fn, FrameAddresses &addr, FrameLayout &layout, uint64_t &localBytes) {
  const DataLayout &dl = fn->getParent()->getDataLayout();
  std::vector<AllocaInst *> allocas;
  for (BasicBlock &bb : *fn)
    for (Instruction &i : bb)
      if (auto *a = dyn_cast<AllocaInst>(&i))
        allocas.push_back(a);
  for (AllocaInst *a : allocas) {
    uint64_t size = a->getAllocationSize(dl)->getFixedValue();
    FrameLayout::Slot s = layout.add(size, a->getAlign().value());
    localBytes += s.stride;
    std::vector<Instruction *> markers; // lifetime markers: of allocas only
    for (User *u : a->users())
      if (auto *ii = dyn_cast<IntrinsicInst>(u); ii && ii->isLifetimeStartOrEnd())
        markers.push_back(ii);
    for (Instruction *i : markers)
      i->eraseFromParent();
    Value *p = addr.at(s);
    if (a->getType() != p->getType())
      p = addr.b.CreateAddrSpaceCast(p, a->getType());
    p->takeName(a);
    a->replaceAllUsesWith(p);
    a->eraseFromParent();
  }
}

/// A warp operation's call becomes the lane's request, stored to its WarpLane before the
/// thread stops, and its result, loaded from there where the thread resumes (the scheduler
/// completes the operation for the warp's lanes in between: warp_ops.h).
void warpLanes(const Barriers &barriers, FrameAddresses &addr, std::set<Instruction *> &laneAccesses) {
  for (size_t r = 1; r < barriers.after.size(); ++r) {
    if (!barriers.warp[r])
      continue;
    CallInst *call = barriers.calls[r];
    auto field = [&](IRBuilder<> &b, size_t offset) {
      Value *at = b.CreateMul(addr.thread, b.getInt64(sizeof(WarpLane)));
      Value *lane = b.CreateInBoundsGEP(b.getInt8Ty(), addr.lanes, at);
      return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), lane, offset);
    };
    IRBuilder<> b(call);
    laneAccesses.insert(b.CreateStore(call->getArgOperand(1), field(b, offsetof(WarpLane, request.op))));
    laneAccesses.insert(b.CreateStore(call->getArgOperand(2), field(b, offsetof(WarpLane, request.mask))));
    laneAccesses.insert(b.CreateStore(call->getArgOperand(3), field(b, offsetof(WarpLane, request.value))));
    laneAccesses.insert(b.CreateStore(call->getArgOperand(4), field(b, offsetof(WarpLane, request.b))));
    IRBuilder<> after(&*barriers.after[r]->getFirstInsertionPt());
    LoadInst *result =
        after.CreateLoad(after.getInt64Ty(), field(after, offsetof(WarpLane, result)), "warp.result");
    laneAccesses.insert(result);
    call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
}

/// A kept integer that may be the same in every thread at its resume point (a loop's
/// count, a stride halved each round): the regions entry checks each round whether it is,
/// and if so the body reads the first thread's copy, which the loop over the threads
/// reads once - the optimiser then knows it is the same for every thread, and splits the
/// loop where a condition on it and the thread index (`if t < stride`) changes.
struct LeaderCopy {
  FrameLayout::Slot slot;
  Type *type;
};
/// At most this many a resume point (the copies are 8 bytes apart in `leaders`).
constexpr size_t kLeaderCopies = 4;

/// Each value used after a barrier it was computed before is computed again there (from
/// the context and arguments) or kept: in the frame, or (`alike`: every thread holds it
/// alike at every stop, and all stop together) once per block. SSAUpdater joins the copies
/// with phis. A value once per block has two cells, `parity` choosing which one a region
/// reads and which one it writes (at its stops): threads run one after another through a
/// round, and a thread's write must not reach the threads after it that round. With
/// `leaderCopies`, `leaders[r]`: the kept integers resume point r may read from `leaders`
/// (LeaderCopy).
void keepValuesAcrossBarriers(Function *fn, const Barriers &barriers,
                              const std::vector<BasicBlock *> &stopBlocks, FrameAddresses &addr,
                              FrameLayout &layout, std::vector<uint32_t> &kept,
                              std::set<Instruction *> &frameAccesses, std::set<Instruction *> &cellReads,
                              std::set<Instruction *> &cellWrites, const BlockUniformity &alike,
                              bool leaderCopies, std::vector<std::vector<LeaderCopy>> &leaders,
                              uint32_t &blockValues) {
  const DataLayout &dl = fn->getParent()->getDataLayout();
  Argument *ctx = fn->getArg(0);
  BasicBlock *choose = &fn->getEntryBlock();
  std::map<BasicBlock *, uint32_t> resumeOf;
  for (uint32_t r = 1; r < barriers.after.size(); ++r)
    resumeOf[barriers.after[r]] = r;
  DominatorTree dt(*fn);
  // The resume points reached walking back from `from` until `def` (each path stops at
  // the first one it meets), into `found`; true if some path reaches the first block.
  auto resumesBack = [&](BasicBlock *from, BasicBlock *def, std::set<BasicBlock *> &seen,
                         std::set<uint32_t> &found) {
    bool fromStart = false;
    std::vector<BasicBlock *> work{from};
    while (!work.empty()) {
      BasicBlock *w = work.back();
      work.pop_back();
      if (w == def || !seen.insert(w).second)
        continue;
      if (auto r = resumeOf.find(w); r != resumeOf.end()) {
        found.insert(r->second); // (reached from the first block alone)
        continue;
      }
      if (w == choose) {
        fromStart = true;
        continue;
      }
      for (BasicBlock *p : predecessors(w))
        work.push_back(p);
    }
    return fromStart;
  };
  struct Crossing {
    Instruction *value;
    std::set<uint32_t> resumes; // the resume points it is live at
  };
  std::vector<Crossing> crossings;
  for (BasicBlock &bb : *fn) {
    if (&bb == choose)
      continue;
    for (Instruction &i : bb) {
      if (i.getType()->isVoidTy())
        continue;
      Crossing x{&i, {}};
      std::set<BasicBlock *> seen;
      for (Use &u : i.uses()) {
        auto *user = cast<Instruction>(u.getUser());
        BasicBlock *from = isa<PHINode>(user) ? cast<PHINode>(user)->getIncomingBlock(u) : user->getParent();
        if (dt.dominates(&bb, from)) // (its own block too)
          continue;
        if (resumesBack(from, &bb, seen, x.resumes)) // (back from the use to the definition)
          throw Error("sim-regions: %" + i.getName().str() + " is used where it is not defined");
      }
      if (!x.resumes.empty())
        crossings.push_back(std::move(x));
    }
  }
  // First every copy (from the unchanged IR: a computation again shares the copies of
  // its operands at its resume point), then every use joins them.
  std::vector<std::map<Value *, Value *>> again(barriers.after.size());
  std::vector<std::map<uint32_t, Value *>> copies(crossings.size());
  std::set<Instruction *> stores;
  std::vector<Instruction *> anchor{nullptr}; // what the copies go before, in the order made
  for (size_t r = 1; r < barriers.after.size(); ++r) {
    // Reached only from the first block's choice of resume point: its copies are read once
    // a run, before anything redefines them (what leader copies rely on).
    if (barriers.after[r]->getSinglePredecessor() != choose)
      throw Error("sim-regions: resume point " + std::to_string(r) + " is reached from elsewhere");
    anchor.push_back(&*barriers.after[r]->getFirstInsertionPt());
  }
  // How each is kept: computed again, once per block (cell c at 16 * c: two of 8 bytes,
  // in the first thread's frame), or in every thread's frame.
  std::vector<bool> computedAgain(crossings.size());
  std::vector<int> cellOf(crossings.size(), -1);
  for (size_t k = 0; k < crossings.size(); ++k) {
    Instruction *v = crossings[k].value;
    std::set<Value *> seen;
    unsigned budget = 24;
    computedAgain[k] = recomputable(v, ctx, seen, budget);
    Type *t = v->getType();
    bool scalar =
        (t->isIntegerTy() || t->isFloatingPointTy() || t->isPointerTy()) && dl.getTypeAllocSize(t) <= 8;
    if (computedAgain[k] || !scalar || !alike.stopsTogether || !alike.alike(v))
      continue;
    cellOf[k] = int(blockValues++);
    // A cell lasts one round: the value is written again at every stop it lives through,
    // also those between its definition and the resume points its uses come back to.
    // (No path from the kernel's start: the definition dominates every stop it lives through.)
    std::vector<uint32_t> unwalked(crossings[k].resumes.begin(), crossings[k].resumes.end());
    while (!unwalked.empty()) {
      BasicBlock *stop = stopBlocks[unwalked.back()];
      unwalked.pop_back();
      if (dt.dominates(v->getParent(), stop))
        continue;
      std::set<BasicBlock *> seen;
      std::set<uint32_t> earlier;
      resumesBack(stop, v->getParent(), seen, earlier);
      for (uint32_t r : earlier)
        if (crossings[k].resumes.insert(r).second)
          unwalked.push_back(r);
    }
  }
  Value *cellsNow = nullptr, *cellsNext = nullptr;
  if (blockValues) {
    FrameLayout::Slot where = layout.add(16 * uint64_t(blockValues), 8);
    IRBuilder<> &b = addr.b; // (the first block)
    Value *column = b.CreateMul(addr.threads, b.getInt64(where.offset));
    Value *cells = b.CreateInBoundsGEP(b.getInt8Ty(), addr.frames, column, "block.values");
    Value *parity = b.CreateZExt(fn->getArg(fn->arg_size() - 1), b.getInt64Ty());
    Value *now = b.CreateMul(parity, b.getInt64(8));
    Value *next = b.CreateSub(b.getInt64(8), now);
    cellsNow = b.CreateInBoundsGEP(b.getInt8Ty(), cells, now, "block.values.now");
    cellsNext = b.CreateInBoundsGEP(b.getInt8Ty(), cells, next, "block.values.next");
  }
  for (size_t k = 0; k < crossings.size(); ++k) {
    Instruction *v = crossings[k].value;
    if (computedAgain[k]) {
      for (uint32_t r : crossings[k].resumes)
        copies[k][r] = recompute(v, anchor[r], again[r]);
      continue;
    }
    if (cellOf[k] >= 0) {
      for (uint32_t r : crossings[k].resumes) {
        IRBuilder<> b(anchor[r]);
        Value *cell = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), cellsNow, 16 * uint64_t(cellOf[k]));
        LoadInst *load = b.CreateAlignedLoad(v->getType(), cell, Align(8), v->getName() + ".block");
        copies[k][r] = load;
        cellReads.insert(load);
        ++kept[r];
      }
      continue;
    }
    Align align(std::min<uint64_t>(dl.getABITypeAlign(v->getType()).value(), kFrameAlign));
    FrameLayout::Slot where = layout.add(dl.getTypeAllocSize(v->getType()), align.value());
    Value *slot = addr.at(where);
    Instruction *after = isa<PHINode>(v) ? &*v->getParent()->getFirstInsertionPt() : v->getNextNode();
    auto *store = new StoreInst(v, slot, false, align, after);
    stores.insert(store);
    frameAccesses.insert(store);
    bool integer = v->getType()->isIntegerTy() && v->getType()->getIntegerBitWidth() <= 64;
    for (uint32_t r : crossings[k].resumes) {
      Value *from = slot;
      if (leaderCopies && integer &&
          leaders[r].size() < kLeaderCopies) { // the leader's copy where there is one
        IRBuilder<> b(anchor[r]);
        Argument *copies = fn->getArg(fn->arg_size() - 2);
        Value *copy = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), copies, 8 * leaders[r].size());
        from = b.CreateSelect(b.CreateIsNotNull(copies), copy, slot, "kept.from");
        leaders[r].push_back(LeaderCopy{where, v->getType()});
      }
      auto *load = new LoadInst(v->getType(), from, v->getName() + ".kept", false, align, anchor[r]);
      copies[k][r] = load;
      frameAccesses.insert(load);
      ++kept[r];
    }
  }
  for (size_t k = 0; k < crossings.size(); ++k) {
    Instruction *v = crossings[k].value;
    SSAUpdater ssa;
    ssa.Initialize(v->getType(), v->getName());
    ssa.AddAvailableValue(v->getParent(), v);
    for (auto [r, copy] : copies[k])
      ssa.AddAvailableValue(barriers.after[r], copy);
    if (cellOf[k] >= 0) // written where the threads stop, for the next region to read
      for (uint32_t r : crossings[k].resumes) {
        Value *atStop = ssa.GetValueAtEndOfBlock(stopBlocks[r]);
        IRBuilder<> b(stopBlocks[r]->getTerminator());
        Value *cell = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), cellsNext, 16 * uint64_t(cellOf[k]));
        StoreInst *store = b.CreateAlignedStore(atStop, cell, Align(8));
        cellWrites.insert(store);
        stores.insert(store);
      }
    std::vector<Use *> uses;
    for (Use &u : v->uses())
      if (!stores.count(cast<Instruction>(u.getUser())))
        uses.push_back(&u);
    for (Use *u : uses)
      ssa.RewriteUseAfterInsertions(*u);
  }
}

/// Tells the optimiser what the kernel's own accesses (shared, global, local arrays) never
/// reach, for any thread: the slots of kept values and the warp lanes (nobody else's memory
/// while the body runs: the scheduler reads and writes lanes between rounds), the state
/// where a thread stopped, and the cells of values kept once per block (those a region
/// reads apart from those it writes). A kept value's store then sinks out of a loop over
/// shared memory, a block value's load and store leave the loop over the threads, and a
/// region's loop vectorises without checks against any of them. Calls (the host
/// callbacks) may read the state: each thread's is stored before the next thread calls
/// one, so that a stop (Ctrl-C or the watchdog, noticed in a callback) finds where every
/// thread was.
void markFrameAccesses(Function *fn, const std::set<Instruction *> &frameAccesses,
                       const std::set<Instruction *> &stateStores, const std::set<Instruction *> &cellReads,
                       const std::set<Instruction *> &cellWrites) {
  LLVMContext &c = fn->getContext();
  MDBuilder md(c);
  MDNode *domain = md.createAnonymousAliasScopeDomain("cutwin.frames");
  MDNode *kept = MDNode::get(c, {md.createAnonymousAliasScope(domain, "kept values")});
  MDNode *state = MDNode::get(c, {md.createAnonymousAliasScope(domain, "where threads stopped")});
  MDNode *reads = nullptr, *writes = nullptr; // (scopes of their own only where there are cells)
  if (!cellReads.empty() || !cellWrites.empty()) {
    reads = MDNode::get(c, {md.createAnonymousAliasScope(domain, "block values read")});
    writes = MDNode::get(c, {md.createAnonymousAliasScope(domain, "block values written")});
  }
  MDNode *cells = MDNode::concatenate(reads, writes);
  MDNode *keptAndState = MDNode::concatenate(kept, state);
  MDNode *notWrites = MDNode::concatenate(keptAndState, writes);
  MDNode *notReads = MDNode::concatenate(keptAndState, reads);
  MDNode *frames = MDNode::concatenate(keptAndState, cells);
  MDNode *keptAndCells = MDNode::concatenate(kept, cells);
  for (BasicBlock &bb : *fn)
    for (Instruction &i : bb) {
      if (frameAccesses.count(&i)) {
        i.setMetadata(LLVMContext::MD_alias_scope, kept);
      } else if (stateStores.count(&i)) {
        i.setMetadata(LLVMContext::MD_alias_scope, state);
      } else if (cellReads.count(&i)) {
        i.setMetadata(LLVMContext::MD_alias_scope, reads);
        i.setMetadata(LLVMContext::MD_noalias, notWrites);
      } else if (cellWrites.count(&i)) {
        i.setMetadata(LLVMContext::MD_alias_scope, writes);
        i.setMetadata(LLVMContext::MD_noalias, notReads);
      } else if (i.mayReadOrWriteMemory()) {
        i.setMetadata(LLVMContext::MD_noalias, MDNode::concatenate(i.getMetadata(LLVMContext::MD_noalias),
                                                                   isa<CallBase>(i) ? keptAndCells : frames));
      }
    }
}

/// kThreadEntry again, for fibers: regions one after another, the barrier or warp callback
/// between (a warp operation's request and result through the thread's WarpLane).
void buildThreadEntry(Module &m, Function *body, const Barriers &barriers, const Waits &waits,
                      const ir::KernelInfo &info) {
  LLVMContext &c = m.getContext();
  auto *i32 = Type::getInt32Ty(c);
  Function *fn = createEntry(m, kThreadEntry);
  auto table = [&](auto values, Type *t, const char *name) {
    auto *ty = ArrayType::get(t, values.size());
    std::vector<Constant *> items;
    for (auto v : values)
      items.push_back(ConstantInt::get(t, v));
    return std::pair(ty, new GlobalVariable(m, ty, true, GlobalValue::PrivateLinkage,
                                            ConstantArray::get(ty, items), name));
  };
  auto [sitesTy, sites] = table(barriers.sites, i32, "cutwin.sim.barrier.sites");
  auto [warpTy, warps] = table(barriers.warp, Type::getInt8Ty(c), "cutwin.sim.barrier.warps");
  BasicBlock *entry = BasicBlock::Create(c, "entry", fn);
  BasicBlock *loop = BasicBlock::Create(c, "region", fn);
  BasicBlock *wait = BasicBlock::Create(c, "wait", fn);
  BasicBlock *exit = BasicBlock::Create(c, "exit", fn);
  IRBuilder<> b(entry);
  Argument *ctx = fn->getArg(0);
  std::vector<Value *> args{ctx};
  auto params = unpackArguments(b, fn->getArg(1), body, info);
  args.insert(args.end(), params.begin(), params.end());
  Value *stoppedAt = b.CreateAlloca(i32, nullptr, "stopped.at");
  FrameAddresses addr = frameAddresses(b, ctx);
  Value *laneAt = b.CreateMul(addr.thread, b.getInt64(sizeof(WarpLane)));
  Value *lane = b.CreateInBoundsGEP(b.getInt8Ty(), addr.lanes, laneAt, "lane");
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  PHINode *from = b.CreatePHI(i32, 3, "resume");
  from->addIncoming(b.getInt32(0), entry);
  PHINode *parity = b.CreatePHI(i32, 3, "parity"); // (regions run so far, modulo 2)
  parity->addIncoming(b.getInt32(0), entry);
  args.push_back(from);
  args.push_back(stoppedAt);
  args.push_back(ConstantPointerNull::get(b.getPtrTy()));
  args.push_back(parity);
  CallInst *call = b.CreateCall(body, args, "stopped");
  Value *nextParity = b.CreateXor(parity, b.getInt32(1), "parity.next");
  call->addFnAttr(Attribute::NoInline);
  Value *done = b.CreateICmpEQ(call, b.getInt32(kRegionDone));
  b.CreateCondBr(done, exit, wait);
  b.SetInsertPoint(wait);
  Value *siteAt = b.CreateInBoundsGEP(sitesTy, sites, {b.getInt32(0), call});
  Value *site = b.CreateLoad(i32, siteAt, "site");
  Value *warpAt = b.CreateInBoundsGEP(warpTy, warps, {b.getInt32(0), call});
  Value *isWarp = b.CreateLoad(b.getInt8Ty(), warpAt, "is.warp");
  BasicBlock *atBarrier = BasicBlock::Create(c, "barrier", fn);
  BasicBlock *atWarp = BasicBlock::Create(c, "warp", fn);
  b.CreateCondBr(b.CreateIsNotNull(isWarp), atWarp, atBarrier);
  b.SetInsertPoint(atBarrier);
  if (waits.barrier)
    b.CreateCall(waits.barrier, {ctx, site});
  from->addIncoming(call, atBarrier);
  parity->addIncoming(nextParity, atBarrier);
  b.CreateBr(loop);
  b.SetInsertPoint(atWarp);
  if (waits.warp) {
    auto field = [&](Type *t, size_t offset) {
      return b.CreateLoad(t, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), lane, offset));
    };
    Value *op = field(i32, offsetof(WarpLane, request.op));
    Value *mask = field(i32, offsetof(WarpLane, request.mask));
    Value *value = field(b.getInt64Ty(), offsetof(WarpLane, request.value));
    Value *operand = field(i32, offsetof(WarpLane, request.b));
    Value *result = b.CreateCall(waits.warp, {ctx, op, mask, value, operand, site});
    b.CreateStore(result, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), lane, offsetof(WarpLane, result)));
  }
  from->addIncoming(call, atWarp);
  parity->addIncoming(nextParity, atWarp);
  b.CreateBr(loop);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  attachDebugInfo(fn, body, call);
}

/// Whether every thread of the block holds the same value in each of `copies`' slots (an
/// OR of their differences from the first thread's, over a loop the optimiser vectorises);
/// stores the first thread's values to `leaders`.
Value *leadersAgree(IRBuilder<> &b, Argument *ctx, const std::vector<LeaderCopy> &copies, Value *leaders) {
  LLVMContext &c = b.getContext();
  Function *fn = b.GetInsertBlock()->getParent();
  auto *i64 = b.getInt64Ty();
  FrameAddresses addr = frameAddresses(b, ctx);
  std::vector<Value *> columns, first;
  for (size_t k = 0; k < copies.size(); ++k) {
    Value *column = b.CreateMul(addr.threads, b.getInt64(copies[k].slot.offset));
    columns.push_back(b.CreateInBoundsGEP(b.getInt8Ty(), addr.frames, column));
    first.push_back(b.CreateLoad(copies[k].type, columns.back(), "leader"));
    b.CreateStore(first.back(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), leaders, 8 * k));
  }
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *loop = BasicBlock::Create(c, "agree", fn);
  BasicBlock *done = BasicBlock::Create(c, "agreed", fn);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  PHINode *t = b.CreatePHI(i64, 2, "t");
  PHINode *differ = b.CreatePHI(i64, 2, "differ");
  t->addIncoming(b.getInt64(0), pre);
  differ->addIncoming(b.getInt64(0), pre);
  Value *any = differ;
  for (size_t k = 0; k < copies.size(); ++k) {
    Value *offset = b.CreateMul(t, b.getInt64(copies[k].slot.stride));
    Value *at = b.CreateInBoundsGEP(b.getInt8Ty(), columns[k], offset);
    Value *v = b.CreateLoad(copies[k].type, at);
    Value *x = b.CreateXor(v, first[k]);
    any = b.CreateOr(any, b.CreateZExt(x, i64));
  }
  Value *next = b.CreateAdd(t, b.getInt64(1));
  t->addIncoming(next, loop);
  differ->addIncoming(any, loop);
  b.CreateCondBr(b.CreateICmpULT(next, addr.threads), loop, done);
  b.SetInsertPoint(done);
  // (a kept value may be undefined in a thread that never uses it: the branch must not be)
  Value *settled = b.CreateFreeze(any);
  return b.CreateICmpEQ(settled, b.getInt64(0), "agree");
}

/// kRegionsEntry: a loop over the block's threads per resume point, and the mixed loop. A
/// resume point with leader copies has two loops: one where every thread holds the same
/// values in those slots (the body reads the first thread's: `leaders`), one where not.
void buildRegionsEntry(Module &m, Function *body, const Barriers &barriers, const ir::KernelInfo &info,
                       const std::vector<std::vector<LeaderCopy>> &leaderCopies) {
  LLVMContext &c = m.getContext();
  auto *p = PointerType::get(c, 0);
  auto *i32 = Type::getInt32Ty(c);
  auto *fn = Function::Create(FunctionType::get(i32, {p, p, p, i32, i32}, false),
                              GlobalValue::ExternalLinkage, kRegionsEntry, m);
  // (state without noalias: markFrameAccesses)
  fn->addParamAttr(0, Attribute::NoAlias);
  fn->addParamAttr(1, Attribute::NoAlias);
  Argument *ctx = fn->getArg(0);
  Value *state = fn->getArg(2);
  BasicBlock *entry = BasicBlock::Create(c, "entry", fn);
  IRBuilder<> b(entry);
  std::vector<Value *> args{ctx};
  auto params = unpackArguments(b, fn->getArg(1), body, info);
  args.insert(args.end(), params.begin(), params.end());
  Value *none = ConstantPointerNull::get(b.getPtrTy());
  Value *parity = b.CreateAnd(fn->getArg(4), b.getInt32(1), "parity"); // (the block's round)
  Value *leaders = b.CreateAlloca(ArrayType::get(b.getInt64Ty(), kLeaderCopies), nullptr, "leaders");
  // Where the round's threads stopped, if at one place: an AND and an OR of their stops,
  // equal when every stop is (reductions the vectoriser keeps in registers, so that the
  // scheduler need not read every thread's state back to find out).
  Value *stopsAnd = b.CreateAlloca(i32, nullptr, "stops.and");
  Value *stopsOr = b.CreateAlloca(i32, nullptr, "stops.or");
  BasicBlock *mixed = BasicBlock::Create(c, "mixed", fn);
  SwitchInst *sw = b.CreateSwitch(fn->getArg(3), mixed, unsigned(barriers.after.size()));
  std::vector<CallInst *> calls;
  auto stateOf = [&](IRBuilder<> &b, Value *linear) { return b.CreateInBoundsGEP(i32, state, linear); };
  auto threadLoops = [&](uint32_t r, Value *copies) {
    b.CreateStore(b.getInt32(UINT32_MAX), stopsAnd);
    b.CreateStore(b.getInt32(0), stopsOr);
    emitThreadLoops(b, ctx, [&](IRBuilder<> &b, Value *linear) {
      std::vector<Value *> a = args;
      a.push_back(b.getInt32(r));
      a.push_back(stateOf(b, linear));
      a.push_back(copies);
      a.push_back(parity);
      CallInst *call = b.CreateCall(body, a, "stopped");
      call->addFnAttr(Attribute::AlwaysInline);
      calls.push_back(call);
      Value *andSoFar = b.CreateLoad(i32, stopsAnd);
      b.CreateStore(b.CreateAnd(andSoFar, call), stopsAnd);
      Value *orSoFar = b.CreateLoad(i32, stopsOr);
      b.CreateStore(b.CreateOr(orSoFar, call), stopsOr);
    });
    Value *allAnd = b.CreateLoad(i32, stopsAnd);
    Value *allOr = b.CreateLoad(i32, stopsOr);
    Value *one = b.CreateICmpEQ(allAnd, allOr);
    b.CreateRet(b.CreateSelect(one, allAnd, b.getInt32(kRegionsMixed), "all.stopped"));
  };
  for (uint32_t r = 0; r < barriers.after.size(); ++r) {
    BasicBlock *region = BasicBlock::Create(c, "region." + std::to_string(r), fn, mixed);
    sw->addCase(b.getInt32(r), region);
    b.SetInsertPoint(region);
    if (leaderCopies[r].empty()) {
      threadLoops(r, none);
      continue;
    }
    Value *agree = leadersAgree(b, ctx, leaderCopies[r], leaders);
    BasicBlock *alike = BasicBlock::Create(c, "region." + std::to_string(r) + ".alike", fn, mixed);
    BasicBlock *unlike = BasicBlock::Create(c, "region." + std::to_string(r) + ".unlike", fn, mixed);
    b.CreateCondBr(agree, alike, unlike);
    b.SetInsertPoint(alike);
    threadLoops(r, leaders);
    b.SetInsertPoint(unlike);
    threadLoops(r, none);
  }
  b.SetInsertPoint(mixed);
  emitThreadLoops(b, ctx, [&](IRBuilder<> &b, Value *linear) {
    Value *slot = stateOf(b, linear);
    Value *from = b.CreateLoad(i32, slot, "from");
    Value *live = b.CreateICmpULT(from, b.getInt32(kRegionParked)); // (not done, not parked)
    BasicBlock *run = BasicBlock::Create(c, "run", fn);
    BasicBlock *next = BasicBlock::Create(c, "skip", fn);
    b.CreateCondBr(live, run, next);
    b.SetInsertPoint(run);
    std::vector<Value *> a = args;
    a.push_back(from);
    a.push_back(slot);
    a.push_back(none);
    a.push_back(parity);
    CallInst *call = b.CreateCall(body, a, "stopped");
    call->addFnAttr(Attribute::NoInline);
    calls.push_back(call);
    b.CreateBr(next);
    b.SetInsertPoint(next);
  });
  b.CreateRet(b.getInt32(kRegionsMixed)); // (threads that did not run keep their state)
  attachDebugInfo(fn, body, calls.front());
  for (CallInst *call : calls)
    call->setDebugLoc(calls.front()->getDebugLoc());
}

} // namespace

BarrierRegions splitAtBarriers(Module &m, const ir::KernelInfo &info) {
  BarrierRegions out;
  Function *kernel = m.getFunction(info.irName);
  if (!kernel || kernel->isDeclaration())
    throw Error("sim-regions: kernel function " + info.irName + " missing from module");
  Waits waits{m.getFunction(hostCallbackSymbol(HostCallback::Barrier)),
              m.getFunction(hostCallbackSymbol(HostCallback::Warp))};
  if (!waits.any()) {
    out.why = "no barrier";
    return out;
  }
  std::set<Function *> reaching = functionsReaching(m, waits);
  out.why = whyFibers(m, info, kernel, reaching);
  if (!out.why.empty())
    return out;
  // The kernel waits only in its own body: functions that wait are inlined into it.
  for (bool again = true; again;) {
    again = false;
    std::vector<CallBase *> calls;
    for (BasicBlock &bb : *kernel)
      for (Instruction &i : bb)
        if (Function *g = calleeOf(i); g && !waits.is(g) && reaching.count(g))
          calls.push_back(cast<CallBase>(&i));
    for (CallBase *call : calls) {
      InlineFunctionInfo ifi;
      if (!InlineFunction(*call, ifi, false, nullptr, false).isSuccess()) {
        out.why = "a function that waits at a barrier could not be inlined";
        return out;
      }
      again = true;
    }
  }
  out.why = whyNotCut(*kernel, waits);
  if (!out.why.empty())
    return out;
  Barriers barriers = cutAtBarriers(*kernel, waits);
  bool lockstep = warpsInLockstep(barriers); // (before warpLanes takes the calls apart)
  std::set<Instruction *> stateStores;
  std::vector<BasicBlock *> stopBlocks{nullptr};
  Function *body = resumableBody(kernel, barriers, stateStores, stopBlocks);
  IRBuilder<> b(body->getEntryBlock().getTerminator());
  FrameAddresses addr = frameAddresses(b, body->getArg(0));
  FrameLayout layout;
  allocasToFrame(body, addr, layout, out.localBytes);
  out.frameKept.assign(barriers.after.size(), 0);
  std::set<Instruction *> frameAccesses;
  warpLanes(barriers, addr, frameAccesses);
  // Leader copies pay where the optimiser splits a thread loop at a bound the same for
  // every thread (IRCE: kernels without bounds checks, sim_pipeline.cpp); elsewhere the
  // second loop per resume point only costs (the tiled matmul with bounds checks: 2x).
  std::vector<std::vector<LeaderCopy>> leaders(barriers.after.size());
  BlockUniformity alike =
      analyseBlockUniformity(*body, body->getArg(0), {body->getArg(body->arg_size() - 3)}, stopBlocks);
  alike.stopsTogether = alike.stopsTogether && lockstep;
  std::set<Instruction *> cellReads, cellWrites;
  keepValuesAcrossBarriers(body, barriers, stopBlocks, addr, layout, out.frameKept, frameAccesses, cellReads,
                           cellWrites, alike, !info.boundscheck, leaders, out.blockValues);
  markFrameAccesses(body, frameAccesses, stateStores, cellReads, cellWrites);
  // The kernel's name (and its place in !cutwin.kernels) passes to the body, once nothing
  // calls the kernel (the old thread entry).
  if (Function *old = m.getFunction(kThreadEntry))
    old->eraseFromParent();
  kernel->replaceAllUsesWith(body);
  body->takeName(kernel);
  kernel->eraseFromParent();
  buildThreadEntry(m, body, barriers, waits, info);
  buildRegionsEntry(m, body, barriers, info, leaders);
  out.split = true;
  out.frameBytes = layout.bytes;
  out.sites = barriers.sites;
  out.warp = barriers.warp;
  return out;
}

std::string describe(const BarrierRegions &r) {
  if (!r.split)
    return "# *** sim-regions: fibers (" + r.why + ") ***\n";
  std::string kept;
  for (size_t i = 1; i < r.frameKept.size(); ++i)
    kept += (i > 1 ? ", " : "") + std::to_string(r.frameKept[i]);
  std::string once = r.blockValues ? " (" + std::to_string(r.blockValues) + " once per block)" : "";
  return "# *** sim-regions: " + std::to_string(r.sites.size()) + " regions, a frame of " +
         std::to_string(r.frameBytes) + " bytes per thread (" + std::to_string(r.localBytes) +
         " of local arrays), values kept after each stop: " + (kept.empty() ? "none" : kept) + once +
         " ***\n";
}

} // namespace cutwin::sim
