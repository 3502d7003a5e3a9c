#include "backend_sim/sanitize_accesses.h"

#include "backend_sim/host_callbacks.h"
#include "backend_sim/thread_context.h"
#include "frontend/ir/sanitize_checks.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <algorithm>
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

/// Whether storedBits() tells a store's bits: values of at most 8 bytes, no aggregates.
bool storedBitsFit(Type *t, const DataLayout &dl) {
  uint64_t bits = dl.getTypeSizeInBits(t).getFixedValue();
  return bits <= 64 && !t->isAggregateType() && dl.getTypeStoreSizeInBits(t) == bits;
}

/// The bits a store of at most 8 bytes writes, as an i64 (null for wider values).
Value *storedBits(IRBuilder<> &b, Value *v, const DataLayout &dl) {
  Type *t = v->getType();
  uint64_t bits = dl.getTypeSizeInBits(t).getFixedValue();
  if (!storedBitsFit(t, dl))
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

/// Alias scopes that tell the optimiser what the inline checks' memory is: the sanitizer's
/// state a thread's checks share (the fast path's fields, the thread's index), which only
/// calls change; the words and bitmaps (shadow), which other threads change; and the
/// kernel's own accesses (data), which touch neither. A thread's checks between two calls
/// then load the shared state once.
struct SanitizerScopes {
  explicit SanitizerScopes(LLVMContext &c) {
    MDBuilder mdb(c);
    MDNode *domain = mdb.createAnonymousAliasScopeDomain("cutwin.sanitizer");
    MDNode *stateScope = mdb.createAnonymousAliasScope(domain, "state");
    MDNode *shadowScope = mdb.createAnonymousAliasScope(domain, "shadow");
    stateList = MDNode::get(c, {stateScope});
    shadowList = MDNode::get(c, {shadowScope});
    bothList = MDNode::get(c, {stateScope, shadowScope});
  }
  void state(Instruction *i) const { i->setMetadata(LLVMContext::MD_alias_scope, stateList); }
  void shadow(Instruction *i) const {
    i->setMetadata(LLVMContext::MD_alias_scope, shadowList);
    i->setMetadata(LLVMContext::MD_noalias, stateList);
  }
  void data(Instruction *i) const {
    i->setMetadata(LLVMContext::MD_noalias,
                   MDNode::concatenate(i->getMetadata(LLVMContext::MD_noalias), bothList));
  }
  MDNode *stateList, *shadowList, *bothList;
};

/// The thread's linear index in its block: x + nx * (y + ny * z).
Value *threadInBlock(IRBuilder<> &b, Value *ctx, const SanitizerScopes *scopes = nullptr) {
  auto word = [&](uint64_t offset) {
    LoadInst *l = b.CreateLoad(b.getInt32Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), ctx, offset));
    if (scopes)
      scopes->state(l);
    return l;
  };
  Value *x = word(offsetof(ThreadContext, tid));
  Value *y = word(offsetof(ThreadContext, tid) + 4);
  Value *z = word(offsetof(ThreadContext, tid) + 8);
  Value *nx = word(offsetof(ThreadContext, ntid));
  Value *ny = word(offsetof(ThreadContext, ntid) + 4);
  Value *yz = b.CreateAdd(y, b.CreateMul(ny, z));
  Value *scaled = b.CreateMul(nx, yz);
  return b.CreateAdd(x, scaled, "san.tid");
}

/// What the inline check of one compact word (kWord*) decides: whether the access needs
/// nothing (`skip`), whether it needs no call (`good`: nothing, or the word `next`).
struct WordStep {
  Value *skip, *good, *next;
};

/// The decision for `word`, `stale` where it is empty; `me` is this thread's stamp and
/// index (kWordOwner's bits), `stamp64` and `tid64` apart. A read: this thread's access of
/// the epoch or two reads of the epoch are there: nothing; the word is empty: this thread's
/// read; one read of another thread at this site: the second (with `twoReaders`). A write: this thread's
/// write is there: nothing; the word is empty, or holds this thread's read at this site: its write.
WordStep wordStep(IRBuilder<> &b, Value *word, Value *stale, Value *me, Value *stamp64, Value *tid64,
                  uint32_t site, bool writes, bool twoReaders) {
  // Each test is one mask and one compare (`me` and the constants are the thread's: the
  // optimiser computes them once for its checks). (One value per statement: the IR's order
  // is the same from any C++ compiler.)
  uint64_t siteBits = uint64_t(site + 1) << kWordSiteShift, siteMask = uint64_t(kWordSites) << kWordSiteShift;
  auto is = [&](uint64_t mask, Value *want, const char *name = "") {
    Value *masked = b.CreateAnd(word, mask);
    return b.CreateICmpEQ(masked, want, name);
  };
  Value *fresh = b.CreateOr(me, (writes ? kWordWrite : kWordRead) | siteBits);
  if (writes) {
    Value *wrote = b.CreateOr(me, kWordWrite);
    Value *skip = is(kWordOwner | kWordWrite, wrote, "san.mine"); // this thread wrote in the epoch
    Value *here = b.CreateOr(me, siteBits);
    Value *grows = is(kWordOwner | siteMask, here); // this thread's access of the epoch at this site
    Value *good = b.CreateOr(skip, b.CreateOr(grows, stale));
    Value *grown = b.CreateOr(word, kWordWrite);
    return {skip, good, b.CreateSelect(stale, fresh, grown, "san.next")};
  }
  Value *mine = is(kWordOwner, me, "san.mine");
  if (!twoReaders) {
    Value *good = b.CreateOr(mine, stale);
    Value *grown = b.CreateOr(word, kWordRead);
    return {mine, good, b.CreateSelect(stale, fresh, grown, "san.next")};
  }
  uint64_t epochKinds = kWordStamp | kWordFull | kWordRead | kWordWrite | kWordTwoReads;
  Value *two = b.CreateOr(stamp64, kWordRead | kWordTwoReads);
  Value *twoReads = is(epochKinds, two); // the epoch's two reads
  Value *one = b.CreateOr(stamp64, kWordRead | siteBits);
  Value *oneRead = is(epochKinds | siteMask, one); // one read of the epoch at this site
  Value *skip = b.CreateOr(mine, twoReads);
  Value *good = b.CreateOr(skip, b.CreateOr(oneRead, stale));
  Value *reader = b.CreateShl(tid64, kWordReaderShift);
  Value *grown = b.CreateOr(word, b.CreateOr(reader, kWordTwoReads));
  return {skip, good, b.CreateSelect(stale, fresh, grown, "san.next")};
}

/// What a thread's inline checks share (loads the optimiser may take once for the accesses
/// between two calls: the state changes at barriers, warp operations and fences only).
struct CheckState {
  IRBuilder<> &b;
  const SanitizerScopes &scopes;
  Value *ctx;
  LoadInst *load(Type *t, Value *base, uint64_t offset, const char *name = "") const {
    LoadInst *l = b.CreateLoad(t, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, offset), name);
    scopes.state(l);
    return l;
  }
  Value *fast() const {
    return load(PointerType::get(b.getContext(), 0), ctx, offsetof(ThreadContext, sanitizer), "san.fast");
  }
  /// This thread as words name it: stamp and index (kWordOwner's bits), both apart, and
  /// whether its warp may keep words (SanitizerFastPath::callingWarps).
  struct Thread {
    Value *me, *stamp64, *tid64, *keepsWords;
  };
  Thread thread(Value *fast) const {
    auto *i64 = b.getInt64Ty();
    Value *stamp = load(b.getInt32Ty(), fast, offsetof(SanitizerFastPath, stamp), "san.stamp");
    Value *calling = load(b.getInt32Ty(), fast, offsetof(SanitizerFastPath, callingWarps));
    Value *tid = threadInBlock(b, ctx, &scopes);
    Value *warp = b.CreateLShr(tid, 5);
    Value *warpBit = b.CreateLShr(calling, warp);
    Value *keeps = b.CreateNot(b.CreateTrunc(warpBit, b.getInt1Ty()));
    Value *tid64 = b.CreateZExt(tid, i64);
    Value *stamp64 = b.CreateZExt(stamp, i64);
    Value *owner = b.CreateShl(tid64, kWordTidShift);
    Value *me = b.CreateOr(owner, stamp64, "san.me");
    return {me, stamp64, tid64, keeps};
  }
};

/// Where the inline check of an access at `pointer` looks: its 4-byte granule counted from
/// `base`, and whether the access is aligned and inside the `limit` granules it may begin at
/// (the offset rotated right by 2: a misaligned offset's low bits become high ones). Outside,
/// the granule is 0, so that the check's loads stay inside the arrays.
struct Granule {
  Value *inside, *index;
};
Granule granuleOf(IRBuilder<> &b, Value *pointer, Value *base, Value *limit) {
  // (one value per statement: the IR's order is the same from any C++ compiler)
  auto *i64 = b.getInt64Ty();
  Value *address = b.CreatePtrToInt(pointer, i64);
  Value *off = b.CreateSub(address, base, "san.offset");
  Function *rotate = Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(), Intrinsic::fshr, {i64});
  Value *rotated = b.CreateCall(rotate, {off, off, b.getInt64(2)});
  Value *bound = b.CreateZExt(limit, i64);
  Value *inside = b.CreateICmpULT(rotated, bound);
  return {inside, b.CreateSelect(inside, rotated, b.getInt64(0), "san.granule")};
}

/// Makes a load or store of the sanitizer's words or marks atomic (monotonic): a call may
/// change them, and the callback's declared effects (host_callbacks.h: it writes only state
/// of its own) would let the optimiser reuse a value read before it; it does not for atomics.
template <class I> void atomic(I *i, unsigned align) {
  i->setAtomic(AtomicOrdering::Monotonic);
  i->setAlignment(Align(align));
}

/// The inline check of an aligned 4-byte plain load or store of shared memory: where the
/// bytes a read reads were written and the granule's word needs nothing or this thread may
/// update it, no call (shared memory is the block's: one thread at a time, no compare-and-swap).
void instrumentSharedAccess(const Access &a, Value *ctx, unsigned checks, uint32_t site, Function *check,
                            Value *value, const SanitizerScopes &scopes) {
  Instruction *inst = a.at;
  IRBuilder<> b(inst);
  auto *i32 = b.getInt32Ty();
  auto *i64 = b.getInt64Ty();
  auto *p0 = PointerType::get(b.getContext(), 0);
  bool race = checks & ir::kSanitizeRace, init = checks & ir::kSanitizeInit;
  bool writes = a.bits & kAccessWrite;
  scopes.data(inst);
  CheckState state{b, scopes, ctx};
  Value *fast = state.fast();
  Value *shared = state.load(p0, ctx, offsetof(ThreadContext, shared));
  Value *granules = state.load(i32, fast, offsetof(SanitizerFastPath, granules));
  Value *pointer = b.CreateAddrSpaceCast(a.ptr, p0);
  Value *sharedBase = b.CreatePtrToInt(shared, i64);
  auto [ok, g] = granuleOf(b, pointer, sharedBase, granules);
  Value *writtenAt = nullptr, *blockStart = nullptr;
  if (init) {
    Value *written = state.load(p0, fast, offsetof(SanitizerFastPath, sharedWritten));
    writtenAt = b.CreateInBoundsGEP(i32, written, g);
    LoadInst *mark = b.CreateLoad(i32, writtenAt, "san.written");
    atomic(mark, 4);
    scopes.shadow(mark);
    blockStart = state.load(i32, fast, offsetof(SanitizerFastPath, blockStart));
    if (!writes)
      ok = b.CreateAnd(ok, b.CreateICmpEQ(mark, blockStart));
  }
  Value *wordAt = nullptr, *kept = nullptr;
  if (race) {
    Value *words = state.load(p0, fast, offsetof(SanitizerFastPath, sharedWords));
    CheckState::Thread me = state.thread(fast);
    ok = b.CreateAnd(ok, me.keepsWords);
    wordAt = b.CreateInBoundsGEP(i64, words, g);
    LoadInst *word = b.CreateLoad(i64, wordAt, "san.word");
    atomic(word, 8);
    scopes.shadow(word);
    Value *wordStamp = b.CreateAnd(word, kWordStamp);
    Value *stale = b.CreateICmpNE(wordStamp, me.stamp64, "san.stale"); // (an older epoch's)
    WordStep step = wordStep(b, word, stale, me.me, me.stamp64, me.tid64, site, writes, /*twoReaders=*/true);
    ok = b.CreateAnd(ok, step.good);
    kept = b.CreateSelect(step.skip, word, step.next);
  }
  Instruction *quick, *slow;
  SplitBlockAndInsertIfThenElse(ok, inst, &quick, &slow);
  IRBuilder<> qb(quick);
  if (race) {
    StoreInst *keep = qb.CreateStore(kept, wordAt);
    atomic(keep, 8);
    scopes.shadow(keep);
  }
  if (init && writes) {
    StoreInst *mark = qb.CreateStore(blockStart, writtenAt);
    atomic(mark, 4);
    scopes.shadow(mark);
  }
  IRBuilder<> sb(slow);
  sb.CreateCall(check, {ctx, pointer, b.getInt64(4), b.getInt32(a.bits | (value ? kAccessValueKnown : 0)),
                        b.getInt32(site), value ? value : b.getInt64(0)})
      ->setDebugLoc(inst->getDebugLoc());
}

/// The inline check of an aligned 4- or 8-byte plain load or store of global memory
/// (GlobalSite, kWord*): where the site's allocation holds the address, the bytes a read
/// reads were written, and the compact words of its 4-byte granules say this thread owns
/// them in this epoch or nobody does in this interval, the access needs no call; a word
/// nobody owns becomes this thread's by a compare-and-swap. A store updates the words after
/// it is made (a thread that finds the word then finds the bytes it left); if a
/// compare-and-swap fails there (another thread came in between), the call follows the
/// store and says whether memory already held its bits. Anything else calls as before.
void instrumentGlobalAccess(const Access &a, Value *ctx, unsigned checks, uint32_t site, Function *check,
                            Value *value, const SanitizerScopes &scopes) {
  Instruction *inst = a.at;
  LLVMContext &c = inst->getContext();
  IRBuilder<> b(inst);
  auto *i8 = b.getInt8Ty();
  auto *i32 = b.getInt32Ty();
  auto *i64 = b.getInt64Ty();
  auto *p0 = PointerType::get(c, 0);
  bool race = checks & ir::kSanitizeRace, init = checks & ir::kSanitizeInit;
  bool writes = a.bits & kAccessWrite;
  uint64_t size = cast<ConstantInt>(a.size)->getZExtValue();
  scopes.data(inst);
  CheckState state{b, scopes, ctx};
  // A site's allocation: read afresh at each access (a call may have changed it).
  auto site_ = [&](Type *t, Value *base, uint64_t offset) {
    return b.CreateLoad(t, b.CreateConstInBoundsGEP1_64(i8, base, offset), /*isVolatile=*/true);
  };
  // (one value per statement: the IR's order is the same from any C++ compiler)
  Value *fast = state.fast();
  Value *sites = state.load(p0, fast, offsetof(SanitizerFastPath, sites));
  Value *slot = b.CreateConstInBoundsGEP1_64(i8, sites, uint64_t(site) * sizeof(GlobalSite), "san.site");
  Value *base = site_(i64, slot, offsetof(GlobalSite, base));
  Value *limit =
      site_(i32, slot, size == 4 ? offsetof(GlobalSite, granules4) : offsetof(GlobalSite, granules8));
  Value *pointer = b.CreateAddrSpaceCast(a.ptr, p0);
  auto [ok, g] = granuleOf(b, pointer, base, limit);
  Value *bitsAt = nullptr, *mask = nullptr, *allWritten = nullptr;
  if (init) {
    Value *written = site_(p0, slot, offsetof(GlobalSite, written));
    Value *has = b.CreateICmpNE(written, ConstantPointerNull::get(p0));
    Value *index = b.CreateLShr(g, 4);
    Value *inBitmap = b.CreateInBoundsGEP(i64, written, index);
    Value *none = b.CreateConstInBoundsGEP1_64(i8, fast, offsetof(SanitizerFastPath, allWritten));
    bitsAt = b.CreateSelect(has, inBitmap, none);
    LoadInst *bits = b.CreateLoad(i64, bitsAt, "san.written");
    atomic(bits, 8);
    scopes.shadow(bits);
    Value *nibble = b.CreateAnd(g, 15);
    Value *shift = b.CreateShl(nibble, 2);
    mask = b.CreateShl(b.getInt64((uint64_t(1) << size) - 1), shift);
    Value *have = b.CreateAnd(bits, mask);
    allWritten = b.CreateICmpEQ(have, mask);
    if (size > 4) { // (the bytes' bits in one bitmap word)
      Value *within = b.CreateICmpULT(nibble, b.getInt64(15));
      ok = b.CreateAnd(ok, within);
    }
    if (!writes)
      ok = b.CreateAnd(ok, allWritten);
  }
  // The words of the access's 4-byte granules: what they hold, what this thread makes them.
  struct Word {
    Value *at, *word, *skip, *next;
  };
  std::vector<Word> granules;
  if (race) {
    Value *words = site_(p0, slot, offsetof(GlobalSite, words));
    Value *start = state.load(i32, fast, offsetof(SanitizerFastPath, intervalStart));
    CheckState::Thread me = state.thread(fast);
    ok = b.CreateAnd(ok, me.keepsWords);
    Value *start64 = b.CreateZExt(start, i64);
    for (uint64_t k = 0; k < size / 4; ++k) {
      Value *index = b.CreateAdd(g, b.getInt64(k));
      Value *at = b.CreateInBoundsGEP(i64, words, index);
      LoadInst *word = b.CreateLoad(i64, at, "san.word");
      atomic(word, 8);
      scopes.shadow(word);
      Value *wordStamp = b.CreateAnd(word, kWordStamp);
      Value *stale = b.CreateICmpULT(wordStamp, start64, "san.stale"); // (before the interval)
      // (one reader only: the second's test costs a vector add a tenth more, register pressure)
      WordStep step =
          wordStep(b, word, stale, me.me, me.stamp64, me.tid64, site, writes, /*twoReaders=*/false);
      ok = b.CreateAnd(ok, step.good);
      granules.push_back({at, word, step.skip, step.next});
    }
  }
  // The call, as for any access.
  uint32_t bits = a.bits | (value ? kAccessValueKnown : 0);
  auto call = [&](IRBuilder<> &cb, Value *accessBits) {
    cb.CreateCall(check, {ctx, pointer, b.getInt64(size), accessBits, b.getInt32(site),
                          value ? value : b.getInt64(0)})
        ->setDebugLoc(inst->getDebugLoc());
  };
  // This thread takes the words: it goes to `failed` where another thread came first.
  auto take = [&](BasicBlock *from, BasicBlock *failed, BasicBlock *done, AtomicOrdering order) {
    BasicBlock *here = from;
    for (size_t k = 0; k < granules.size(); ++k) {
      Function *f = inst->getFunction();
      BasicBlock *swap = BasicBlock::Create(c, "san.take", f, done);
      BasicBlock *next = k + 1 < granules.size() ? BasicBlock::Create(c, "san.next", f, done) : done;
      IRBuilder<> hb(here);
      hb.CreateCondBr(granules[k].skip, next, swap);
      IRBuilder<> sb(swap);
      AtomicCmpXchgInst *pair = sb.CreateAtomicCmpXchg(granules[k].at, granules[k].word, granules[k].next,
                                                       MaybeAlign(8), order, AtomicOrdering::Monotonic);
      scopes.shadow(pair);
      sb.CreateCondBr(sb.CreateExtractValue(pair, 1), next, failed);
      here = next;
    }
    if (granules.empty())
      IRBuilder<>(from).CreateBr(done);
  };
  BasicBlock *head = inst->getParent();
  BasicBlock *rest = head->splitBasicBlock(inst, "san.access"); // begins with the access
  head->getTerminator()->eraseFromParent();
  Function *f = head->getParent();
  BasicBlock *quick = BasicBlock::Create(c, "san.quick", f, rest);
  BasicBlock *slow = BasicBlock::Create(c, "san.call", f, rest);
  IRBuilder<>(head).CreateCondBr(ok, quick, slow);
  IRBuilder<> sb(slow);
  call(sb, b.getInt32(bits));
  sb.CreateBr(rest);
  if (!writes) {                                      // take the words, then read
    take(quick, slow, rest, AtomicOrdering::Release); // (the word names a stamp: StampTable)
    return;
  }
  // A store: mark its bytes written, remember what memory held, store, take the words.
  IRBuilder<> qb(quick);
  if (init) {
    BasicBlock *mark = BasicBlock::Create(c, "san.mark", f, rest);
    BasicBlock *marked = BasicBlock::Create(c, "san.marked", f, rest);
    qb.CreateCondBr(allWritten, marked, mark);
    IRBuilder<> mb(mark);
    scopes.shadow(
        mb.CreateAtomicRMW(AtomicRMWInst::Or, bitsAt, mask, MaybeAlign(8), AtomicOrdering::Monotonic));
    mb.CreateBr(marked);
    qb.SetInsertPoint(marked);
  }
  Value *before = nullptr;
  if (race && value) {
    LoadInst *held = qb.CreateLoad(b.getIntNTy(unsigned(size * 8)), a.ptr);
    held->setAlignment(Align(4)); // (all the inline check knows of it)
    scopes.data(held);
    before = qb.CreateZExt(held, i64);
  }
  BasicBlock *quickEnd = qb.GetInsertBlock();
  qb.CreateBr(rest);
  if (!race)
    return;
  IRBuilder<> rb(&*rest->getFirstInsertionPt());
  PHINode *quickly = rb.CreatePHI(b.getInt1Ty(), 2, "san.quickly");
  quickly->addIncoming(b.getTrue(), quickEnd);
  quickly->addIncoming(b.getFalse(), slow);
  PHINode *held = nullptr;
  if (before) {
    held = rb.CreatePHI(i64, 2, "san.before");
    held->addIncoming(before, quickEnd);
    held->addIncoming(b.getInt64(0), slow);
  }
  BasicBlock *after = rest->splitBasicBlock(inst->getNextNode(), "san.stored");
  rest->getTerminator()->eraseFromParent();
  BasicBlock *record = BasicBlock::Create(c, "san.record", f, after);
  BasicBlock *late = BasicBlock::Create(c, "san.late", f, after);
  IRBuilder<>(rest).CreateCondBr(quickly, record, after);
  take(record, late, after, AtomicOrdering::Release);
  IRBuilder<> lb(late);
  Value *lateBits = lb.getInt32(bits | kAccessAfterStore);
  if (held) {
    Value *unchanged = lb.CreateICmpEQ(held, value);
    lateBits = lb.CreateSelect(unchanged, lb.getInt32(bits | kAccessAfterStore | kAccessUnchanged), lateBits);
  }
  call(lb, lateBits);
  lb.CreateBr(after);
}

/// Which inline check an access gets: aligned 4- and 8-byte plain loads and stores of global
/// memory (stores whose bits are known), aligned 4-byte plain loads and stores of shared memory.
enum class InlineCheck { None, Global, Shared };
InlineCheck inlineCheckOf(const Access &a, const DataLayout &dl) {
  auto *size = dyn_cast<ConstantInt>(a.size);
  uint32_t what = a.bits & (kAccessRead | kAccessWrite | kAccessAtomic | kAccessCopy | kAccessFence);
  auto space = AccessSpace(a.bits >> kAccessSpaceShift);
  if (!size)
    return InlineCheck::None;
  uint64_t n = size->getZExtValue();
  if (space == AccessSpace::Global && (n == 4 || n == 8) &&
      ((what == kAccessRead && isa<LoadInst>(a.at)) ||
       (what == kAccessWrite && isa<StoreInst>(a.at) && storedBitsFit(a.value->getType(), dl))))
    return InlineCheck::Global;
  if (space == AccessSpace::Shared && n == 4 &&
      ((what == kAccessRead && isa<LoadInst>(a.at)) || (what == kAccessWrite && isa<StoreInst>(a.at))))
    return InlineCheck::Shared;
  return InlineCheck::None;
}
/// Inline checks a kernel function may have at most (sanitizer builds of generated kernels).
constexpr size_t kInlineChecks = 256;

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
  Function *fenced = declareHostCallback(m, HostCallback::SanitizeFence);
  SanitizerScopes scopes(c);
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
    // Inline checks make a kernel's code several times larger: past a budget (generated
    // kernels of thousands of accesses, which the optimiser would take minutes over), every
    // access calls.
    std::vector<InlineCheck> inlineChecks;
    for (const Access &a : accesses)
      inlineChecks.push_back(inlineCheckOf(a, dl));
    auto inlined = std::count_if(inlineChecks.begin(), inlineChecks.end(),
                                 [](InlineCheck k) { return k != InlineCheck::None; });
    bool inlining = size_t(inlined) <= kInlineChecks;
    for (size_t i = 0; i < accesses.size(); ++i) {
      Access &a = accesses[i];
      IRBuilder<> b(a.at);
      if (a.bits & kAccessFence) {
        b.CreateCall(fenced, {ctx, b.getInt32(siteId(a.at->getDebugLoc().get()))})
            ->setDebugLoc(a.at->getDebugLoc());
        continue;
      }
      InlineCheck inline_ = inlining ? inlineChecks[i] : InlineCheck::None;
      if (inline_ == InlineCheck::Global) {
        uint32_t id = siteId(a.at->getDebugLoc().get());
        Value *value = a.value ? storedBits(b, a.value, dl) : nullptr;
        if (id < kWordSites) {
          instrumentGlobalAccess(a, ctx, checks, id, check, value, scopes);
          continue;
        }
      }
      if (inline_ == InlineCheck::Shared) {
        uint32_t id = siteId(a.at->getDebugLoc().get());
        if (id < kWordSites) {
          instrumentSharedAccess(a, ctx, checks, id, check, a.value ? storedBits(b, a.value, dl) : nullptr,
                                 scopes);
          continue;
        }
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
