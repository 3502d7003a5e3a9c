#include "backend_sim/scheduler.h"

#include "backend_sim/breakpoints.h"
#include "backend_sim/debug_stops.h"
#include "backend_sim/fiber.h"
#include "backend_sim/fiber_stacks.h"
#include "backend_sim/gdb_view.h"
#include "backend_sim/kernel_faults.h"
#include "backend_sim/sanitizer.h"
#include "backend_sim/warp_ops.h"
#include "backend_sim/watchpoints.h"
#include "frontend/ir/intrinsics.h"

#include "cutwin/errors.h"

#include <boost/context/detail/fcontext.hpp>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace cutwin::sim {

namespace {

/// The thread frames of a block of a kernel split at its barriers (64-byte aligned).
class ThreadFrames {
public:
  uint8_t *reserve(uint64_t bytes) {
    if (bytes > bytes_) {
      uint64_t rounded = (bytes + 63) / 64 * 64;
      auto *p = static_cast<uint8_t *>(std::aligned_alloc(64, rounded));
      if (!p)
        throw std::bad_alloc();
      data_.reset(p);
      bytes_ = rounded;
    }
    return data_.get();
  }

private:
  struct Free {
    void operator()(uint8_t *p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> data_;
  uint64_t bytes_ = 0;
};

struct WorkerScratch {
  FiberStacks stacks; // reused from block to block
  std::vector<Fiber> fibers;
  std::vector<uint32_t> order;
  std::vector<uint8_t> shared;
  SanitizerBlock sanitizer;
  ThreadFrames frames;         // split kernels
  std::vector<uint32_t> state; // split kernels: where each thread stopped
  std::vector<WarpLane> lanes; // split kernels with warp operations
};

WorkerScratch &scratch() {
  thread_local WorkerScratch s;
  return s;
}

void fiberMain(bctx::transfer_t t) {
  auto *f = static_cast<Fiber *>(t.data);
  enteredFiber(f);
  f->sched = t.fctx;
  f->entry(&f->tc, f->args);
  f->state = Fiber::State::Done;
  leaveFiber(f);
}

/// The launch `e` records was stopped from outside: Ctrl-C or the watchdog.
bool stoppedFromOutside(const ir::ErrorRecord &e) {
  auto kind = KernelErrorKind(e.kind);
  return e.flag == 2 && (kind == KernelErrorKind::Interrupted || kind == KernelErrorKind::Timeout);
}

/// Ctrl-C or the watchdog stopped the launch in the block of `base` (the error record names
/// it): where its threads were, into bs.stopReport. Fibers: each thread's state; a kernel
/// split at its barriers: where each thread stopped (`regionState`; thread `stopped`, by
/// linear index, is the one that noticed, if any), as fibers would say; a thread loop runs
/// the threads one after another, so those before the one named had finished.
void reportStop(const SimKernel &k, const ThreadContext &base, const BlockState &bs,
                const std::vector<Fiber> *fibers, uint32_t n, const uint32_t *regionState = nullptr,
                uint64_t stopped = 0) {
  const ir::ErrorRecord &e = *bs.err;
  if (!bs.stopReport || !stoppedFromOutside(e) || !std::equal(e.block, e.block + 3, base.ctaid))
    return;
  std::string where;
  if (fibers) {
    std::vector<ThreadAtStop> threads;
    describeThreads(k, *fibers, n, threads);
    for (ThreadAtStop &t : threads)
      if (std::equal(t.tid.begin(), t.tid.end(), e.thread) &&
          (std::string_view(t.state) == "running" ||
           std::string_view(t.state) == "faulted")) // (ended as after a fault)
        t.state = "stopped", t.line = int(e.payload[0]);
    where = threadsInWords(threads);
  } else if (regionState) {
    std::vector<ThreadAtStop> threads(n);
    for (uint32_t i = 0; i < n; ++i) {
      ThreadAtStop &t = threads[i];
      indexOfLinear(i, base.ntid, t.tid.data());
      std::copy(base.ctaid, base.ctaid + 3, t.ctaid.begin());
      uint32_t at = regionState[i] == kRegionDone ? kRegionDone : regionState[i] & ~kRegionParked;
      uint32_t site = at == kRegionDone ? 0 : k.regionSites[at];
      if (i == stopped)
        t.state = "stopped", t.line = int(e.payload[0]);
      else if (at == kRegionDone)
        t.state = "exited";
      else if (k.regionWarp[at] && i > stopped && !(regionState[i] & kRegionParked))
        ;               // released from its warp operation, yet to run: ready, as fibers say
      else if (at != 0) // (0: not started)
        t.state = k.regionWarp[at] ? "warp" : "barrier",
        t.line = site < k.sites.size() ? int(k.sites[site].loc.line) : 0;
    }
    where = threadsInWords(threads);
  } else {
    auto before = uint32_t(linearOfIndex(e.thread, base.ntid));
    where = std::to_string(before) + " finished, 1 stopped" +
            (e.payload[0] ? " in the loop at line " + std::to_string(e.payload[0]) : "") + " (thread " +
            indexText(e.thread) + "), " +
            std::to_string(base.ntid[0] * base.ntid[1] * base.ntid[2] - before - 1) +
            " not started (a kernel without barriers runs its threads one after another)";
  }
  *bs.stopReport = "threads of block " + indexText(base.ctaid) + ": " + where;
}

void runBlockAsLoop(const SimKernel &k, ThreadContext base, BlockState &bs, const void *args) {
  sigjmp_buf jb;
  bs.jmp = &jb;
  ThreadContext tc = base;
  std::optional<GdbBlocksScope> gdb;
  if (k.debug)
    gdb.emplace(std::vector<GdbBlock>{{&k, nullptr, base.ntid[0] * base.ntid[1] * base.ntid[2], &tc}});
  if (sigsetjmp(jb, 0) == 0) {
    activeKernel() = ActiveKernel{&tc, &bs, &jb, nullptr, 0};
    k.blockEntry(&tc, args);
  } else {
    landedAfterJump();
    reportStop(k, base, bs, nullptr, 0);
  }
  activeKernel() = ActiveKernel{};
}

/// The fibers of one block and what resuming them needs.
struct BlockFibers {
  std::vector<Fiber> *fibers = nullptr;
  std::vector<uint32_t> *order = nullptr;
  uint32_t n = 0;
  std::mt19937 rng;
  /// Since when every thread still running has spun in the same loop, round after round
  /// (kept while a cooperative launch runs other blocks).
  std::optional<std::chrono::steady_clock::time_point> stalledSince;
};

void startFibers(const SimKernel &k, const ThreadContext &base, Dim3 block, const void *args,
                 FiberStacks &stacks, BlockFibers &bf) {
  uint32_t n = uint32_t(block.count());
  bf.n = n;
  if (bf.fibers->size() < n)
    bf.fibers->resize(n);
  bf.order->resize(n);
  std::iota(bf.order->begin(), bf.order->end(), 0u);
  stacks.reserve(n, k.stackBytes);
  for (uint32_t i = 0; i < n; ++i) {
    Fiber &f = (*bf.fibers)[i];
    f.tc = base;
    indexOfLinear(i, base.ntid, f.tc.tid);
    f.tc.fiber = &f;
    f.state = Fiber::State::Ready;
    f.entry = k.threadEntry;
    f.args = args;
    char *top = stacks.top(i);
    f.stackLow = top - stacks.bytes(); // the guard page lies just below
    f.stackBytes = stacks.bytes();
    reuseFiberStack(f.stackLow, f.stackBytes);
    f.ctx = bctx::make_fcontext(top, stacks.bytes(), fiberMain);
  }
}

/// Spinning: its running threads only spin (a cooperative launch then runs its other
/// blocks, one of which may set what they wait for).
enum class BlockEnd { Done, AtGridBarrier, Spinning, Stopped };

/// One warp as its lanes wait: those not finished (`live`), those waiting in a *_sync
/// operation (`sync`) or in activemask() (`active`), and what each waiting lane asked for
/// at which call site.
struct WarpWaiting {
  uint32_t lanes = 0; ///< the warp's lanes (the last warp of a block may have fewer than 32)
  uint32_t live = 0, sync = 0, active = 0;
  WarpRequest req[32];
  uint32_t site[32];
};

/// An operation of a warp that cannot complete: lane `waiter` waits in it, lane `blocker`
/// of its mask waits elsewhere (-1: the waiter's own lane is not in its mask, an error
/// whatever else could move).
struct LaneStall {
  int waiter = -1, blocker = -1;
};

/// Completes the operations of one warp whose lanes have all arrived, by PTX's rules: a
/// *_sync operation when every live lane of its mask waits in an operation of the same kind
/// with the same mask (the calls may be at different places, as on sm_70 and later; each
/// such group goes to `synced`), activemask() once nothing else in the warp can move (the
/// lanes waiting in it at the same call site are the active ones). Returns the lanes
/// released, their results in `out`; `stall` tells of the first operation that cannot.
template <class Synced>
uint32_t completeWarpOps(const WarpWaiting &w, uint64_t out[32], LaneStall &stall, Synced &&synced) {
  uint32_t releasedHere = 0;
  auto release = [&](uint32_t group) {
    computeWarpOp(group, w.req, out);
    releasedHere |= group;
  };
  for (uint32_t pending = w.sync; pending;) {
    uint32_t l = uint32_t(__builtin_ctz(pending));
    const WarpRequest &r = w.req[l];
    if (!(r.mask >> l & 1u)) {
      stall = {int(l), -1}; // (the groups released before it stay released, as with fibers)
      return releasedHere;
    }
    uint32_t group = r.mask & w.live;
    int blocker = -1;
    for (uint32_t k = 0; k < w.lanes && blocker < 0; ++k)
      if ((group >> k & 1u) && !((w.sync >> k & 1u) && w.req[k].op == r.op && w.req[k].mask == r.mask))
        blocker = int(k);
    if (blocker >= 0) {
      if (stall.waiter < 0)
        stall = {int(l), blocker};
      pending &= ~(1u << l);
      continue;
    }
    release(group);
    synced(group); // the lanes of the group are ordered with each other from here
    pending &= ~group;
  }
  if (releasedHere)
    return releasedHere; // released lanes may yet reach an activemask() waiting in this warp
  for (uint32_t pending = w.active; pending;) {
    uint32_t l = uint32_t(__builtin_ctz(pending)), group = 0;
    for (uint32_t k = l; k < w.lanes; ++k)
      if ((pending >> k & 1u) && w.site[k] == w.site[l])
        group |= 1u << k;
    release(group);
    pending &= ~group;
  }
  return releasedHere;
}

/// A warp operation of fibers that cannot complete: `waiter` waits in it, `blocker` is a
/// lane of its mask that waits elsewhere (null: the waiter's own lane is not in its mask).
struct WarpStall {
  const Fiber *waiter = nullptr;
  const Fiber *blocker = nullptr;
};

/// Completes the warp operations of the block's fibers whose lanes have all arrived
/// (completeWarpOps); returns how many lanes it released.
uint32_t resolveWarps(std::vector<Fiber> &fibers, uint32_t n, WarpStall &stall, SanitizerBlock *sanitizer) {
  uint32_t released = 0;
  for (uint32_t base = 0; base < n; base += 32) {
    WarpWaiting w;
    w.lanes = std::min<uint32_t>(32, n - base);
    Fiber *lane = &fibers[base];
    for (uint32_t l = 0; l < w.lanes; ++l) {
      if (lane[l].state != Fiber::State::Done)
        w.live |= 1u << l;
      if (lane[l].state == Fiber::State::AtWarp) {
        ((lane[l].warp.op & ir::kWarpOpMask) == unsigned(ir::WarpOp::ActiveMask) ? w.active : w.sync) |= 1u
                                                                                                         << l;
        w.req[l] = lane[l].warp;
        w.site[l] = lane[l].site;
      }
    }
    if (!(w.sync | w.active))
      continue;
    uint64_t out[32];
    LaneStall ls;
    uint32_t got = completeWarpOps(w, out, ls, [&](uint32_t group) {
      if (sanitizer)
        sanitizer->warpSynced(base, group);
    });
    for (uint32_t l = 0; l < w.lanes; ++l)
      if (got >> l & 1u) {
        lane[l].warpResult = out[l];
        lane[l].state = Fiber::State::Ready;
      }
    if (ls.waiter >= 0 && ls.blocker < 0) {
      stall = {&lane[ls.waiter], nullptr};
      return 0; // a lane outside its own mask: an error, whatever else could move
    }
    if (ls.waiter >= 0 && !stall.waiter)
      stall = {&lane[ls.waiter], &lane[ls.blocker]};
    released += uint32_t(__builtin_popcount(got));
  }
  if (released)
    stall = {};
  return released;
}

/// The watchdog's deadline for a launch starting now, if it has a time limit.
std::optional<LaunchDeadline> launchDeadline(const SchedulerOptions &opts) {
  if (opts.timeout <= std::chrono::steady_clock::duration::zero())
    return std::nullopt;
  return LaunchDeadline{std::chrono::steady_clock::now() + opts.timeout, opts.timeout};
}

/// Resumes the block's threads until all have finished (Done), all wait at one grid
/// barrier (AtGridBarrier), or a fault, barrier divergence or stuck warp operation was
/// recorded (Stopped). Each round runs every ready thread until it blocks, then completes
/// the warp operations that can complete; when nothing can run, the block barrier opens.
BlockEnd resumeFibers(const SimKernel &k, const ThreadContext &base, BlockState &bs,
                      const SchedulerOptions &opts, BlockFibers &bf, bool yieldWhenSpinning = false,
                      bool releaseGrid = true) {
  std::vector<Fiber> &fibers = *bf.fibers;
  uint32_t n = bf.n;
  sigjmp_buf escape;
  if (sigsetjmp(escape, 0) != 0) { // a fault in one of the fibers: recorded, the block is abandoned
    landedAfterJump();
    landedFromFiber();
    if (Fiber *f = bs.faulted ? bs.faulted->fiber : nullptr) {
      f->state = Fiber::State::Faulted;
      postMortem(k, bs, *f, fibers, n, ir::describeError(*bs.err, k.sites));
    }
    return BlockEnd::Stopped;
  }
  bool released = false;
  for (uint32_t i = 0; releaseGrid && i < n; ++i) // released from the grid barrier
    if (fibers[i].state == Fiber::State::AtGridBarrier) {
      fibers[i].state = Fiber::State::Ready;
      released = true;
    }
  if (released && bs.sanitizer) // a grid sync is a barrier of the block too
    bs.sanitizer->barrier();
  bool open = false; // the block barrier every waiting thread reached opens in the next pass
  std::optional<std::chrono::steady_clock::time_point> &stalledSince = bf.stalledSince;
  while (true) {
    if (recordInterrupt(fibers[0].tc, bs, 0)) // Ctrl-C or the watchdog (interrupts.h)
      return BlockEnd::Stopped;
    if (opts.seed)
      std::shuffle(bf.order->begin(), bf.order->end(), bf.rng);
    bool atWarp = false, progress = false;
    uint32_t waiting = 0, grid = 0, spinning = 0;
    const Fiber *firstWaiting = nullptr, *otherSite = nullptr, *firstSpinning = nullptr;
    for (uint32_t j = 0; j < n; ++j) {
      Fiber &f = fibers[opts.seed ? (*bf.order)[j] : j];
      if (f.state == Fiber::State::Ready || f.state == Fiber::State::Spinning ||
          (open && f.state == Fiber::State::AtBarrier)) {
        bool wasSpinning = f.state == Fiber::State::Spinning;
        uint32_t spunAt = f.spinLine;
        activeKernel() = ActiveKernel{&f.tc, &bs, &escape, f.stackLow, k.stackBytes};
        resumeFiber(f);
        activeKernel() = ActiveKernel{};
        while (f.state == Fiber::State::AtBreakpoint) { // the debugger runs here, off the fiber's stack
          BreakpointEvent e = stopEvent(k, f.tc, f.stop);
          stopFiber(k, e, bs, fibers, n);
          f.state = Fiber::State::Ready;
          activeKernel() = ActiveKernel{&f.tc, &bs, &escape, f.stackLow, k.stackBytes};
          resumeFiber(f);
          activeKernel() = ActiveKernel{};
        }
        if (f.state == Fiber::State::Faulted)
          return BlockEnd::Stopped; // the other fibers are abandoned; their stacks are reused
        progress = progress || !wasSpinning || f.state != Fiber::State::Spinning || f.spinLine != spunAt;
      }
      // Count where the threads wait as we go (valid when no warp operation intervenes).
      if (f.state == Fiber::State::Done)
        continue;
      if (f.state == Fiber::State::Spinning) { // runs again next round; waits nowhere yet
        ++spinning;
        firstSpinning = firstSpinning ? firstSpinning : &f;
        continue;
      }
      atWarp = atWarp || f.state == Fiber::State::AtWarp;
      ++waiting;
      grid += f.state == Fiber::State::AtGridBarrier;
      if (!firstWaiting)
        firstWaiting = &f;
      else if ((f.state != firstWaiting->state || f.site != firstWaiting->site) && !otherSite)
        otherSite = &f;
    }
    open = false;
    WarpStall stall;
    if (atWarp && resolveWarps(fibers, n, stall, bs.sanitizer) > 0)
      continue;
    if (spinning) {
      // Spinning threads run again (a barrier opens once they reach it), unless none of the
      // block's threads has done anything else for opts.spinTimeout: a livelock, where a
      // GPU would hang.
      auto now = std::chrono::steady_clock::now();
      if (progress || !stalledSince)
        stalledSince = now;
      else if (now - *stalledSince > opts.spinTimeout) {
        recordError(bs.err, firstSpinning->tc.tid, base.ctaid, uint32_t(KernelErrorKind::Livelock),
                    UINT32_MAX, int64_t(firstSpinning->spinLine), int64_t(spinning),
                    int64_t(std::chrono::duration_cast<std::chrono::milliseconds>(opts.spinTimeout).count()));
        bs.abort->store(true, std::memory_order_relaxed);
        postMortem(k, bs, *firstSpinning, fibers, n, ir::describeError(*bs.err, k.sites));
        return BlockEnd::Stopped;
      }
      if (!progress && yieldWhenSpinning)
        return BlockEnd::Spinning;
      continue;
    }
    stalledSince.reset();
    if (atWarp) {
      // Nothing can run and a warp operation waits for a lane that never comes.
      const Fiber &w = *stall.waiter;
      int64_t lane = stall.blocker ? int64_t(stall.blocker - &fibers[0]) % 32 : -1;
      int64_t where = stall.blocker ? int64_t(stall.blocker->site) : int64_t(&w - &fibers[0]) % 32;
      recordError(bs.err, w.tc.tid, base.ctaid, uint32_t(KernelErrorKind::WarpDivergence), w.site,
                  int64_t(w.warp.mask), lane, where);
      bs.abort->store(true, std::memory_order_relaxed);
      postMortem(k, bs, w, fibers, n, ir::describeError(*bs.err, k.sites));
      return BlockEnd::Stopped;
    }
    if (waiting == 0)
      return BlockEnd::Done;
    // Threads that returned take no part in a barrier, block or grid: since Volta (sm_70) a
    // GPU's barrier waits for the threads that have not exited, so `if i >= n: return`
    // before a syncthreads() is correct. The block parks when every other thread waits at
    // one grid.sync(), whichever call.
    if (grid == waiting)
      return BlockEnd::AtGridBarrier;
    if (otherSite) { // live threads wait at two different barriers: none can ever open
      uint32_t atFirst = 0;
      for (uint32_t i = 0; i < n; ++i)
        atFirst += fibers[i].state == firstWaiting->state && fibers[i].site == firstWaiting->site;
      recordError(bs.err, otherSite->tc.tid, base.ctaid, uint32_t(KernelErrorKind::BarrierDivergence),
                  firstWaiting->site, atFirst, waiting, int64_t(otherSite->site));
      bs.abort->store(true, std::memory_order_relaxed);
      if (k.debug)
        postMortem(k, bs, *otherSite, fibers, n, ir::describeError(*bs.err, k.sites));
      return BlockEnd::Stopped;
    }
    open = true; // every unfinished thread waits at this barrier
    if (bs.sanitizer)
      bs.sanitizer->barrier();
  }
}

/// Where every thread of a block split at its barriers stopped, if that is one place
/// (kRegionDone: all returned); else kRegionsMixed. Four threads at a time, no early exit.
uint32_t commonStop(const uint32_t *state, uint32_t n) {
  using Four = uint32_t __attribute__((vector_size(16)));
  Four differ{}, first = Four{} + state[0];
  uint32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    Four v;
    std::memcpy(&v, state + i, sizeof v);
    differ |= v ^ first;
  }
  uint32_t any = differ[0] | differ[1] | differ[2] | differ[3];
  for (; i < n; ++i)
    any |= state[i] ^ state[0];
  return any ? kRegionsMixed : state[0];
}

/// A block of a kernel split at its barriers and warp operations (barrier_regions.h): each
/// round runs threads to where they stop next, one loop over the block's threads when they
/// all resume from one point. Between rounds, as for fibers (resumeFibers): the warp
/// operations whose lanes have all arrived complete and those lanes run on; when nothing
/// else can move, the live threads must all wait at one barrier, which opens (threads that
/// returned take no part).
void runBlockAsRegions(const SimKernel &k, ThreadContext base, Dim3 block, BlockState &bs, const void *args) {
  WorkerScratch &ws = scratch();
  auto n = uint32_t(block.count());
  ws.state.assign(n, 0);
  uint32_t *state = ws.state.data();
  base.frames = ws.frames.reserve(k.frameBytes * n);
  bool warps = std::find(k.regionWarp.begin(), k.regionWarp.end(), 1) != k.regionWarp.end();
  if (warps) {
    if (ws.lanes.size() < n)
      ws.lanes.resize(n);
    base.lanes = ws.lanes.data();
  }
  sigjmp_buf jb;
  bs.jmp = &jb;
  ThreadContext tc = base;
  // Between rounds every live thread waits: Ctrl-C or the watchdog noticed there is the
  // first thread's, as for fibers, and stops none of them.
  auto interruptedBetweenRounds = [&] {
    if (!recordInterrupt(base, bs, 0)) // (interrupts.h)
      return false;
    reportStop(k, base, bs, nullptr, n, state, /*stopped=*/n);
    return true;
  };
  // Completes the warp operations whose lanes have all arrived: their lanes get results
  // and run next, every other live thread is parked. Returns the lanes released; `stall`
  // tells of an operation that cannot complete (fatal: a lane outside its own mask).
  auto completeWarps = [&](LaneStall &stall, bool &atWarp, bool &fatal) {
    uint32_t released = 0;
    for (uint32_t i = 0; i < n; ++i)
      if (state[i] != kRegionDone)
        state[i] |= kRegionParked;
    for (uint32_t first = 0; first < n; first += 32) {
      WarpWaiting w;
      w.lanes = std::min<uint32_t>(32, n - first);
      for (uint32_t l = 0; l < w.lanes; ++l) {
        uint32_t s = state[first + l];
        if (s == kRegionDone)
          continue;
        w.live |= 1u << l;
        uint32_t r = s & ~kRegionParked;
        if (!k.regionWarp[r])
          continue;
        w.req[l] = ws.lanes[first + l].request;
        w.site[l] = k.regionSites[r];
        ((w.req[l].op & ir::kWarpOpMask) == unsigned(ir::WarpOp::ActiveMask) ? w.active : w.sync) |= 1u << l;
      }
      if (!(w.sync | w.active))
        continue;
      atWarp = true;
      uint64_t out[32];
      LaneStall ls;
      uint32_t got = completeWarpOps(w, out, ls, [](uint32_t) {});
      if (ls.waiter >= 0 && (ls.blocker < 0 || stall.waiter < 0)) {
        stall = {int(first) + ls.waiter, ls.blocker < 0 ? -1 : int(first) + ls.blocker};
        fatal = ls.blocker < 0;
        if (fatal) // (an error: what else was released no longer matters)
          return 0u;
      }
      for (uint32_t l = 0; l < w.lanes; ++l)
        if (got >> l & 1u) {
          ws.lanes[first + l].result = out[l];
          state[first + l] &= ~kRegionParked;
        }
      released += uint32_t(__builtin_popcount(got));
    }
    return released;
  };
  // Every thread stopped at one warp operation (lockstep, the usual case): each warp's
  // lanes all ask for the same operation under a mask of the whole warp, which completes
  // at once. False if some warp does not (completeWarps then judges every warp again: an
  // operation completed here gives the same results from the same requests there).
  auto lockstepWarps = [&] {
    for (uint32_t first = 0; first < n; first += 32) {
      uint32_t lanes = std::min<uint32_t>(32, n - first);
      uint32_t whole = lanes == 32 ? ~0u : (1u << lanes) - 1;
      const WarpRequest &r0 = ws.lanes[first].request;
      for (uint32_t l = 0; l < lanes; ++l) {
        const WarpRequest &r = ws.lanes[first + l].request;
        if (r.op != r0.op || r.mask != r0.mask || (r.mask & whole) != whole ||
            (r.op & ir::kWarpOpMask) == unsigned(ir::WarpOp::ActiveMask))
          return false;
      }
      completeLockstep(&ws.lanes[first], lanes);
    }
    return true;
  };
  auto siteOf = [&](uint32_t i) { return k.regionSites[state[i] & ~kRegionParked]; };
  if (sigsetjmp(jb, 0) == 0) {
    activeKernel() = ActiveKernel{&tc, &bs, &jb, nullptr, 0};
    for (uint32_t from = 0, round = 0;;) {
      uint32_t all =
          k.regionsEntry(&tc, args, state, from, round++); // (usually one barrier or warp operation)
      if (all == kRegionsMixed) // (a mixed round says nothing of the threads that did not run)
        all = commonStop(state, n);
      if (all == kRegionDone || interruptedBetweenRounds())
        break;
      if (all != kRegionsMixed && !k.regionWarp[all]) {
        from = all;
        continue;
      }
      if (all != kRegionsMixed && lockstepWarps()) { // (all != mixed: all at one warp operation)
        from = all;
        continue;
      }
      if (warps) {
        LaneStall stall;
        bool atWarp = false, fatal = false;
        uint32_t released = completeWarps(stall, atWarp, fatal);
        if (released && !fatal) { // (all in lockstep: one loop again)
          from = released == n && all != kRegionsMixed ? all : kRegionsMixed;
          continue;
        }
        if (atWarp) { // nothing can run and a warp operation waits for a lane that never comes
          const WarpRequest &w = ws.lanes[uint32_t(stall.waiter)].request;
          int64_t lane = stall.blocker >= 0 ? stall.blocker % 32 : -1;
          int64_t where = stall.blocker >= 0 ? int64_t(siteOf(uint32_t(stall.blocker))) : stall.waiter % 32;
          uint32_t tid[3];
          indexOfLinear(uint32_t(stall.waiter), base.ntid, tid);
          recordError(bs.err, tid, base.ctaid, uint32_t(KernelErrorKind::WarpDivergence),
                      siteOf(uint32_t(stall.waiter)), int64_t(w.mask), lane, where);
          bs.abort->store(true, std::memory_order_relaxed);
          break;
        }
      }
      // Every live thread waits at a barrier: one barrier opens; two never can.
      uint32_t live = 0, first = n, other = n;
      for (uint32_t i = 0; i < n; ++i) {
        if (state[i] == kRegionDone)
          continue;
        ++live;
        if (first == n)
          first = i;
        else if (other == n && siteOf(i) != siteOf(first))
          other = i;
      }
      if (other < n) {
        uint32_t site = siteOf(first), atFirst = 0;
        for (uint32_t i = 0; i < n; ++i)
          atFirst += state[i] != kRegionDone && siteOf(i) == site;
        uint32_t tid[3];
        indexOfLinear(other, base.ntid, tid);
        recordError(bs.err, tid, base.ctaid, uint32_t(KernelErrorKind::BarrierDivergence), site, atFirst,
                    live, int64_t(siteOf(other)));
        bs.abort->store(true, std::memory_order_relaxed);
        break;
      }
      for (uint32_t i = 0; i < n; ++i)
        if (state[i] != kRegionDone)
          state[i] &= ~kRegionParked;
      from = kRegionsMixed;
    }
  } else { // a fault, or a stop noticed by the thread the error record names
    landedAfterJump();
    reportStop(k, base, bs, nullptr, n, state, linearOfIndex(bs.err->thread, base.ntid));
  }
  activeKernel() = ActiveKernel{};
}

void runBlockAsFibers(const SimKernel &k, ThreadContext base, Dim3 block, BlockState &bs, const void *args,
                      const SchedulerOptions &opts, uint64_t blockLinear) {
  WorkerScratch &ws = scratch();
  if (k.regionsEntry) { // a kernel split at its barriers, its regions one after another on each fiber
    base.frames = ws.frames.reserve(k.frameBytes * block.count());
    if (ws.lanes.size() < block.count())
      ws.lanes.resize(block.count());
    base.lanes = ws.lanes.data();
  }
  BlockFibers bf{&ws.fibers, &ws.order, 0, std::mt19937(opts.seed ^ uint32_t(blockLinear * 2654435761u)), {}};
  startFibers(k, base, block, args, ws.stacks, bf);
  std::optional<GdbBlocksScope> gdb;
  if (k.debug)
    gdb.emplace(std::vector<GdbBlock>{{&k, bf.fibers, bf.n, nullptr}});
  if (resumeFibers(k, base, bs, opts, bf) == BlockEnd::Stopped)
    reportStop(k, base, bs, bf.fibers, bf.n);
}

/// The thread stacks (local arrays included) a launch may keep at once: a quarter of the
/// machine's memory, however many cores it has.
uint64_t stackBudget() {
  static const uint64_t budget = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE)) / 4;
  return budget;
}

/// How many blocks whose threads' stacks take `stackBytes` may run at once.
int blocksThatFit(uint64_t stackBytes) {
  return int(std::clamp<uint64_t>(stackBudget() / std::max<uint64_t>(stackBytes, 1), 1, INT_MAX));
}

ThreadContext blockContext(uint64_t b, Dim3 grid, Dim3 block, uint64_t dynamicShared) {
  ThreadContext base{};
  base.nctaid[0] = grid.x;
  base.nctaid[1] = grid.y;
  base.nctaid[2] = grid.z;
  indexOfLinear(b, base.nctaid, base.ctaid);
  base.ntid[0] = block.x;
  base.ntid[1] = block.y;
  base.ntid[2] = block.z;
  base.dynamicShared = dynamicShared;
  base.spinPollsLeft = kSpinPolls;
  base.interruptPollsLeft = kInterruptPolls;
  return base;
}

/// A cooperative launch (the kernel syncs the grid): every block stays resident with its
/// own fibers, stacks and shared memory. The launch runs in phases: each phase resumes every
/// block (in parallel) until all its threads wait at a grid barrier, and the next phase
/// begins when all blocks do. A block that finishes while others wait means the grid
/// barrier can never complete: reported as a deadlock, where a GPU would hang.
void runCooperative(const SimKernel &k, Dim3 grid, Dim3 block, uint64_t dynamicShared, const void *args,
                    ir::ErrorRecord *err, const SchedulerOptions &opts, std::string *stopReport) {
  struct Resident {
    FiberStacks stacks;
    std::vector<Fiber> fibers;
    std::vector<uint32_t> order;
    std::vector<uint8_t> shared;
    BlockState bs;
    ThreadContext base{};
    BlockFibers bf;
    BlockEnd end = BlockEnd::Done;
    bool started = false;
    SanitizerBlock sanitizer;
  };
  std::atomic<bool> abort{false};
  std::optional<LaunchDeadline> deadline = launchDeadline(opts);
  uint64_t nblocks = grid.count();
  std::vector<std::unique_ptr<Resident>> blocks(nblocks);
  for (uint64_t b = 0; b < nblocks; ++b)
    blocks[b] = std::make_unique<Resident>();

  // A phase first resumes the blocks at the grid barrier (releasing it), then, while some
  // block's threads only spin, those blocks again (the others' threads stay at the barrier).
  bool spinPass = false;
  auto resume = [&](uint64_t b) {
    Resident &r = *blocks[b];
    BlockEnd waitingFor = spinPass ? BlockEnd::Spinning : BlockEnd::AtGridBarrier;
    if (abort.load(std::memory_order_relaxed) || (r.started && r.end != waitingFor))
      return;
    prepareFaultHandling();
    if (!r.started) {
      r.started = true;
      r.shared.assign(k.staticSharedBytes + dynamicShared, 0);
      r.bs.err = err;
      r.bs.abort = &abort;
      r.bs.deadline = deadline ? &*deadline : nullptr;
      r.bs.ctrlCAtStart = opts.ctrlCAtStart;
      r.bs.kernel = &k;
      r.bs.stopReport = stopReport;
      r.bs.otherBlocks = [&blocks, &k, b](std::vector<ThreadAtStop> &out) {
        for (uint64_t o = 0; o < blocks.size(); ++o)
          if (o != b && blocks[o]->started)
            describeThreads(k, blocks[o]->fibers, blocks[o]->bf.n, out);
      };
      r.base = blockContext(b, grid, block, dynamicShared);
      r.base.shared = r.shared.data();
      r.base.block = &r.bs;
      if (opts.sanitizer) {
        r.sanitizer.begin(*opts.sanitizer, r.base, b, r.shared.size());
        r.bs.sanitizer = &r.sanitizer;
        r.base.sanitizer = r.sanitizer.fastPath();
      }
      r.bf = BlockFibers{&r.fibers, &r.order, 0, std::mt19937(opts.seed ^ uint32_t(b * 2654435761u)), {}};
      startFibers(k, r.base, block, args, r.stacks, r.bf);
    }
    std::optional<GdbBlocksScope> gdb;
    if (k.debug) { // gdb sees every resident block
      std::vector<GdbBlock> resident;
      for (auto &o : blocks)
        if (o->started)
          resident.push_back({&k, &o->fibers, o->bf.n, nullptr});
      gdb.emplace(std::move(resident));
    }
    r.end = resumeFibers(k, r.base, r.bs, opts, r.bf, /*yieldWhenSpinning=*/true, /*releaseGrid=*/!spinPass);
    if (r.end == BlockEnd::Stopped)
      reportStop(k, r.base, r.bs, &r.fibers, r.bf.n);
  };
  auto resumeAll = [&] {
    if (opts.parallel && nblocks > 1)
      tbb::parallel_for(tbb::blocked_range<uint64_t>(0, nblocks),
                        [&](const tbb::blocked_range<uint64_t> &rg) {
                          for (uint64_t b = rg.begin(); b != rg.end(); ++b)
                            resume(b);
                        });
    else
      for (uint64_t b = 0; b < nblocks; ++b)
        resume(b);
  };

  while (true) {
    spinPass = false;
    resumeAll();
    auto spinning = [&] {
      return std::any_of(blocks.begin(), blocks.end(), [](auto &r) { return r->end == BlockEnd::Spinning; });
    };
    for (spinPass = true; !abort.load() && spinning();)
      resumeAll();
    if (abort.load())
      return;
    uint64_t waiting = 0;
    const Resident *exited = nullptr, *first = nullptr;
    for (auto &r : blocks) {
      if (r->end == BlockEnd::AtGridBarrier) {
        ++waiting;
        first = first ? first : r.get();
      } else if (!exited) {
        exited = r.get();
      }
    }
    if (waiting == 0)
      return;
    if (exited) {
      uint32_t site = 0;
      for (uint32_t i = 0; i < first->bf.n; ++i)
        if (first->fibers[i].state == Fiber::State::AtGridBarrier) {
          site = first->fibers[i].site;
          break;
        }
      recordError(err, exited->fibers[0].tc.tid, exited->base.ctaid, uint32_t(KernelErrorKind::Deadlock),
                  site, int64_t(waiting), int64_t(nblocks), 0);
      return;
    }
    if (opts.sanitizer) // every block waits at the grid barrier: all before it is ordered before all after
      opts.sanitizer->gridSynced();
  }
}

} // namespace

} // namespace cutwin::sim

namespace cutwin::sim {

void checkLaunch(const SimKernel &k, Dim3 grid, Dim3 block, uint64_t dynamicShared,
                 const DeviceLimits &limits) {
  auto dims = [](Dim3 d) {
    return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
  };
  auto fail = [&](const std::string &why) {
    throw LaunchError("invalid launch of '" + k.name + "' with grid " + dims(grid) + ", block " +
                      dims(block) + ": " + why + " (CUDA_ERROR_INVALID_VALUE)");
  };
  if (grid.count() == 0 || block.count() == 0)
    fail("grid and block dimensions must be at least 1");
  uint32_t b[3] = {block.x, block.y, block.z};
  uint64_t g[3] = {grid.x, grid.y, grid.z};
  const char *axis = "xyz";
  for (int d = 0; d < 3; ++d) {
    if (b[d] > limits.maxBlockDim[d])
      fail(std::string("block dimension ") + axis[d] + " exceeds the device limit of " +
           std::to_string(limits.maxBlockDim[d]));
    if (g[d] > limits.maxGridDim[d])
      fail(std::string("grid dimension ") + axis[d] + " exceeds the device limit of " +
           std::to_string(limits.maxGridDim[d]));
  }
  if (block.count() > limits.maxThreadsPerBlock)
    fail(std::to_string(block.count()) + " threads per block exceed the device limit of " +
         std::to_string(limits.maxThreadsPerBlock));
  if (k.maxThreadsPerBlock && block.count() > k.maxThreadsPerBlock)
    fail(std::to_string(block.count()) + " threads per block exceed the kernel's launch bounds of " +
         std::to_string(k.maxThreadsPerBlock));
  if (k.staticSharedBytes > limits.sharedPerBlock)
    throw LaunchError("kernel '" + k.name + "' uses " + std::to_string(k.staticSharedBytes) +
                      " bytes of static shared memory; the device allows " +
                      std::to_string(limits.sharedPerBlock) + " (ptxas would reject it)");
  if (k.localBytes >= limits.localPerThread)
    throw LaunchError("kernel '" + k.name + "' uses " + std::to_string(k.localBytes) +
                      " bytes of local memory per thread (its local arrays); the device allows less than " +
                      std::to_string(limits.localPerThread) + " (CUDA_ERROR_INVALID_VALUE)");
  if (k.staticSharedBytes + dynamicShared > limits.sharedPerBlockOptin)
    fail(std::to_string(k.staticSharedBytes + dynamicShared) +
         " bytes of shared memory per block exceed the device limit of " +
         std::to_string(limits.sharedPerBlockOptin));
  if (k.cooperative) {
    // Every thread of a cooperative launch stays resident, its stack with it.
    uint64_t threads = grid.count() * block.count(), locals = threads * k.localBytes;
    if (locals > stackBudget())
      throw LaunchError("cooperative launch of '" + k.name + "' (it syncs the grid): its " +
                        std::to_string(threads) + " threads stay resident with " +
                        std::to_string(k.localBytes) + " bytes of local arrays each, " +
                        std::to_string(locals >> 20) +
                        " MiB, more than the simulator gives a launch (a quarter of this machine's memory)");
    uint64_t most = maxCooperativeBlocks(k, block, dynamicShared, limits);
    if (grid.count() > most)
      throw LaunchError("cooperative launch of '" + k.name + "' (it syncs the grid) with " +
                        std::to_string(grid.count()) + " blocks: at most " + std::to_string(most) +
                        " blocks of " + std::to_string(block.count()) +
                        " threads can be resident at once (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)");
  }
}

uint64_t maxCooperativeBlocks(const SimKernel &k, Dim3 block, uint64_t dynamicShared,
                              const DeviceLimits &limits) {
  uint64_t warps = (block.count() + limits.warpSize - 1) / limits.warpSize;
  uint64_t perSM = std::min<uint64_t>(limits.maxBlocksPerMultiprocessor,
                                      limits.maxThreadsPerMultiprocessor / (warps * limits.warpSize));
  uint64_t shared = k.staticSharedBytes + dynamicShared;
  if (shared > 0)
    perSM = std::min(perSM, limits.sharedPerMultiprocessor / (shared + limits.sharedReservedPerBlock));
  return perSM * limits.multiprocessors;
}

void runGrid(const SimKernel &k, Dim3 grid, Dim3 block, uint64_t dynamicShared, const void *args,
             ir::ErrorRecord *err, const SchedulerOptions &opts, std::string *stopReport) {
  struct DebugLaunch { // however the launch ends, a step not completed does not carry over
    DebugLaunch() { beginLaunchWatches(); }
    ~DebugLaunch() {
      endLaunchSteps();
      endLaunchWatches();
    }
  } debugLaunch;
  if (k.cooperative)
    return runCooperative(k, grid, block, dynamicShared, args, err, opts, stopReport);
  std::atomic<bool> abort{false};
  std::optional<LaunchDeadline> deadline = launchDeadline(opts);
  std::string ended; // a breakpoint handler ended the launch (loop mode; debug kernels run serially)
  uint64_t nblocks = grid.count();
  uint64_t sharedBytes = k.staticSharedBytes + dynamicShared;
  bool regions = k.regionsEntry && !opts.seed; // (CUTWIN_SIM_THREADS=fibers: none was split)
  bool fibers = k.blockEntry == nullptr && !regions;
  std::atomic<uint64_t> finished{0};
  std::string blockReport; // written by the one block the error record names

  auto runOne = [&](uint64_t b) {
    if (abort.load(std::memory_order_relaxed))
      return;
    WorkerScratch &ws = scratch();
    if (ws.shared.size() < sharedBytes)
      ws.shared.resize(sharedBytes);
    if (sharedBytes) // (an empty vector's data() may be null, which memset must not get)
      std::memset(ws.shared.data(), 0, sharedBytes);
    BlockState bs;
    bs.err = err;
    bs.abort = &abort;
    bs.deadline = deadline ? &*deadline : nullptr;
    bs.ctrlCAtStart = opts.ctrlCAtStart;
    bs.kernel = &k;
    bs.endedInDebugger = &ended;
    bs.stopReport = &blockReport;
    ThreadContext base = blockContext(b, grid, block, dynamicShared);
    if (recordInterrupt(base, bs, 0)) // between blocks: Ctrl-C or the watchdog (interrupts.h)
      return;
    base.shared = ws.shared.data();
    base.block = &bs;
    if (opts.sanitizer) {
      ws.sanitizer.begin(*opts.sanitizer, base, b, sharedBytes);
      bs.sanitizer = &ws.sanitizer;
      base.sanitizer = ws.sanitizer.fastPath();
    }
    prepareFaultHandling();
    if (fibers)
      runBlockAsFibers(k, base, block, bs, args, opts, b);
    else if (regions)
      runBlockAsRegions(k, base, block, bs, args);
    else
      runBlockAsLoop(k, base, bs, args);
    if (!abort.load(std::memory_order_relaxed))
      finished.fetch_add(1, std::memory_order_relaxed);
  };

  auto runAll = [&] {
    tbb::parallel_for(tbb::blocked_range<uint64_t>(0, nblocks), [&](const tbb::blocked_range<uint64_t> &r) {
      for (uint64_t b = r.begin(); b != r.end(); ++b)
        runOne(b);
    });
  };
  if (!opts.parallel || nblocks == 1) {
    for (uint64_t b = 0; b < nblocks; ++b)
      runOne(b);
  } else if (int most = fibers    ? blocksThatFit((k.stackBytes + k.frameBytes) * block.count())
                        : regions ? blocksThatFit(k.frameBytes * block.count())
                                  : INT_MAX;
             most < tbb::this_task_arena::max_concurrency()) {
    tbb::task_arena limited(most); // each block's stacks are resident while it runs
    limited.execute(runAll);
  } else {
    runAll();
  }
  if (!ended.empty())
    throw LaunchError(ended);
  if (stopReport && stoppedFromOutside(*err))
    *stopReport = std::to_string(finished.load()) + " of " + std::to_string(nblocks) +
                  " blocks had finished" + (blockReport.empty() ? "" : "; " + blockReport);
}

} // namespace cutwin::sim
