// A GPU as a device of the runtime (runtime/backend.h), "gpu:N": device memory and kernels through
// the CUDA driver API; kernels compiled by the GPU pipeline to PTX and JIT-linked by the
// driver.
#include "backend_gpu/cuda_driver.h"
#include "backend_gpu/gpu_pipeline.h"
#include "backend_gpu/libnvvm.h"
#include "backend_gpu/link.h"
#include "frontend/ir/byte_stream.h"
#include "frontend/ir/libdevice_link.h"
#include "frontend/ir/linked_files.h"
#include "runtime/backend.h"
#include "runtime/interrupt_scope.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

namespace cutwin::rt {

namespace {

using gpu::CudaDriver;

class GpuCompiledKernel : public CompiledKernel {
public:
  GpuCompiledKernel(const CudaDriver &d, CUcontext ctx, const gpu::GpuCompiled &c, size_t argBytes,
                    int multiprocessors, const std::string &arch)
      : d_(d), ctx_(ctx), name_(c.name), argBytes_(argBytes), cooperative_(c.cooperative),
        multiprocessors_(multiprocessors) {
    if (!c.link.empty())
      module_ = gpu::loadLinkedModule(d_, c.ptx, c.link, arch, name_);
    else
      loadPtx(c);
    d_.check(d_.cuModuleGetFunction(&function_, module_, c.entry.c_str()),
             "kernel '" + name_ + "': cuModuleGetFunction");
    int staticShared = 0;
    d_.cuFuncGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function_);
    dynamicSharedAllowed_ = uint64_t(std::max(0, 48 * 1024 - staticShared));
  }
  ~GpuCompiledKernel() override {
    if (module_) {
      d_.cuCtxSetCurrent(ctx_);
      d_.cuModuleUnload(module_);
    }
  }

  void launch(Dim3 grid, Dim3 block, uint64_t sharedBytes, const void *args, ir::ErrorRecord *, void *stream,
              double /*timeoutSeconds: a GPU has no watchdog*/) override {
    d_.cuCtxSetCurrent(ctx_); // a launch may come from any host thread
    allowDynamicShared(sharedBytes);
    size_t size = argBytes_;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, const_cast<void *>(args), CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &size, CU_LAUNCH_PARAM_END};
    CUresult r;
    if (cooperative_) {
      // The kernel syncs the grid: all blocks must be resident, which a cooperative launch
      // guarantees (or refuses with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).
      CUlaunchAttribute attr{};
      attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attr.value.cooperative = 1;
      CUlaunchConfig cfg{};
      cfg.gridDimX = grid.x, cfg.gridDimY = grid.y, cfg.gridDimZ = grid.z;
      cfg.blockDimX = block.x, cfg.blockDimY = block.y, cfg.blockDimZ = block.z;
      cfg.sharedMemBytes = unsigned(sharedBytes);
      cfg.hStream = static_cast<CUstream>(stream);
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
      r = d_.cuLaunchKernelEx(&cfg, function_, nullptr, extra);
    } else {
      r = d_.cuLaunchKernel(function_, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                            unsigned(sharedBytes), static_cast<CUstream>(stream), nullptr, extra);
    }
    auto dims = [](Dim3 v) {
      return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + ")";
    };
    if (r != CUDA_SUCCESS)
      throw LaunchError(std::string(cooperative_ ? "cooperative launch (the kernel syncs the grid) of '"
                                                 : "invalid launch of '") +
                        name_ + "' with grid " + dims(grid) + ", block " + dims(block) + ": " +
                        d_.describe(r));
  }

  uint64_t maxCooperativeBlocks(Dim3 block, uint64_t sharedBytes) override {
    d_.cuCtxSetCurrent(ctx_);
    allowDynamicShared(sharedBytes);
    int perSM = 0;
    d_.check(d_.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                 &perSM, function_, int(block.x * block.y * block.z), size_t(sharedBytes)),
             "kernel '" + name_ + "': cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return uint64_t(perSM) * uint64_t(multiprocessors_);
  }

  void *moduleHandle() const override { return module_; }

  KernelAttributes attributes() const override {
    d_.cuCtxSetCurrent(ctx_);
    auto get = [&](CUfunction_attribute a) {
      int v = 0;
      d_.check(d_.cuFuncGetAttribute(&v, a, function_), "kernel '" + name_ + "': cuFuncGetAttribute");
      return v;
    };
    KernelAttributes k;
    k.registersPerThread = get(CU_FUNC_ATTRIBUTE_NUM_REGS);
    k.sharedBytesPerBlock = uint64_t(get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
    k.localBytesPerThread = uint64_t(get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
    k.constBytes = uint64_t(get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES));
    k.maxThreadsPerBlock = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    k.cooperative = cooperative_;
    return k;
  }

private:
  /// Loads the kernel's own PTX (no linked files).
  void loadPtx(const gpu::GpuCompiled &c) {
    char info[8192] = {}, err[8192] = {};
    CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {info, reinterpret_cast<void *>(sizeof info), err, reinterpret_cast<void *>(sizeof err)};
    CUresult r = d_.cuModuleLoadDataEx(&module_, c.ptx.c_str(), 4, opts, values);
    if (r != CUDA_SUCCESS)
      throw CompileError("", {}, "",
                         "the CUDA driver rejected the PTX of kernel '" + name_ + "': " + d_.describe(r) +
                             "\n" + err);
  }

  void allowDynamicShared(uint64_t sharedBytes) {
    if (sharedBytes > dynamicSharedAllowed_) {
      // Beyond the default 48 KiB a kernel must opt in to more dynamic shared memory (up
      // to the device's per-block maximum, which the simulator applies too).
      CUresult r =
          d_.cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(sharedBytes));
      if (r != CUDA_SUCCESS)
        throw LaunchError("invalid launch of '" + name_ + "': " + std::to_string(sharedBytes) +
                          " bytes of dynamic shared memory: " + d_.describe(r));
      dynamicSharedAllowed_ = sharedBytes;
    }
  }

  const CudaDriver &d_;
  CUcontext ctx_;
  std::string name_;
  size_t argBytes_;
  bool cooperative_ = false;
  int multiprocessors_ = 0;
  uint64_t dynamicSharedAllowed_ =
      0; ///< dynamic shared bytes the kernel may use now (48 KiB in all by default)
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
};

/// The GPU's primary context, shared by the backend's sides.
struct GpuContext {
  explicit GpuContext(int index) : index(index) {
    d = CudaDriver::get();
    if (!d)
      throw DeviceError("no GPU: " + CudaDriver::loadError());
    int count = 0;
    d->check(d->cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (index < 0 || index >= count)
      throw DeviceError("no GPU " + std::to_string(index) + ": " + std::to_string(count) +
                        " CUDA device(s) present");
    d->check(d->cuDeviceGet(&dev, index), "cuDeviceGet");
    d->check(d->cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    d->check(d->cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    char device[256] = {};
    d->cuDeviceGetName(device, sizeof device, dev);
    int major = 0, minor = 0;
    d->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    d->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    arch = "sm_" + std::to_string(major) + std::to_string(minor);
    name = std::string(device) + " (" + arch + ")";
  }
  ~GpuContext() {
    if (ctx)
      d->cuDevicePrimaryCtxRelease(dev);
  }

  GpuContext(const GpuContext &) = delete;
  GpuContext &operator=(const GpuContext &) = delete;
  void current() const { d->cuCtxSetCurrent(ctx); } // host threads each need the context
  const CudaDriver *d = nullptr;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  int index;
  std::string name, arch;
};

/// The context of a GPU backend (a peer of another).
const GpuContext &contextOf(Backend &b);

class GpuMemory final : public DeviceMemory {
public:
  explicit GpuMemory(const GpuContext &g) : g_(g) {}
  void *allocate(size_t bytes) override {
    g_.current();
    CUdeviceptr p = 0;
    g_.d->check(g_.d->cuMemAlloc(&p, std::max<size_t>(bytes, 1)),
                "cuMemAlloc of " + std::to_string(bytes) + " bytes");
    return reinterpret_cast<void *>(p);
  }
  void release(void *p) override {
    g_.current();
    g_.d->cuMemFree(reinterpret_cast<CUdeviceptr>(p));
  }
  void *allocateHost(size_t bytes, unsigned flags) override {
    g_.current();
    void *p = nullptr;
    g_.d->check(g_.d->cuMemHostAlloc(&p, std::max<size_t>(bytes, 1), flags),
                "cuMemHostAlloc of " + std::to_string(bytes) + " bytes");
    return p;
  }
  void releaseHost(void *p) override {
    g_.current();
    g_.d->cuMemFreeHost(p);
  }
  void registerHost(void *p, size_t bytes, unsigned flags) override {
    g_.current();
    g_.d->check(g_.d->cuMemHostRegister(p, bytes, flags),
                "cuMemHostRegister of " + std::to_string(bytes) + " bytes");
  }
  void unregisterHost(void *p) override {
    g_.current();
    g_.d->check(g_.d->cuMemHostUnregister(p), "cuMemHostUnregister");
  }
  void *hostDevicePointer(void *host) override {
    g_.current();
    CUdeviceptr d = 0;
    g_.d->check(g_.d->cuMemHostGetDevicePointer(&d, host, 0), "cuMemHostGetDevicePointer");
    return reinterpret_cast<void *>(d);
  }
  MemoryInfo memoryInfo() override {
    g_.current();
    MemoryInfo m;
    g_.d->check(g_.d->cuMemGetInfo(&m.free, &m.total), "cuMemGetInfo");
    return m;
  }
  IpcMemHandle ipcHandle(void *p) override {
    g_.current();
    IpcMemHandle h;
    CUdeviceptr base = 0;
    g_.d->check(g_.d->cuMemGetAddressRange(&base, &h.size, reinterpret_cast<CUdeviceptr>(p)),
                "cuMemGetAddressRange");
    h.base = reinterpret_cast<void *>(base);
    CUipcMemHandle raw;
    g_.d->check(g_.d->cuIpcGetMemHandle(&raw, base), "cuIpcGetMemHandle");
    h.bytes.assign(reinterpret_cast<uint8_t *>(&raw), reinterpret_cast<uint8_t *>(&raw) + sizeof raw);
    return h;
  }
  void *ipcOpen(const std::vector<uint8_t> &handle) override {
    g_.current();
    CUipcMemHandle raw;
    if (handle.size() != sizeof raw)
      throw DeviceError("an IPC handle has " + std::to_string(sizeof raw) + " bytes, not " +
                        std::to_string(handle.size()));
    std::memcpy(&raw, handle.data(), sizeof raw);
    CUdeviceptr p = 0;
    g_.d->check(g_.d->cuIpcOpenMemHandle(&p, raw, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), "cuIpcOpenMemHandle");
    return reinterpret_cast<void *>(p);
  }
  void ipcClose(void *base) override {
    g_.current();
    g_.d->check(g_.d->cuIpcCloseMemHandle(reinterpret_cast<CUdeviceptr>(base)), "cuIpcCloseMemHandle");
  }
  void copyToDevice(void *dst, const void *src, size_t n) override {
    g_.current();
    g_.d->check(g_.d->cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, n), "cuMemcpyHtoD");
  }
  void copyToHost(void *dst, const void *src, size_t n) override {
    g_.current();
    g_.d->check(g_.d->cuMemcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(src), n), "cuMemcpyDtoH");
  }
  void fill(void *dst, int byte, size_t n) override {
    g_.current();
    g_.d->check(g_.d->cuMemsetD8(reinterpret_cast<CUdeviceptr>(dst), (unsigned char)byte, n), "cuMemsetD8");
  }
  void copyOnDevice(void *dst, const void *src, size_t n) override {
    g_.current();
    g_.d->check(g_.d->cuMemcpyDtoD(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), n),
                "cuMemcpyDtoD");
  }
  void copyFromPeer(void *dst, Backend &source, const void *src, size_t n) override {
    g_.current();
    g_.d->check(g_.d->cuMemcpyPeer(reinterpret_cast<CUdeviceptr>(dst), g_.ctx,
                                   reinterpret_cast<CUdeviceptr>(src), contextOf(source).ctx, n),
                "cuMemcpyPeer");
  }

private:
  const GpuContext &g_;
};

/// Waits until `query` (cuStreamQuery, cuEventQuery) stops answering CUDA_ERROR_NOT_READY,
/// polling, so that Ctrl-C ends the wait (runtime/interrupt_scope.h): the GPU goes on with
/// the work, and the next synchronisation waits for it. The blocking call that follows
/// reports the work's errors.
void waitForGpu(const std::function<CUresult()> &query, const char *what) {
  rt::waitInterruptibly([&] { return query() != CUDA_ERROR_NOT_READY; },
                        [&] {
                          return std::string("interrupted (Ctrl-C) while waiting for the GPU (") + what +
                                 "); the work goes on there, and the next synchronisation waits for it";
                        });
}

class GpuStreams final : public DeviceStreams {
public:
  explicit GpuStreams(const GpuContext &g) : g_(g) {}
  ~GpuStreams() {
    if (allWork_) {
      g_.current();
      g_.d->cuEventDestroy(allWork_);
    }
  }
  void synchronize() override {
    g_.current();
    // An event on the legacy default stream completes after the work of every blocking
    // stream before it (all of cutwin's and numba's streams are blocking): waiting for it
    // is waiting for the context, interruptibly. Non-blocking streams are waited for by
    // cuCtxSynchronize itself. (Work queued on blocking streams after the record waits for
    // what came before it, as it would for any operation on the legacy stream.) Where the
    // event cannot be made or recorded - a context a kernel broke - cuCtxSynchronize says why.
    if (!allWork_ && g_.d->cuEventCreate(&allWork_, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
      allWork_ = nullptr;
    if (allWork_ && g_.d->cuEventRecord(allWork_, nullptr) == CUDA_SUCCESS)
      waitForGpu([&] { return g_.d->cuEventQuery(allWork_); }, "cuCtxSynchronize");
    CUresult r = g_.d->cuCtxSynchronize();
    if (r != CUDA_SUCCESS)
      throw DeviceError(
          "a kernel failed on the GPU: " + g_.d->describe(r) +
          (r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED
               ? " (the CUDA context is now unusable; run with bounds checks to locate the access)"
               : ""));
  }

  void *createStream() override {
    g_.current();
    CUstream s = nullptr;
    // A blocking stream, as numba creates them: it synchronises with the legacy default
    // stream, so a plain (synchronous) copy after a launch on it sees the kernel's writes.
    g_.d->check(g_.d->cuStreamCreate(&s, CU_STREAM_DEFAULT), "cuStreamCreate");
    return s;
  }
  void destroyStream(void *s) override {
    if (s)
      g_.d->cuStreamDestroy(static_cast<CUstream>(s));
  }
  void synchronizeStream(void *s) override {
    g_.current();
    waitForGpu([&] { return g_.d->cuStreamQuery(static_cast<CUstream>(s)); }, "cuStreamSynchronize");
    g_.d->check(g_.d->cuStreamSynchronize(static_cast<CUstream>(s)), "cuStreamSynchronize");
  }
  void *createEvent() override {
    g_.current();
    CUevent e = nullptr;
    g_.d->check(g_.d->cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
    return e;
  }
  void destroyEvent(void *e) override { g_.d->cuEventDestroy(static_cast<CUevent>(e)); }
  void recordEvent(void *e, void *stream) override {
    g_.current();
    g_.d->check(g_.d->cuEventRecord(static_cast<CUevent>(e), static_cast<CUstream>(stream)), "cuEventRecord");
  }
  void synchronizeEvent(void *e) override {
    g_.current();
    waitForGpu([&] { return g_.d->cuEventQuery(static_cast<CUevent>(e)); }, "cuEventSynchronize");
    g_.d->check(g_.d->cuEventSynchronize(static_cast<CUevent>(e)), "cuEventSynchronize");
  }
  float elapsedMilliseconds(void *a, void *b) override {
    float ms = 0;
    g_.d->check(g_.d->cuEventElapsedTime(&ms, static_cast<CUevent>(a), static_cast<CUevent>(b)),
                "cuEventElapsedTime");
    return ms;
  }

private:
  const GpuContext &g_;
  CUevent allWork_ = nullptr; ///< recorded on the legacy default stream by synchronize()
};

/// LLVM NVPTX or libNVVM to PTX, loaded as a CUDA module with the files it links.
class GpuCompiler final : public KernelCompiler {
public:
  explicit GpuCompiler(const GpuContext &g) : g_(g) {}
  std::unique_ptr<CompiledKernel> compile(ir::KernelIR ir, const PipelineOptions &opts,
                                          std::string *image) override {
    g_.current();
    size_t argBytes = ir.info.layout.size;
    std::vector<std::string> link = ir::resolveLinkedFiles(ir.info);
    gpu::GpuCompiled c = gpu::compileForGpu(std::move(ir), opts, g_.arch);
    c.link = std::move(link);
    if (image && c.ltoir.empty())
      *image = gpuImage(c);
    return loaded(c, argBytes);
  }
  std::unique_ptr<CompiledKernel> load(const std::string &image, const ir::KernelInfo &info) override {
    g_.current();
    gpu::GpuCompiled c = gpuImageCode(image);
    c.name = info.name;
    c.link = ir::resolveLinkedFiles(info); // linked when loaded, as compile() does
    return loaded(c, info.layout.size);
  }
  /// The PTX depends on the device's architecture and the toolkit (libdevice, libNVVM; LLVM's
  /// NVPTX is in the build's identity);
  /// what the driver makes of it, on the driver (which keeps its own cache of that).
  std::string codeIdentity() const override {
    int driver = 0;
    g_.d->cuDriverGetVersion(&driver);
    return "gpu;" + g_.arch + ";driver " + std::to_string(driver) + ";" + ir::libdeviceIdentity() + ";" +
           gpu::libnvvmIdentity();
  }

private:
  std::unique_ptr<CompiledKernel> loaded(const gpu::GpuCompiled &c, size_t argBytes) {
    int sms = 0;
    g_.d->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, g_.dev);
    return std::make_unique<GpuCompiledKernel>(*g_.d, g_.ctx, c, argBytes, sms, g_.arch);
  }
  static constexpr uint32_t kImageVersion = 1;
  static std::string gpuImage(const gpu::GpuCompiled &c) {
    ir::ByteWriter w;
    w.pod(kImageVersion);
    w.str(c.entry);
    w.str(c.ptx);
    w.flag(c.usesBarrier);
    w.flag(c.cooperative);
    return w.take();
  }
  static gpu::GpuCompiled gpuImageCode(const std::string &image) {
    ir::ByteReader r(image);
    if (r.pod<uint32_t>() != kImageVersion)
      throw Error("a GPU kernel image of another version");
    gpu::GpuCompiled c;
    c.entry = r.str();
    c.ptx = r.str();
    c.usesBarrier = r.flag();
    c.cooperative = r.flag();
    if (!r.atEnd())
      throw Error("a damaged GPU kernel image");
    return c;
  }

  const GpuContext &g_;
};

class GpuBackend : public Backend {
public:
  explicit GpuBackend(int index) : g_(index) {}

  std::string name() const override { return g_.name; }
  int ordinal() const override { return g_.index; }
  BackendCapabilities capabilities() const override { return {}; }
  bool canAccessPeer(Backend &peer) override {
    if (peer.capabilities().simulator || &peer == this)
      return false;
    int can = 0;
    g_.d->check(g_.d->cuDeviceCanAccessPeer(&can, g_.dev, contextOf(peer).dev), "cuDeviceCanAccessPeer");
    return can != 0;
  }
  void setPeerAccess(Backend &peer, bool enable) override {
    g_.current();
    CUcontext other = contextOf(peer).ctx;
    CUresult r = enable ? g_.d->cuCtxEnablePeerAccess(other, 0) : g_.d->cuCtxDisablePeerAccess(other);
    if (r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED && r != CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
      g_.d->check(r, enable ? "cuCtxEnablePeerAccess" : "cuCtxDisablePeerAccess");
  }
  const GpuContext &context() const { return g_; }

  std::optional<int64_t> attribute(const std::string &name) const override {
    static const std::pair<const char *, CUdevice_attribute> known[] = {
        {"MAX_THREADS_PER_BLOCK", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
        {"MAX_BLOCK_DIM_X", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X},
        {"MAX_BLOCK_DIM_Y", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y},
        {"MAX_BLOCK_DIM_Z", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z},
        {"MAX_GRID_DIM_X", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X},
        {"MAX_GRID_DIM_Y", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y},
        {"MAX_GRID_DIM_Z", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z},
        {"MAX_SHARED_MEMORY_PER_BLOCK", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
        {"MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
        {"MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
        {"RESERVED_SHARED_MEMORY_PER_BLOCK", CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK},
        {"TOTAL_CONSTANT_MEMORY", CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY},
        {"WARP_SIZE", CU_DEVICE_ATTRIBUTE_WARP_SIZE},
        {"MAX_REGISTERS_PER_BLOCK", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK},
        {"CLOCK_RATE", CU_DEVICE_ATTRIBUTE_CLOCK_RATE},
        {"MULTIPROCESSOR_COUNT", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
        {"MAX_THREADS_PER_MULTI_PROCESSOR", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
        {"MAX_BLOCKS_PER_MULTIPROCESSOR", CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR},
        {"COMPUTE_CAPABILITY_MAJOR", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
        {"COMPUTE_CAPABILITY_MINOR", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
        {"COOPERATIVE_LAUNCH", CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH},
        {"CONCURRENT_KERNELS", CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS},
        {"UNIFIED_ADDRESSING", CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING},
        {"CAN_MAP_HOST_MEMORY", CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY},
        {"INTEGRATED", CU_DEVICE_ATTRIBUTE_INTEGRATED},
        {"ECC_ENABLED", CU_DEVICE_ATTRIBUTE_ECC_ENABLED},
        {"ASYNC_ENGINE_COUNT", CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT},
        {"PCI_BUS_ID", CU_DEVICE_ATTRIBUTE_PCI_BUS_ID},
        {"PCI_DEVICE_ID", CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID},
        {"PCI_DOMAIN_ID", CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID},
        {"L2_CACHE_SIZE", CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
        {"MEMORY_CLOCK_RATE", CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE},
        {"GLOBAL_MEMORY_BUS_WIDTH", CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH},
        {"MANAGED_MEMORY", CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY},
    };
    for (auto &[n, a] : known)
      if (name == n) {
        int v = 0;
        g_.d->check(g_.d->cuDeviceGetAttribute(&v, a, g_.dev), "cuDeviceGetAttribute(" + name + ")");
        return v;
      }
    return std::nullopt;
  }

  DeviceMemory &memory() override { return memory_; }
  DeviceStreams &streams() override { return streams_; }
  KernelCompiler &compiler() override { return compiler_; }

private:
  GpuContext g_;
  GpuMemory memory_{g_};
  GpuStreams streams_{g_};
  GpuCompiler compiler_{g_};
};

const GpuContext &contextOf(Backend &b) { return dynamic_cast<GpuBackend &>(b).context(); }

} // namespace

std::unique_ptr<Backend> createGpuBackend(int index) { return std::make_unique<GpuBackend>(index); }

int gpuDeviceCount() {
  const gpu::CudaDriver *d = gpu::CudaDriver::get();
  int count = 0;
  if (!d || d->cuDeviceGetCount(&count) != CUDA_SUCCESS)
    return 0;
  return count;
}

} // namespace cutwin::rt
