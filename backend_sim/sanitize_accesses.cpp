#include "backend_sim/sanitize_accesses.h"

#include "backend_sim/host_callbacks.h"
#include "backend_sim/thread_context.h"
#include "frontend/ir/sanitize_checks.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <map>
#include <set>
#include <tuple>

namespace cutwin::sim {

using namespace llvm;

namespace {

/// One access to check: where, how many bytes, what it does, the value a store writes.
struct Access {
  Instruction *at;
  Value *ptr;
  Value *size;
  uint32_t bits;
  Value *value = nullptr;
};

/// The memory `ptr` addresses as far as the IR tells: shared and global memory by address
/// space, a local array by its allocation; Unknown for a generic pointer (the sanitizer
/// looks at the address), nullopt for memory no other thread can see and that is never
/// unwritten: a variable's own slot, the thread context, constants.
std::optional<AccessSpace> spaceOf(Value *ptr, Value *ctx) {
  switch (ptr->getType()->getPointerAddressSpace()) {
  case 1: return AccessSpace::Global;
  case 3: return AccessSpace::Shared;
  case 4: return std::nullopt; // constant memory
  default: break;
  }
  const Value *base = getUnderlyingObject(ptr, 0);
  if (auto *a = dyn_cast<AllocaInst>(base))
    return a->getAllocatedType()->isArrayTy() ? std::optional(AccessSpace::Local) : std::nullopt;
  if (base == ctx || isa<GlobalVariable>(base))
    return std::nullopt;
  return AccessSpace::Unknown;
}

/// The bits a store of at most 8 bytes writes, as an i64 (null for wider values).
Value *storedBits(IRBuilder<> &b, Value *v, const DataLayout &dl) {
  Type *t = v->getType();
  uint64_t bits = dl.getTypeSizeInBits(t).getFixedValue();
  if (bits > 64 || t->isAggregateType() || dl.getTypeStoreSizeInBits(t) != bits)
    return nullptr;
  if (t->isPointerTy())
    v = b.CreatePtrToInt(v, b.getIntNTy(unsigned(bits)));
  else if (!t->isIntegerTy())
    v = b.CreateBitCast(v, b.getIntNTy(unsigned(bits)));
  return b.CreateZExt(v, b.getInt64Ty());
}

/// The loads that begin a compare-and-swap loop: the value read is what a cmpxchg of the
/// same address compares with (`old = a[i]` then `cuda.atomic.cas(a, i, old, new)`). The
/// exchange retries whatever the read saw, so the read is as good as an atomic one.
std::set<const LoadInst *> compareAndSwapReads(Function &f) {
  std::set<const LoadInst *> reads;
  for (BasicBlock &bb : f)
    for (Instruction &inst : bb)
      if (auto *cx = dyn_cast<AtomicCmpXchgInst>(&inst)) {
        std::vector<Value *> seen{cx->getCompareOperand()};
        for (size_t i = 0; i < seen.size() && i < 8; ++i) {
          Value *v = seen[i];
          if (auto *cast = dyn_cast<CastInst>(v))
            seen.push_back(cast->getOperand(0));
          else if (auto *phi = dyn_cast<PHINode>(v))
            seen.insert(seen.end(), phi->incoming_values().begin(), phi->incoming_values().end());
          else if (auto *ld = dyn_cast<LoadInst>(v); ld && ld->getPointerOperand()->stripPointerCasts() ==
                                                               cx->getPointerOperand()->stripPointerCasts())
            reads.insert(ld);
        }
      }
  return reads;
}

void collect(Instruction &inst, Value *ctx, const DataLayout &dl, unsigned checks,
             const std::set<const LoadInst *> &casReads, std::vector<Access> &out) {
  auto *i64 = Type::getInt64Ty(inst.getContext());
  auto sized = [&](Type *t) { return ConstantInt::get(i64, dl.getTypeStoreSize(t)); };
  auto add = [&](Value *ptr, Value *size, uint32_t bits, Value *value = nullptr) {
    auto space = spaceOf(ptr, ctx);
    if (space == AccessSpace::Local && !(checks & ir::kSanitizeInit))
      return; // a thread's own memory takes part in no race
    if ((checks & ir::kSanitizeSharedOnly) && (space == AccessSpace::Local || space == AccessSpace::Global))
      return;
    if (space)
      out.push_back({&inst, ptr, size, bits | (uint32_t(*space) << kAccessSpaceShift), value});
  };
  // A volatile access is a relaxed atomic one in PTX's memory model (sm_70 and later): the
  // first read of a compare-and-swap loop (float atomic max) races with no atomic.
  if (auto *ld = dyn_cast<LoadInst>(&inst))
    add(ld->getPointerOperand(), sized(ld->getType()),
        kAccessRead | (ld->isAtomic() || ld->isVolatile() || casReads.count(ld) ? kAccessAtomic : 0));
  else if (auto *st = dyn_cast<StoreInst>(&inst))
    add(st->getPointerOperand(), sized(st->getValueOperand()->getType()),
        kAccessWrite | (st->isAtomic() || st->isVolatile() ? kAccessAtomic : 0), st->getValueOperand());
  else if (auto *rmw = dyn_cast<AtomicRMWInst>(&inst))
    add(rmw->getPointerOperand(), sized(rmw->getValOperand()->getType()),
        kAccessRead | kAccessWrite | kAccessAtomic);
  else if (auto *cx = dyn_cast<AtomicCmpXchgInst>(&inst))
    add(cx->getPointerOperand(), sized(cx->getNewValOperand()->getType()),
        kAccessRead | kAccessWrite | kAccessAtomic);
  else if (auto *mt = dyn_cast<MemTransferInst>(&inst)) {
    add(mt->getRawSource(), mt->getLength(), kAccessRead | kAccessCopy);
    add(mt->getRawDest(), mt->getLength(), kAccessWrite);
  } else if (auto *ms = dyn_cast<MemSetInst>(&inst)) {
    add(ms->getRawDest(), ms->getLength(), kAccessWrite);
  } else if (isa<FenceInst>(inst) && (checks & ir::kSanitizeRace)) {
    auto *p = PointerType::get(inst.getContext(), 0);
    out.push_back({&inst, ConstantPointerNull::get(p), ConstantInt::get(i64, 0), kAccessFence});
  }
}

/// The site of `loc`: its innermost function's file and name, line and column.
AccessSite siteOf(const DILocation *loc) {
  AccessSite s;
  if (!loc)
    return s;
  s.line = loc->getLine();
  s.col = loc->getColumn();
  if (const DISubprogram *sp = loc->getScope()->getSubprogram()) {
    s.function = sp->getName().str();
    if (const DIFile *f = sp->getFile())
      s.file = f->getFilename().str();
  }
  return s;
}

/// Whether an aligned 4-byte read of shared memory needs no call (SharedFastPath): the
/// thread's read is recorded in its cell already, or two other readers' are, no other
/// thread wrote it, and its bytes were written. (Writes always call: the cell keeps the
/// value and clock of the latest.)
Value *readNeedsNoCall(IRBuilder<> &b, Value *ctx, Value *ptr, unsigned checks) {
  // (one value per statement: the IR's order is the same from any C++ compiler)
  auto *i32 = b.getInt32Ty();
  auto *i64 = b.getInt64Ty();
  auto *p0 = PointerType::get(b.getContext(), 0);
  auto at = [&](Value *base, uint64_t offset) {
    return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, offset);
  };
  auto word = [&](Value *base, uint64_t offset) { return b.CreateLoad(i32, at(base, offset)); };
  Value *fast = b.CreateLoad(p0, at(ctx, offsetof(ThreadContext, sanitizer)), "san.fast");
  Value *shared = b.CreateLoad(p0, at(ctx, offsetof(ThreadContext, shared)));
  Value *address = b.CreatePtrToInt(b.CreateAddrSpaceCast(ptr, p0), i64);
  Value *off = b.CreateSub(address, b.CreatePtrToInt(shared, i64), "san.offset");
  Value *g = b.CreateLShr(off, 2);
  Value *granules = b.CreateZExt(word(fast, offsetof(SharedFastPath, granules)), i64);
  Value *inside = b.CreateICmpULT(g, granules);
  Value *aligned = b.CreateICmpEQ(b.CreateAnd(off, 3), b.getInt64(0));
  Value *ok = b.CreateAnd(aligned, inside);
  g = b.CreateSelect(inside, g, b.getInt64(0), "san.granule"); // (the loads below stay inside the arrays)
  if (checks & ir::kSanitizeRace) {
    // this thread: its linear id in the grid + 1
    Value *x = word(ctx, offsetof(ThreadContext, tid));
    Value *y = word(ctx, offsetof(ThreadContext, tid) + 4);
    Value *z = word(ctx, offsetof(ThreadContext, tid) + 8);
    Value *nx = word(ctx, offsetof(ThreadContext, ntid));
    Value *ny = word(ctx, offsetof(ThreadContext, ntid) + 4);
    Value *tid = b.CreateAdd(x, b.CreateMul(nx, b.CreateAdd(y, b.CreateMul(ny, z))));
    Value *first = word(fast, offsetof(SharedFastPath, firstThread));
    Value *me = b.CreateAdd(first, tid, "san.me");
    Value *cells = b.CreateLoad(p0, at(fast, offsetof(SharedFastPath, cells)));
    Value *cell = b.CreateInBoundsGEP(i32, cells, b.CreateShl(g, 2));
    auto field = [&](unsigned k, const char *name) {
      return b.CreateLoad(i32, b.CreateConstInBoundsGEP1_64(i32, cell, k), name);
    };
    Value *tag = field(0, "san.tag");
    Value *w = field(1, "san.write");
    Value *r0 = field(2, "san.read0");
    Value *r1 = field(3, "san.read1");
    Value *epoch = word(fast, offsetof(SharedFastPath, epoch));
    Value *current = b.CreateICmpEQ(tag, epoch);
    Value *zero = b.getInt32(0), *partial = b.getInt32(kPartialAccess);
    auto either = [&](Value *v, Value *p, Value *q) {
      Value *isP = b.CreateICmpEQ(v, p);
      Value *isQ = b.CreateICmpEQ(v, q);
      return b.CreateOr(isP, isQ);
    };
    Value *writer = either(w, zero, me);
    Value *recorded = either(me, r0, r1);
    auto another = [&](Value *r) { // a whole-word read of some thread
      Value *some = b.CreateICmpNE(r, zero);
      Value *whole = b.CreateICmpNE(r, partial);
      return b.CreateAnd(some, whole);
    };
    Value *full0 = another(r0);
    Value *full1 = another(r1);
    Value *others = b.CreateAnd(full0, full1);
    Value *race = b.CreateAnd(writer, b.CreateOr(recorded, others));
    ok = b.CreateAnd(ok, b.CreateAnd(current, race));
  }
  if (checks & ir::kSanitizeInit) {
    Value *written = b.CreateLoad(p0, at(fast, offsetof(SharedFastPath, written)));
    Value *tag = b.CreateLoad(i32, b.CreateInBoundsGEP(i32, written, g), "san.written");
    Value *start = word(fast, offsetof(SharedFastPath, blockStart));
    ok = b.CreateAnd(ok, b.CreateICmpEQ(tag, start));
  }
  return ok;
}

} // namespace

std::vector<AccessSite> instrumentAccessesForSanitizer(Module &m, unsigned checks) {
  std::vector<AccessSite> sites;
  if (!checks)
    return sites;
  LLVMContext &c = m.getContext();
  const DataLayout &dl = m.getDataLayout();
  auto *p = PointerType::get(c, 0);
  auto *i64 = Type::getInt64Ty(c);
  Function *check = declareHostCallback(m, HostCallback::SanitizeAccess);
  Function *born = declareHostCallback(m, HostCallback::SanitizeLocalArray);
  std::map<std::tuple<std::string, std::string, uint32_t, uint32_t>, uint32_t> siteIds;
  auto siteId = [&](const DILocation *loc) {
    AccessSite s = siteOf(loc);
    auto [it, added] = siteIds.try_emplace({s.file, s.function, s.line, s.col}, uint32_t(sites.size()));
    if (added)
      sites.push_back(s);
    return it->second;
  };
  for (Function &f : m) {
    if (f.isDeclaration() || !f.hasFnAttribute(kKernelCodeAttribute))
      continue;
    Value *ctx = f.getArg(0);
    std::vector<Access> accesses;
    std::vector<AllocaInst *> localArrays;
    std::set<const LoadInst *> casReads = compareAndSwapReads(f);
    for (BasicBlock &bb : f)
      for (Instruction &inst : bb) {
        collect(inst, ctx, dl, checks, casReads, accesses);
        if (auto *a = dyn_cast<AllocaInst>(&inst); a && a->getAllocatedType()->isArrayTy())
          localArrays.push_back(a);
      }
    for (Access &a : accesses) {
      IRBuilder<> b(a.at);
      // An aligned 4-byte plain read of shared memory its cell says needs nothing: no call.
      auto *size = dyn_cast<ConstantInt>(a.size);
      uint32_t kind = a.bits & (kAccessRead | kAccessWrite | kAccessAtomic | kAccessCopy | kAccessFence);
      if (AccessSpace(a.bits >> kAccessSpaceShift) == AccessSpace::Shared && size &&
          size->getZExtValue() == 4 && kind == kAccessRead) {
        Value *skip = readNeedsNoCall(b, ctx, a.ptr, checks);
        b.SetInsertPoint(SplitBlockAndInsertIfThen(b.CreateNot(skip), a.at, false));
      }
      uint32_t bits = a.bits;
      Value *value = a.value ? storedBits(b, a.value, dl) : nullptr;
      if (value)
        bits |= kAccessValueKnown;
      b.CreateCall(check,
                   {ctx, b.CreateAddrSpaceCast(a.ptr, p), b.CreateZExtOrTrunc(a.size, i64), b.getInt32(bits),
                    b.getInt32(siteId(a.at->getDebugLoc().get())), value ? value : b.getInt64(0)})
          ->setDebugLoc(a.at->getDebugLoc());
    }
    // A local array's bytes are unwritten each time its function begins (a thread loop's
    // threads reuse one frame): the allocations are in the entry block.
    if (checks & ir::kSanitizeInit)
      for (AllocaInst *a : localArrays) {
        IRBuilder<> b(a->getNextNode());
        auto size = a->getAllocationSize(dl);
        Type *item = a->getAllocatedType()->getArrayElementType();
        b.CreateCall(born, {ctx, b.CreateAddrSpaceCast(a, p), b.getInt64(size ? size->getFixedValue() : 0),
                            b.getInt64(dl.getTypeAllocSize(item).getFixedValue())});
      }
  }
  return sites;
}

} // namespace cutwin::sim
