#include "backend_sim/sanitizer.h"

#include "backend_sim/debug_stops.h"
#include "backend_sim/fiber.h"
#include "backend_sim/host_callbacks.h"
#include "backend_sim/kernel_faults.h"
#include "cutwin/errors.h"
#include "frontend/ir/sanitize_checks.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace cutwin::sim {

namespace {

/// Which of granule `g`'s 4 bytes an access of bytes [offset, end) touches.
uint8_t granuleBytes(uint64_t g, uint64_t offset, uint64_t end) {
  uint8_t bytes = 0;
  for (uint64_t b = std::max(g * 4, offset); b < std::min(g * 4 + 4, end); ++b)
    bytes |= uint8_t(1u << (b % 4));
  return bytes;
}

const AccessSite &siteOf(const SanitizerProgram &p, uint32_t site) {
  static const AccessSite unknown;
  return site < p.sites.size() ? p.sites[site] : unknown;
}

/// "[3]" or "[2, 5]": the element at byte `offset` of a C-ordered array of `dims`.
std::string elementIndex(uint64_t offset, uint64_t itemSize, const std::vector<uint64_t> &dims) {
  uint64_t linear = offset / std::max<uint64_t>(itemSize, 1);
  std::vector<uint64_t> idx(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    uint64_t n = std::max<uint64_t>(dims[d], 1);
    idx[d] = linear % n;
    linear /= n;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

/// Whether the `size` (at most 8) bytes at `p` are `value`'s low bytes.
bool holds(const void *p, uint64_t value, uint64_t size) {
  switch (size) {
  case 1: return *static_cast<const uint8_t *>(p) == uint8_t(value);
  case 2: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v == uint16_t(value);
  }
  case 4: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v == uint32_t(value);
  }
  case 8: {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v == value;
  }
  }
  return std::memcmp(p, &value, size) == 0;
}

const char *verb(uint32_t access) {
  if (access & kAccessAtomic)
    return access & kAccessWrite ? "atomic update" : "atomic read";
  return access & kAccessWrite ? "write" : "read";
}

} // namespace

uint32_t StoreValue::inGranule(uint64_t g) const {
  uint32_t v = 0;
  for (uint64_t b = std::max(g * 4, offset); b < std::min(g * 4 + 4, offset + size); ++b)
    v |= uint32_t(bits >> 8 * (b - offset) & 0xff) << 8 * (b % 4);
  return v;
}

StampTable::~StampTable() {
  for (std::atomic<std::atomic<uint64_t> *> &chunk : chunks_)
    delete[] chunk.load(std::memory_order_relaxed);
}

void StampTable::set(uint32_t stamp, uint32_t block, uint32_t epoch) {
  std::atomic<std::atomic<uint64_t> *> &slot = chunks_[stamp >> kChunkBits];
  std::atomic<uint64_t> *chunk = slot.load(std::memory_order_acquire);
  if (!chunk) {
    auto *fresh = new std::atomic<uint64_t>[size_t(1) << kChunkBits]();
    if (slot.compare_exchange_strong(chunk, fresh, std::memory_order_acq_rel))
      chunk = fresh;
    else
      delete[] fresh; // (another block made it: `chunk` is that one)
  }
  chunk[stamp & ((1u << kChunkBits) - 1)].store(uint64_t(block) << 32 | epoch, std::memory_order_release);
}

StampTable::Entry StampTable::at(uint32_t stamp) const {
  std::atomic<uint64_t> *chunk = chunks_[stamp >> kChunkBits].load(std::memory_order_acquire);
  if (!chunk)
    return {};
  uint64_t e = chunk[stamp & ((1u << kChunkBits) - 1)].load(std::memory_order_acquire);
  return {uint32_t(e >> 32), uint32_t(e)};
}

struct SanitizerBlock::Me {
  const ThreadContext &tc;
  uint64_t thread;    ///< in the grid
  uint32_t tid;       ///< in the block
  const uint32_t *vc; ///< the lane clocks of its warp as it knows them (null: its warp never synced)
};

SanitizerLaunch::SanitizerLaunch(const SanitizerProgram &p, MemoryShadow &m, const uint32_t grid[3],
                                 const uint32_t block[3], const void *args, unsigned seed)
    : program(p), memory(m), serial_([] {
        static std::atomic<uint64_t> launches{0};
        return launches.fetch_add(1, std::memory_order_relaxed) + 1;
      }()),
      args_(args), seed_(seed) {
  memory.launchBegins(); // (stamps may start again: the interval's comes after)
  interval_.store(memory.nextInterval(), std::memory_order_relaxed);
  wordStart_.store(memory.nextStamps(1), std::memory_order_relaxed);
  std::copy(grid, grid + 3, grid_);
  std::copy(block, block + 3, block_);
  threadsPerBlock_ = uint64_t(block[0]) * block[1] * block[2];
}

SanitizerLaunch::~SanitizerLaunch() { memory.launchEnds(); }

void SanitizerLaunch::gridSynced() {
  interval_.store(memory.nextInterval(), std::memory_order_relaxed);
  // (none left: words are not kept from here on, blocks' stamps are 0 and their checks call)
  wordStart_.store(memory.nextStamps(1), std::memory_order_relaxed);
}

void SanitizerLaunch::finish(ir::ErrorRecord *err) {
  std::lock_guard<std::mutex> lock(reportMu_);
  if (!suspect_ || err->flag != 0 || report_)
    return;
  const UnwrittenRead &s = *suspect_;
  report_ = SanitizerReport{siteOf(program, s.site), s.detail};
  recordError(err, s.tid, s.ctaid, uint32_t(KernelErrorKind::UninitializedRead), UINT32_MAX,
              int64_t(report_->where.line), int64_t(s.site), 0);
}

void SanitizerBlock::begin(SanitizerLaunch &launch, const ThreadContext &base, uint64_t blockLinear,
                           uint64_t sharedBytes) {
  launch_ = &launch;
  std::fill(std::begin(lastAllocations_), std::end(lastAllocations_), nullptr);
  blockLinear_ = blockLinear;
  threads_ = base.ntid[0] * base.ntid[1] * base.ntid[2];
  sharedBase_ = base.shared;
  sharedBytes_ = sharedBytes;
  staticSharedBytes_ = launch.program.staticSharedBytes;
  fast_.blockStart = epoch_ = blockStart_ = ++epochs_;
  fast_.callingWarps = 0;
  uint64_t granules = std::max<uint64_t>((sharedBytes_ + 3) / 4, 1);
  if (sharedCells_.size() < granules)
    sharedCells_.resize(granules);
  if (sharedWritten_.size() < sharedBytes_)
    sharedWritten_.resize(sharedBytes_);
  // (stale written marks need no clearing: epochs are never handed out twice)
  if (writtenGranules_.size() < granules)
    writtenGranules_.resize(granules);
  if (sharedWords_.size() < granules)
    sharedWords_.resize(granules);
  if (serial_ != launch.serial_) { // a new launch: its sites have touched nothing yet
    serial_ = launch.serial_;
    sites_.assign(launch.program.sites.size(), GlobalSite{0, fast_.noWords, nullptr, 0, 0});
    fast_.sites = sites_.data();
    // (stamps may have started again since the last: older words could look current)
    std::fill(sharedWords_.begin(), sharedWords_.end(), 0);
  }
  newStamp();
  fast_.sharedWords = sharedWords_.data();
  fast_.sharedWritten = writtenGranules_.data();
  fast_.granules = uint32_t(sharedBytes_ / 4);
  // A warp's clocks are made at its first *_sync operation; until then each lane knows only
  // its own (at 1), and nothing orders its lanes but barriers.
  warpClocks_.assign((threads_ + 31) / 32, 0);
  if (clocks_.size() < size_t(threads_) * 32)
    clocks_.resize(size_t(threads_) * 32);
  if (locals_.size() < threads_)
    locals_.resize(threads_);
  for (uint32_t t : localThreads_)
    locals_[t].clear();
  localThreads_.clear();
}

void SanitizerBlock::newStamp() {
  // Stamps come in batches (blocks of all cores would take each from one counter), each
  // batch from this launch's current interval on (a stamp older than it would make stale words).
  uint32_t start = launch_->wordStart_.load(std::memory_order_relaxed);
  if (nextStamp_ == lastStamp_ || nextStamp_ <= start || stampsOf_ != launch_->serial_) {
    nextStamp_ = start ? launch_->memory.nextStamps(kStampBatch) : 0;
    lastStamp_ = nextStamp_ ? nextStamp_ + kStampBatch : 0;
    stampsOf_ = launch_->serial_;
  }
  fast_.intervalStart = start;
  if (!nextStamp_) { // no stamps left: no words, every global check calls
    fast_.stamp = stamp_ = 0;
    fast_.callingWarps = ~0u;
    return;
  }
  fast_.stamp = stamp_ = nextStamp_++;
  launch_->stamps_.set(stamp_, uint32_t(blockLinear_), epoch_);
}

void SanitizerBlock::barrier() {
  epoch_ = ++epochs_;
  newStamp();
}

void SanitizerBlock::warpSynced(uint32_t first, uint32_t group) {
  // Compact words record no clocks: the warp's accesses call from now on.
  fast_.callingWarps |= 1u << (first / 32);
  if (!warpClocks_[first / 32]) {
    warpClocks_[first / 32] = 1;
    for (uint32_t t = first; t < std::min(first + 32, threads_); ++t) {
      std::fill_n(&clocks_[size_t(t) * 32], 32, 0u);
      clocks_[size_t(t) * 32 + t % 32] = 1;
    }
  }
  uint32_t joined[32] = {};
  for (uint32_t l = 0; l < 32; ++l)
    if (group >> l & 1u)
      for (uint32_t k = 0; k < 32; ++k)
        joined[k] = std::max(joined[k], clocks_[size_t(first + l) * 32 + k]);
  for (uint32_t l = 0; l < 32; ++l)
    if (group >> l & 1u) {
      std::copy(joined, joined + 32, &clocks_[size_t(first + l) * 32]);
      clocks_[size_t(first + l) * 32 + l] = joined[l] + 1;
    }
}

uint32_t SanitizerBlock::fencesOf(uint64_t thread) {
  std::lock_guard<std::mutex> lock(launch_->fenceMu_);
  auto it = launch_->fences_.find(thread);
  return it == launch_->fences_.end() ? 0 : it->second;
}

bool SanitizerBlock::ordered(const AccessRecord &r, const Me &me) {
  if (r.thread == uint32_t(me.thread))
    return true;
  uint64_t tpb = launch_->threadsPerBlock_;
  if (r.thread / tpb == me.thread / tpb) { // one block
    if (r.epoch != epoch_)
      return true; // a barrier between them
    uint32_t t = uint32_t(r.thread % tpb);
    if (t / 32 == me.tid / 32 && me.vc && r.clock <= me.vc[t % 32])
      return true; // lanes of one warp, a *_sync operation of both between them
  }
  // the threadfence idiom: the other thread fenced after its access, this one since
  if (launch_->anyFence_.load(std::memory_order_relaxed) &&
      (fencesOf(r.thread) > r.fences || r.fences == UINT16_MAX) && fencesOf(me.thread) > 0)
    return true;
  return false;
}

bool SanitizerBlock::cell(const Me &me, RaceCell &c, uint32_t tag, uint64_t g, uint8_t bytes, uint32_t access,
                          uint32_t site, const StoreValue *stored, const void *at) {
  if (c.tag != tag) // a stale cell
    c.clear(tag);
  bool writes = access & kAccessWrite, atomic = access & kAccessAtomic;
  auto conflicts = [&](const AccessRecord &r) {
    return r.site && (r.bytes & bytes) && !(r.atomic && atomic) && !ordered(r, me);
  };
  // Two plain writes of one value (a flag every thread may set) are benign; so is a write
  // that leaves memory as it was, for the reads it races with.
  uint32_t value = stored ? stored->inGranule(g) : 0;
  bool sameValue = stored && c.write.valueKnown && c.value == value && c.write.bytes == bytes;
  if (conflicts(c.write) && !(writes && sameValue && !atomic && !c.write.atomic))
    return raceFound(me, c.write, access, site, at);
  if (writes)
    for (const AccessRecord &r : c.read)
      if (conflicts(r) && !(stored && stored->unchanged && !atomic))
        return raceFound(me, r, access, site, at);
  AccessRecord mine;
  mine.thread = uint32_t(me.thread);
  mine.site = site + 1;
  mine.clock = me.vc ? me.vc[me.tid % 32] : 1;
  mine.epoch = epoch_;
  mine.fences = launch_->anyFence_.load(std::memory_order_relaxed)
                    ? uint16_t(std::min<uint32_t>(fencesOf(me.thread), UINT16_MAX))
                    : 0;
  mine.bytes = bytes;
  mine.atomic = atomic;
  mine.write = writes;
  mine.valueKnown = stored != nullptr;
  if (writes) {
    c.write = mine;
    c.value = value;
    return true;
  }
  for (AccessRecord &r : c.read)
    if (!r.site || r.thread == uint32_t(me.thread)) {
      if (r.site && r.epoch == epoch_)
        mine.bytes |= r.bytes;
      r = mine;
      return true;
    }
  // Two other threads' reads are enough to name one that races with a later write; this one
  // is kept only to have readers of two blocks (a write after a barrier of one block races
  // with the other's). Otherwise the cell, read by every core, stays unwritten.
  uint64_t tpb = launch_->threadsPerBlock_;
  if (c.read[0].thread / tpb == c.read[1].thread / tpb && me.thread / tpb != c.read[0].thread / tpb)
    c.read[1] = mine;
  return true;
}

bool SanitizerBlock::shared(const Me &me, uint64_t offset, uint64_t size, uint32_t access, uint32_t site,
                            const StoreValue *stored) {
  uint64_t end = std::min(offset + size, sharedBytes_);
  const uint8_t *at = sharedBase_ + offset;
  if ((launch_->program.checks & ir::kSanitizeInit) && end > offset) {
    if ((access & kAccessRead) && !(access & kAccessCopy))
      for (uint64_t i = offset; i < end; ++i) // (an inline check's write marks its granule only)
        if (sharedWritten_[i] != blockStart_ && writtenGranules_[i / 4] != blockStart_) {
          if (!unwrittenRead(me, at, size, site, "shared memory is undefined when a block starts", true))
            return false;
          break; // (held until the launch ends; the read still takes part in the race checks)
        }
    if (access & kAccessWrite) {
      std::fill(sharedWritten_.begin() + offset, sharedWritten_.begin() + end, blockStart_);
      for (uint64_t g = offset / 4; g * 4 + 4 <= sharedBytes_ && g * 4 < end; ++g)
        if (std::all_of(&sharedWritten_[g * 4], &sharedWritten_[g * 4 + 4],
                        [&](uint32_t t) { return t == blockStart_; }))
          writtenGranules_[g] = blockStart_;
    }
  }
  std::optional<StoreValue> here;
  if (stored)
    here.emplace(*stored).offset = offset;
  if (launch_->program.checks & ir::kSanitizeRace)
    for (uint64_t g = offset / 4; g * 4 < end; ++g) {
      RaceCell &c = sharedCells_[g];
      uint64_t &word = sharedWords_[g];
      if (stamp_ && word != (kWordFull | stamp_)) { // the cell is stale: the word says what there is
        c.clear(epoch_);
        if ((word & kWordStamp) == stamp_)
          fromWord(c, word, sharedBase_ + g * 4, nullptr, g);
        word = kWordFull | stamp_;
      }
      if (!cell(me, c, epoch_, g, granuleBytes(g, offset, end), access, site, here ? &*here : nullptr,
                sharedBase_ + g * 4))
        return false;
    }
  return true;
}

bool SanitizerBlock::global(const Me &me, const void *address, uint64_t size, uint32_t access, uint32_t site,
                            const StoreValue *stored) {
  MemoryShadow &mem = launch_->memory;
  auto at = reinterpret_cast<uintptr_t>(address);
  uint64_t releases = mem.releases();
  if (releases != lastReleases_) { // an allocation went away: forget those remembered
    lastReleases_ = releases;
    std::fill(std::begin(lastAllocations_), std::end(lastAllocations_), nullptr);
  }
  MemoryShadow::Allocation *a = nullptr;
  for (MemoryShadow::Allocation *r : lastAllocations_)
    if (r && at >= r->base && at < r->base + r->bytes) {
      a = r;
      break;
    }
  if (!a && (a = mem.find(address))) {
    std::copy_backward(std::begin(lastAllocations_), std::end(lastAllocations_) - 1,
                       std::end(lastAllocations_));
    lastAllocations_[0] = a;
  }
  if (!a)
    return true; // not device memory the simulator allocated (host memory, foreign memory)
  const SanitizerProgram &prog = launch_->program;
  bool race = (prog.checks & ir::kSanitizeRace) && mem.raceState(*a);
  if (site < sites_.size()) { // the site's inline checks take this allocation from now on
    // (race checks without words, where the system had no memory for them: no granules, it calls)
    bool inline_ = race || !(prog.checks & ir::kSanitizeRace);
    sites_[site] = {
        a->base, race ? reinterpret_cast<uint64_t *>(a->words) : fast_.noWords,
        (prog.checks & ir::kSanitizeInit) && !prog.foreignCode ? mem.writtenBits(*a) : nullptr,
        inline_ ? uint32_t(std::min<uint64_t>(a->bytes / 4, UINT32_MAX)) : 0,
        inline_ ? uint32_t(std::min<uint64_t>(a->bytes >= 8 ? (a->bytes - 8) / 4 + 1 : 0, UINT32_MAX)) : 0};
  }
  if (launch_->program.checks & ir::kSanitizeInit) {
    if ((access & kAccessRead) && !(access & kAccessCopy) && !launch_->program.foreignCode &&
        !mem.isWritten(*a, address, size) &&
        !unwrittenRead(me, address, size, site,
                       "device memory is undefined until something writes it: cuda.device_array() and "
                       "device_array_like() do not initialise it",
                       true))
      return false;
    if (access & kAccessWrite)
      mem.writtenIn(*a, address, size);
  }
  if (!race)
    return true; // (or no memory for the race state: races in this allocation go unchecked)
  uint32_t tag = launch_->interval_.load(std::memory_order_relaxed);
  uint32_t start = launch_->wordStart_.load(std::memory_order_relaxed);
  uint64_t offset = reinterpret_cast<uintptr_t>(address) - a->base, end = std::min(offset + size, a->bytes);
  std::optional<StoreValue> here;
  if (stored)
    here.emplace(*stored).offset = offset;
  for (uint64_t g = offset / 4; g * 4 < end; ++g) {
    std::lock_guard<MemoryShadow::SpinLock> lock(mem.stripe(*a, g));
    RaceCell &c = a->cells[g];
    auto *at = reinterpret_cast<const void *>(a->base + g * 4);
    // The word's records go to the cell (and the word says so) unless they are there already.
    // (A compare-and-swap: an inline check may take the word meanwhile; then again.)
    uint64_t word = a->words[g].load(std::memory_order_acquire);
    while (start && ((word & kWordStamp) < start || !(word & kWordFull))) {
      c.clear(tag);
      if ((word & kWordStamp) >= start)
        fromWord(c, word, at, access & kAccessAfterStore && here ? &*here : nullptr, g);
      if (a->words[g].compare_exchange_weak(word, kWordFull | start, std::memory_order_acq_rel))
        break;
    }
    if (!cell(me, c, tag, g, granuleBytes(g, offset, end), access, site, here ? &*here : nullptr, at))
      return false;
  }
  return true;
}

void SanitizerBlock::fromWord(RaceCell &c, uint64_t word, const void *at, const StoreValue *late,
                              uint64_t g) {
  StampTable::Entry e = launch_->stamps_.at(uint32_t(word & kWordStamp));
  if (!e.epoch)
    return; // (a stamp of another launch running at once: not this launch's memory to judge)
  AccessRecord r;
  r.thread = uint32_t(e.block * launch_->threadsPerBlock_ + (word >> kWordTidShift & kWordTid));
  r.site = uint32_t(word >> kWordSiteShift);
  r.bytes = 0xf;
  r.epoch = e.epoch;
  r.clock = 1; // (words are kept for warps without lane clocks and threads that never fenced)
  if (word & kWordWrite) {
    c.write = r;
    c.write.write = 1;
    // The bytes are what the write left (an inline check updates the word after its store)
    // unless this call follows a store of its own that came in between: where memory holds
    // that store's bits, the write's were those the store found if it found its own
    // (`unchanged`), else other ones.
    c.value = __atomic_load_n(static_cast<const uint32_t *>(at), __ATOMIC_RELAXED);
    c.write.valueKnown = !(late && c.value == late->inGranule(g) && !late->unchanged);
  }
  if (word & kWordRead)
    c.read[0] = r;
  if (word & kWordTwoReads) { // (a second reader at the same site)
    c.read[1] = r;
    c.read[1].thread = uint32_t(e.block * launch_->threadsPerBlock_ + (word >> kWordReaderShift & kWordTid));
  }
}

bool SanitizerBlock::local(const Me &me, const void *address, uint64_t size, uint32_t access, uint32_t site) {
  auto at = reinterpret_cast<uintptr_t>(address);
  for (LocalArray &l : locals_[me.tid])
    if (l.holds(at)) {
      uint64_t from = at - l.base, end = std::min<uint64_t>(from + size, l.written.size());
      if ((access & kAccessRead) && !(access & kAccessCopy) &&
          std::find(l.written.begin() + from, l.written.begin() + end, 0) != l.written.begin() + end)
        return unwrittenRead(me, address, size, site,
                             "a local array is undefined each time its function begins", false);
      if (access & kAccessWrite)
        std::fill(l.written.begin() + from, l.written.begin() + end, 1);
      return true;
    }
  return true;
}

void SanitizerBlock::localArray(const ThreadContext &tc, const void *address, uint64_t size,
                                uint64_t itemSize) {
  auto tid = uint32_t(linearOfIndex(tc.tid, tc.ntid));
  auto base = reinterpret_cast<uintptr_t>(address);
  std::vector<LocalArray> &mine = locals_[tid];
  if (mine.empty())
    localThreads_.push_back(tid);
  for (LocalArray &l : mine)
    if (base < l.base + l.written.size() && l.base < base + size) { // the same frame again
      l.base = base;
      l.itemSize = itemSize;
      l.written.assign(size, 0);
      return;
    }
  mine.push_back({base, itemSize, std::vector<uint8_t>(size, 0)});
}

bool SanitizerBlock::access(const ThreadContext &tc, const void *address, uint64_t size, uint32_t access,
                            uint32_t site, uint64_t value) {
  auto tid = uint32_t(linearOfIndex(tc.tid, tc.ntid));
  Me me{tc, blockLinear_ * launch_->threadsPerBlock_ + tid, tid,
        warpClocks_[tid / 32] ? &clocks_[size_t(tid) * 32] : nullptr};
  if (access & kAccessFence) {
    std::lock_guard<std::mutex> lock(launch_->fenceMu_);
    ++launch_->fences_[me.thread];
    launch_->anyFence_.store(true, std::memory_order_relaxed);
    fast_.callingWarps |= 1u << (tid / 32); // (compact words record no fences)
    return true;
  }
  if (size == 0)
    return true;
  bool valueKnown = (access & kAccessValueKnown) && size <= 8;
  bool unchanged = valueKnown && (access & kAccessAfterStore ? (access & kAccessUnchanged) != 0
                                                             : holds(address, value, size));
  StoreValue known{value, 0, uint8_t(size), unchanged};
  const StoreValue *stored = valueKnown ? &known : nullptr;
  auto space = AccessSpace((access >> kAccessSpaceShift) & 3);
  auto at = reinterpret_cast<uintptr_t>(address), sharedAt = reinterpret_cast<uintptr_t>(sharedBase_);
  if (space == AccessSpace::Unknown) { // a generic pointer: where does it point?
    if (at >= sharedAt && at < sharedAt + sharedBytes_)
      space = AccessSpace::Shared;
    else if (std::any_of(locals_[tid].begin(), locals_[tid].end(),
                         [&](const LocalArray &l) { return l.holds(at); }))
      space = AccessSpace::Local;
    else
      space = AccessSpace::Global;
  }
  if ((launch_->program.checks & ir::kSanitizeSharedOnly) && space != AccessSpace::Shared)
    return true;
  switch (space) {
  case AccessSpace::Shared: return shared(me, at - sharedAt, size, access, site, stored);
  case AccessSpace::Global: return global(me, address, size, access, site, stored);
  case AccessSpace::Local: return local(me, address, size, access, site);
  case AccessSpace::Unknown: break;
  }
  return true;
}

std::string SanitizerBlock::whatIsAt(const void *at, uint32_t tid) const {
  auto p = reinterpret_cast<uintptr_t>(at), shared = reinterpret_cast<uintptr_t>(sharedBase_);
  for (const LocalArray &l : locals_[tid])
    if (l.holds(p))
      return "local memory: element " +
             elementIndex(p - l.base, l.itemSize, {l.written.size() / l.itemSize}) +
             " of a local array of this thread";
  const SanitizerProgram &prog = launch_->program;
  if (p >= shared && p < shared + sharedBytes_) {
    uint64_t off = p - shared;
    for (const SharedArrayInfo &a : prog.sharedArrays)
      if (off >= a.offset && off < a.offset + a.bytes && a.line)
        return "shared memory: element " + elementIndex(off - a.offset, a.itemSize, a.dims) +
               " of the shared array of line " + std::to_string(a.line);
    return "shared memory at byte " + std::to_string(off) + " of the block's (" +
           (off >= staticSharedBytes_ ? "its dynamic shared memory"
                                      : "a counter of syncthreads_count() or the like") +
           ")";
  }
  // an element of a kernel argument?
  const auto *args = static_cast<const uint8_t *>(launch_->args_);
  const ir::ArgLayout &layout = prog.layout;
  for (size_t i = 0; i < layout.slots.size(); ++i) {
    const ir::ParamSlot &s = layout.slots[i];
    if (s.role != ir::ParamSlot::Role::Data || !s.path.empty() || s.arg >= prog.argTypes.size())
      continue;
    const fe::Type &t = prog.argTypes[s.arg];
    uintptr_t data;
    std::memcpy(&data, args + s.offset, sizeof data);
    unsigned nd = t.ndim;
    std::vector<int64_t> shape(nd), strides(nd);
    for (size_t j = i + 1; j < layout.slots.size() && layout.slots[j].arg == s.arg; ++j) {
      const ir::ParamSlot &d = layout.slots[j];
      if (d.role == ir::ParamSlot::Role::Shape && d.dim < nd)
        std::memcpy(&shape[d.dim], args + d.offset, 8);
      else if (d.role == ir::ParamSlot::Role::Stride && d.dim < nd)
        std::memcpy(&strides[d.dim], args + d.offset, 8);
    }
    int64_t lo = 0, hi = int64_t(t.itemSize());
    for (unsigned d = 0; d < nd; ++d) {
      if (shape[d] <= 0) {
        hi = 0;
        break;
      }
      (strides[d] < 0 ? lo : hi) += strides[d] * (shape[d] - 1);
    }
    if (int64_t(p - data) < lo || int64_t(p - data) >= hi)
      continue;
    // the index: strides in decreasing order of size
    std::vector<unsigned> order(nd);
    for (unsigned d = 0; d < nd; ++d)
      order[d] = d;
    std::sort(order.begin(), order.end(),
              [&](unsigned a, unsigned b) { return std::abs(strides[a]) > std::abs(strides[b]); });
    int64_t rest = int64_t(p - data);
    std::vector<int64_t> idx(nd);
    for (unsigned d : order)
      if (strides[d] != 0) {
        idx[d] = rest / strides[d];
        rest -= idx[d] * strides[d];
      }
    std::string name =
        s.arg < prog.argNames.size() ? prog.argNames[s.arg] : "argument " + std::to_string(s.arg);
    std::string text = "global memory: " + name + "[";
    for (unsigned d = 0; d < nd; ++d)
      text += (d ? ", " : "") + std::to_string(idx[d]);
    return text + "]";
  }
  std::ostringstream os;
  os << "global memory at 0x" << std::hex << p;
  return os.str();
}

void SanitizerBlock::record(const Me &me, KernelErrorKind kind, const std::string &detail, uint32_t site) {
  // The report and the error record under one lock: the first finding names its own
  // thread, block and line (a fault recorded first keeps the record, without a report).
  std::lock_guard<std::mutex> lock(launch_->reportMu_);
  if (launch_->report_)
    return;
  const AccessSite &where = siteOf(launch_->program, site);
  ir::ErrorRecord *err = me.tc.block->err;
  recordError(err, me.tc.tid, me.tc.ctaid, uint32_t(kind), UINT32_MAX, int64_t(where.line), int64_t(site), 0);
  if (err->kind == uint32_t(kind) && std::equal(me.tc.tid, me.tc.tid + 3, err->thread) &&
      std::equal(me.tc.ctaid, me.tc.ctaid + 3, err->block))
    launch_->report_ = SanitizerReport{where, detail};
}

bool SanitizerBlock::raceFound(const Me &me, const AccessRecord &other, uint32_t access, uint32_t site,
                               const void *at) {
  auto siteText = [&](uint32_t s) {
    const AccessSite &a = siteOf(launch_->program, s);
    return s >= launch_->program.sites.size() ? std::string("?") : a.file + ":" + std::to_string(a.line);
  };
  uint64_t tpb = launch_->threadsPerBlock_;
  uint64_t ot = other.thread % tpb, ob = other.thread / tpb;
  uint32_t otherTid[3], otherCtaid[3];
  indexOfLinear(ot, launch_->block_, otherTid);
  indexOfLinear(ob, launch_->grid_, otherCtaid);
  uint32_t otherAccess = (other.write ? kAccessWrite : kAccessRead) | (other.atomic ? kAccessAtomic : 0);
  const char *hazard =
      (access & kAccessWrite) ? (other.write ? "write after write" : "write after read") : "read after write";
  bool sameBlock = ob == blockLinear_;
  bool sameWarp = sameBlock && ot / 32 == me.tid / 32;
  std::string between = !sameBlock ? "the threads are in different blocks and no grid sync comes between them"
                        : sameWarp ? "no syncthreads() between them, nor a syncwarp() or *_sync operation of "
                                     "both lanes"
                                   : "no syncthreads() between them";
  std::string detail = std::string("data race (") + hazard + ") on " + whatIsAt(at, me.tid) + ":\n    " +
                       verb(access) + " by thread " + indexText(me.tc.tid) + " block " +
                       indexText(me.tc.ctaid) + " at " + siteText(site) + "\n    " + verb(otherAccess) +
                       " by thread " + indexText(otherTid) + " block " + indexText(otherCtaid) + " at " +
                       siteText(other.site - 1) + "\n    " + between +
                       " (simulator schedule: CUTWIN_SIM_SEED=" + std::to_string(launch_->seed_) + ")";
  record(me, KernelErrorKind::DataRace, detail, site);
  return false;
}

bool SanitizerBlock::unwrittenRead(const Me &me, const void *at, uint64_t size, uint32_t site,
                                   const char *why, bool deferred) {
  std::string detail = "read of uninitialised memory: " + whatIsAt(at, me.tid) + " (" + std::to_string(size) +
                       " bytes) was never written before this read (" + why + ")";
  if (deferred && (launch_->program.checks & ir::kSanitizeRace)) {
    std::lock_guard<std::mutex> lock(launch_->reportMu_);
    auto &s = launch_->suspect_;
    if (!s || blockLinear_ < s->block) { // (the lowest block's first: the same whatever ran first)
      s.emplace();
      s->block = blockLinear_;
      std::copy(me.tc.tid, me.tc.tid + 3, s->tid);
      std::copy(me.tc.ctaid, me.tc.ctaid + 3, s->ctaid);
      s->site = site;
      s->detail = detail;
    }
    return true;
  }
  record(me, KernelErrorKind::UninitializedRead, detail, site);
  return false;
}

} // namespace cutwin::sim

using cutwin::sim::ThreadContext;

extern "C" void cutwin_sim_sanitize_access(ThreadContext *tc, const void *address, uint64_t size,
                                           uint32_t access, uint32_t site, uint64_t value) {
  cutwin::sim::SanitizerBlock *s = tc->block->sanitizer;
  if (!s || s->access(*tc, address, size, access, site, value))
    return;
  tc->block->abort->store(true, std::memory_order_relaxed);
  cutwin::sim::endFaultedThread(tc);
}

extern "C" void cutwin_sim_sanitize_fence(ThreadContext *tc, uint32_t site) {
  cutwin_sim_sanitize_access(tc, nullptr, 0, cutwin::sim::kAccessFence, site, 0);
}

extern "C" void cutwin_sim_sanitize_local_array(ThreadContext *tc, const void *address, uint64_t size,
                                                uint64_t itemSize) {
  if (cutwin::sim::SanitizerBlock *s = tc->block->sanitizer)
    s->localArray(*tc, address, size, itemSize);
}
