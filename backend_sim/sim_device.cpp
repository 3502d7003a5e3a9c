// The simulator as a device of the runtime (runtime/backend.h), and its policy: host memory
// stands in for device memory (CUTWIN_SIM_MEMORY_MB of it per device); kernels are compiled
// by the simulator pipeline and run by the scheduler (CUTWIN_SIM_SEED, CUTWIN_SIM_SERIAL,
// CUTWIN_SIM_STACK_KB, CUTWIN_SIM_THREADS); the device attributes it reports (an H200's limits).
#include "backend_sim/device_arena.h"
#include "backend_sim/interrupts.h"
#include "backend_sim/ipc_memory.h"
#include "backend_sim/kernel_faults.h"
#include "backend_sim/memory_shadow.h"
#include "backend_sim/sanitizer.h"
#include "backend_sim/scheduler.h"
#include "backend_sim/sim_image.h"
#include "backend_sim/sim_pipeline.h"
#include "frontend/ir/sanitize_checks.h"
#include "runtime/backend.h"
#include "runtime/interrupt_scope.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string_view>
#include <unistd.h>

namespace cutwin::rt {

namespace {

class SimCompiledKernel : public CompiledKernel {
public:
  SimCompiledKernel(const sim::SimCompiled &c, const sim::DeviceLimits &limits,
                    const sim::SchedulerOptions &opts, sim::DeviceArena &arena, sim::MemoryShadow &shadow)
      : limits_(limits), opts_(opts), arena_(arena), shadow_(shadow) {
    k_.name = c.name;
    k_.threadEntry = reinterpret_cast<sim::EntryFn>(c.threadEntry);
    k_.blockEntry = reinterpret_cast<sim::EntryFn>(c.blockEntry);
    k_.regionsEntry = reinterpret_cast<sim::RegionsEntryFn>(c.regionsEntry);
    k_.frameBytes = c.frameBytes;
    k_.regionSites = c.regionSites;
    k_.regionWarp = c.regionWarp;
    k_.staticSharedBytes = c.staticSharedBytes;
    k_.stackBytes = opts.stackBytes ? opts.stackBytes : c.stackBytes;
    k_.localBytes = c.localBytes;
    k_.cooperative = c.cooperative;
    k_.maxThreadsPerBlock = c.maxThreadsPerBlock;
    k_.breakpoints = c.breakpoints;
    k_.sites = c.sites;
    constBytes_ = c.constBytes;
    k_.debug = c.debug;
    sanitizer_ = c.sanitizer;
    if (c.debug)
      opts_.parallel = false;
  }

  void launch(Dim3 grid, Dim3 block, uint64_t sharedBytes, const void *args, ir::ErrorRecord *err, void *,
              double timeoutSeconds) override {
    sim::Dim3 g{grid.x, grid.y, grid.z}, b{block.x, block.y, block.z};
    sim::checkLaunch(k_, g, b, sharedBytes, limits_);
    arena_.guardReleased();        // a kernel writing to memory released before it faults
    rt::InterruptScope interrupts; // Ctrl-C ends the launch (backend_sim/interrupts.h)
    std::string &report = lastStopReport();
    report.clear();
    lastFaultReport().reset();
    sim::SchedulerOptions o = opts_;
    o.ctrlCAtStart = interrupts.start();
    if (timeoutSeconds > 0) // this launch's own watchdog (a year at most: the clock's range)
      o.timeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(std::min(timeoutSeconds, 3.2e7)));
    std::optional<sim::SanitizerLaunch> sanitizer;
    if (sanitizer_) {
      const uint32_t gd[3] = {grid.x, grid.y, grid.z}, bd[3] = {block.x, block.y, block.z};
      sanitizer.emplace(*sanitizer_, shadow_, gd, bd, args, o.seed);
      o.sanitizer = &*sanitizer;
    }
    if (!sanitizer_ || !(sanitizer_->checks & ir::kSanitizeInit) ||
        (sanitizer_->checks & ir::kSanitizeSharedOnly) || sanitizer_->foreignCode)
      shadow_.forgetUnwritten(); // it may write anything: nothing allocated so far counts as unwritten
    sim::runGrid(k_, g, b, sharedBytes, args, err, o, &report);
    if (sanitizer)
      sanitizer->finish(err);
    if (sanitizer && sanitizer->report()) {
      const sim::SanitizerReport &r = *sanitizer->report();
      lastFaultReport() =
          FaultReport{r.where.file, r.where.function, SourceLoc{r.where.line, r.where.col}, r.detail};
    }
    if (err->flag == 0 && interrupts.interrupted()) { // it came as the last threads finished
      const uint32_t first[3] = {0, 0, 0};
      sim::recordError(err, first, first, uint32_t(KernelErrorKind::Interrupted), UINT32_MAX, 0, 0, 0);
    }
  }

  uint64_t maxCooperativeBlocks(Dim3 block, uint64_t sharedBytes) override {
    return sim::maxCooperativeBlocks(k_, {block.x, block.y, block.z}, sharedBytes, limits_);
  }

  std::string stopReport() const override { return lastStopReport(); }
  std::optional<FaultReport> faultReport() const override { return lastFaultReport(); }

  KernelAttributes attributes() const override {
    KernelAttributes a;
    a.sharedBytesPerBlock = k_.staticSharedBytes;
    a.localBytesPerThread = k_.localBytes;
    a.constBytes = constBytes_;
    a.maxThreadsPerBlock = int(limits_.maxThreadsPerBlock);
    a.cooperative = k_.cooperative;
    return a;
  }

private:
  /// The last launch's report on this host thread (host threads launch a kernel at once).
  static std::string &lastStopReport() {
    thread_local std::string report;
    return report;
  }
  static std::optional<FaultReport> &lastFaultReport() {
    thread_local std::optional<FaultReport> report;
    return report;
  }

  uint64_t constBytes_ = 0;
  sim::SimKernel k_;
  const sim::DeviceLimits &limits_;
  sim::SchedulerOptions opts_;
  sim::DeviceArena &arena_;
  sim::MemoryShadow &shadow_;
  std::shared_ptr<const sim::SanitizerProgram> sanitizer_;
};

/// Simulated device memory is host memory, in an arena of its own (device_arena.h), with
/// the device's own accounting: `total` bytes (CUTWIN_SIM_MEMORY_MB, else the host's
/// memory), of which allocations beyond the free part fail as cuMemAlloc does.
/// "Page-locked" and "mapped" memory is ordinary memory that kernels address directly,
/// outside the device's accounting.
class SimMemory final : public DeviceMemory {
public:
  SimMemory(int ordinal, sim::DeviceArena &arena, sim::MemoryShadow &shadow)
      : ordinal_(ordinal), arena_(arena), shadow_(shadow) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    total_ = size_t(pages) * size_t(size);
    if (const char *mb = std::getenv("CUTWIN_SIM_MEMORY_MB"); mb && *mb) {
      char *end = nullptr;
      double v = std::strtod(mb, &end);
      if (*end || !(v >= 1 && v < 1e12))
        throw DeviceError(std::string("CUTWIN_SIM_MEMORY_MB is '") + mb +
                          "': the device's memory in MiB (1 or more)");
      total_ = size_t(v * double(1 << 20));
    }
  }
  void *allocate(size_t bytes) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (bytes > total_ - used_)
        throw DeviceError("cuMemAlloc of " + std::to_string(bytes) +
                          " bytes: CUDA_ERROR_OUT_OF_MEMORY (out of memory): simulated device " +
                          std::to_string(ordinal_) + " has " + std::to_string(total_ - used_) + " of " +
                          std::to_string(total_) + " bytes free");
      used_ += bytes;
    }
    char *p;
    try {
      p = static_cast<char *>(arena_.allocate(bytes));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      used_ -= bytes;
      throw;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      allocations_[p] = Allocation{bytes, nullptr};
    }
    shadow_.allocated(p, bytes);
    return p;
  }
  void release(void *p) override {
    char *exported = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = allocations_.find(static_cast<char *>(p));
      if (it != allocations_.end()) {
        used_ -= it->second.bytes;
        exported = it->second.exportedPages;
        allocations_.erase(it);
      }
    }
    if (exported)
      ipc_.releasing(exported);
    shadow_.released(p);
    arena_.release(p);
  }
  void copyToDevice(void *dst, const void *src, size_t n) override {
    std::memcpy(dst, src, n);
    shadow_.written(dst, n);
  }
  void copyToHost(void *dst, const void *src, size_t n) override { std::memcpy(dst, src, n); }
  void fill(void *dst, int byte, size_t n) override {
    std::memset(dst, byte, n);
    shadow_.written(dst, n);
  }
  void copyOnDevice(void *dst, const void *src, size_t n) override {
    std::memmove(dst, src, n);
    shadow_.written(dst, n);
  }
  void copyFromPeer(void *dst, Backend &, const void *src, size_t n) override { copyOnDevice(dst, src, n); }
  void writtenInPlace(void *p, size_t n) override { shadow_.written(p, n); }
  // Host memory the host program writes directly (NumPy views of pinned and mapped arrays):
  // written from the start, as far as the sanitizer can tell.
  void *allocateHost(size_t bytes, unsigned) override {
    void *p = arena_.allocate(bytes);
    shadow_.allocated(p, bytes);
    shadow_.written(p, bytes);
    return p;
  }
  void releaseHost(void *p) override { release(p); }
  void registerHost(void *, size_t, unsigned) override {}
  void unregisterHost(void *) override {}
  void *hostDevicePointer(void *host) override { return host; }
  MemoryInfo memoryInfo() override {
    std::lock_guard<std::mutex> lock(mu_);
    return MemoryInfo{total_ - used_, total_};
  }
  IpcMemHandle ipcHandle(void *p) override {
    // Under the lock throughout: the allocation cannot be released while its pages move.
    std::lock_guard<std::mutex> lock(mu_);
    auto it = allocations_.upper_bound(static_cast<char *>(p));
    if (it == allocations_.begin() ||
        static_cast<char *>(p) >= std::prev(it)->first + std::prev(it)->second.bytes)
      throw DeviceError(
          "cuIpcGetMemHandle: CUDA_ERROR_INVALID_VALUE: not device memory of simulated device " +
          std::to_string(ordinal_));
    --it;
    auto [pages, span] = arena_.pagesOf(it->first);
    if (!pages)
      throw DeviceError(
          "cuIpcGetMemHandle on a simulated device: this allocation has no pages of its own (the "
          "process has as many mappings as vm.max_map_count allows)");
    IpcMemHandle h;
    h.bytes = ipc_.exportAllocation(it->first, it->second.bytes, pages, span);
    h.base = it->first;
    h.size = it->second.bytes;
    it->second.exportedPages = pages;
    return h;
  }
  void *ipcOpen(const std::vector<uint8_t> &handle) override { return ipc_.open(handle); }
  void ipcClose(void *base) override { ipc_.close(base); }

private:
  struct Allocation {
    size_t bytes;
    char *exportedPages; ///< its pages, once an IPC handle has shared them
  };
  int ordinal_;
  sim::DeviceArena &arena_;
  sim::MemoryShadow &shadow_;
  sim::IpcMemory ipc_;
  std::mutex mu_;
  size_t total_ = 0, used_ = 0;              ///< the device's memory and what allocations hold of it
  std::map<char *, Allocation> allocations_; ///< device allocations (not host memory), by address
};

/// Launches run to completion: streams need no ordering, events read the host clock.
class SimStreams final : public DeviceStreams {
  using TimePoint = std::chrono::steady_clock::time_point;

public:
  void synchronize() override {}
  // A stream is a token: launches run to completion in order whatever their stream, but a
  // stream keeps an identity of its own (the CUDA Array Interface names an array's stream).
  void *createStream() override { return new char; }
  void destroyStream(void *s) override { delete static_cast<char *>(s); }
  void synchronizeStream(void *) override {}
  void *createEvent() override { return new TimePoint(); }
  void destroyEvent(void *e) override { delete static_cast<TimePoint *>(e); }
  void recordEvent(void *e, void *) override {
    *static_cast<TimePoint *>(e) = std::chrono::steady_clock::now();
  }
  void synchronizeEvent(void *) override {}
  float elapsedMilliseconds(void *a, void *b) override {
    return std::chrono::duration<float, std::milli>(*static_cast<TimePoint *>(b) -
                                                    *static_cast<TimePoint *>(a))
        .count();
  }
};

/// The simulator's pipeline and JIT; its programs run on the scheduler with `opts`.
class SimCompiler final : public KernelCompiler {
public:
  SimCompiler(const sim::DeviceLimits &limits, const sim::SchedulerOptions &opts, sim::DeviceArena &arena,
              sim::MemoryShadow &shadow)
      : limits_(limits), opts_(opts), arena_(arena), shadow_(shadow) {}
  std::unique_ptr<CompiledKernel> compile(ir::KernelIR ir, const PipelineOptions &opts,
                                          std::string *image) override {
    PipelineOptions o = opts;
    o.simRegions = !opts_.fibers; // CUTWIN_SIM_THREADS=fibers: kernels as they were, on fibers
    return std::make_unique<SimCompiledKernel>(sim::compileForSim(std::move(ir), o, image), limits_, opts_,
                                               arena_, shadow_);
  }
  std::unique_ptr<CompiledKernel> load(const std::string &image, const ir::KernelInfo &info) override {
    return std::make_unique<SimCompiledKernel>(sim::loadSimImage(image, info), limits_, opts_, arena_,
                                               shadow_);
  }
  std::string codeIdentity() const override {
    return sim::simCodeIdentity() + (opts_.fibers ? ";uncut" : ";regions");
  }

private:
  const sim::DeviceLimits &limits_;
  const sim::SchedulerOptions &opts_;
  sim::DeviceArena &arena_;
  sim::MemoryShadow &shadow_;
};

class SimBackend : public Backend {
public:
  explicit SimBackend(int ordinal) : ordinal_(ordinal) {
    if (const char *seed = std::getenv("CUTWIN_SIM_SEED"))
      opts_.seed = unsigned(std::strtoul(seed, nullptr, 0));
    if (const char *serial = std::getenv("CUTWIN_SIM_SERIAL"); serial && *serial == '1')
      opts_.parallel = false;
    if (const char *threads = std::getenv("CUTWIN_SIM_THREADS")) {
      if (std::string_view(threads) == "fibers")
        opts_.fibers = true;
      else if (std::string_view(threads) != "auto")
        throw Error(std::string("CUTWIN_SIM_THREADS is '") + threads + "': auto or fibers");
    }
    if (const char *kb = std::getenv("CUTWIN_SIM_STACK_KB"))
      opts_.stackBytes = std::max<size_t>(8, std::strtoul(kb, nullptr, 0)) * 1024;
    if (const char *s = std::getenv("CUTWIN_SIM_TIMEOUT"))
      opts_.timeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(std::max(0.0, std::strtod(s, nullptr))));
    if (const char *s = std::getenv("CUTWIN_SIM_SPIN_TIMEOUT"))
      opts_.spinTimeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(std::max(0.0, std::strtod(s, nullptr))));
  }
  std::string name() const override { return limits_.name; }
  int ordinal() const override { return ordinal_; }
  // Simulated devices share the host's memory: every one reaches every other's.
  bool canAccessPeer(Backend &peer) override { return peer.capabilities().simulator && &peer != this; }
  void setPeerAccess(Backend &, bool) override {}
  BackendCapabilities capabilities() const override {
    BackendCapabilities c;
    c.simulator = c.hostAddressableMemory = c.synchronousLaunches = c.fullDebugInfo = c.boundscheckByDefault =
        c.sanitizers = c.cachesKernelsByDefault = true;
    return c;
  }
  std::optional<int64_t> attribute(const std::string &name) const override {
    const sim::DeviceLimits &l = limits_;
    const std::pair<const char *, int64_t> known[] = {
        {"MAX_THREADS_PER_BLOCK", l.maxThreadsPerBlock},
        {"MAX_BLOCK_DIM_X", l.maxBlockDim[0]},
        {"MAX_BLOCK_DIM_Y", l.maxBlockDim[1]},
        {"MAX_BLOCK_DIM_Z", l.maxBlockDim[2]},
        {"MAX_GRID_DIM_X", int64_t(l.maxGridDim[0])},
        {"MAX_GRID_DIM_Y", int64_t(l.maxGridDim[1])},
        {"MAX_GRID_DIM_Z", int64_t(l.maxGridDim[2])},
        {"MAX_SHARED_MEMORY_PER_BLOCK", int64_t(l.sharedPerBlock)},
        {"MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", int64_t(l.sharedPerBlockOptin)},
        {"MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", int64_t(l.sharedPerMultiprocessor)},
        {"RESERVED_SHARED_MEMORY_PER_BLOCK", int64_t(l.sharedReservedPerBlock)},
        {"TOTAL_CONSTANT_MEMORY", 64 * 1024},
        {"WARP_SIZE", l.warpSize},
        {"MULTIPROCESSOR_COUNT", l.multiprocessors},
        {"MAX_THREADS_PER_MULTI_PROCESSOR", l.maxThreadsPerMultiprocessor},
        {"MAX_BLOCKS_PER_MULTIPROCESSOR", l.maxBlocksPerMultiprocessor},
        {"COMPUTE_CAPABILITY_MAJOR", 9},
        {"COMPUTE_CAPABILITY_MINOR", 0},
        {"COOPERATIVE_LAUNCH", 1},
        {"CONCURRENT_KERNELS", 0},
        {"UNIFIED_ADDRESSING", 1},
        {"CAN_MAP_HOST_MEMORY", 1},
        {"INTEGRATED", 0},
        {"ECC_ENABLED", 0},
        {"ASYNC_ENGINE_COUNT", 0},
        {"PCI_BUS_ID", ordinal_},
        {"PCI_DEVICE_ID", 0},
        {"PCI_DOMAIN_ID", 0},
    };
    for (auto &[n, v] : known)
      if (name == n)
        return v;
    return std::nullopt;
  }

  DeviceMemory &memory() override { return memory_; }
  DeviceStreams &streams() override { return streams_; }
  KernelCompiler &compiler() override { return compiler_; }

private:
  int ordinal_;
  sim::DeviceLimits limits_;
  sim::SchedulerOptions opts_;
  sim::DeviceArena arena_;   // device memory apart from the host heap, guarded
  sim::MemoryShadow shadow_; // what the sanitizer knows of it
  SimMemory memory_{ordinal_, arena_, shadow_};
  SimStreams streams_;
  SimCompiler compiler_{limits_, opts_, arena_, shadow_};
};

} // namespace

std::unique_ptr<Backend> createSimBackend(int ordinal) { return std::make_unique<SimBackend>(ordinal); }

} // namespace cutwin::rt
