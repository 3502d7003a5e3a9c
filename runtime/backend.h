/// What a device backend provides to the runtime: memory, compilation of kernel IR to
/// something launchable, and launches that fill the error record.
#pragma once

#include "cutwin/cutwin.h"
#include "frontend/ir/error_record.h"
#include "frontend/ir/kernel_ir.h"
#include "frontend/ir/step_runner.h"

#include <memory>
#include <optional>
#include <string>

namespace cutwin::rt {

using ir::PipelineOptions;

class Backend;

/// A fault of a launch the backend can say more about than its error record holds (the
/// simulator's sanitizer: both accesses of a data race): where and what, in words.
struct FaultReport {
  std::string file, function;
  SourceLoc loc;
  std::string detail;
};

class CompiledKernel {
public:
  virtual ~CompiledKernel() = default;
  /// Runs the kernel to completion. `args` is the packed argument buffer (docs/abi.md);
  /// faults are reported in `err` (device memory, zeroed by the caller). `timeoutSeconds`:
  /// the watchdog's limit for this launch where the backend has one (0: its default).
  virtual void launch(Dim3 grid, Dim3 block, uint64_t sharedBytes, const void *args, ir::ErrorRecord *err,
                      void *stream, double timeoutSeconds) = 0;
  /// Where the threads were when Ctrl-C or the watchdog stopped this host thread's last
  /// launch of the kernel, in words (empty where the backend cannot tell).
  virtual std::string stopReport() const { return {}; }
  /// What the sanitizer found, if this host thread's last launch of the kernel ended with a
  /// DataRace or UninitializedRead.
  virtual std::optional<FaultReport> faultReport() const { return std::nullopt; }
  /// The most blocks of `block` threads that can be resident at once with this kernel:
  /// the largest grid a cooperative launch (one that syncs the grid) may have.
  virtual uint64_t maxCooperativeBlocks(Dim3 block, uint64_t sharedBytes) = 0;
  /// The loaded code's handle (the GPU's CUmodule); null on the simulator.
  virtual void *moduleHandle() const { return nullptr; }
  /// Registers, shared, local and constant memory, thread limit (see KernelAttributes).
  virtual KernelAttributes attributes() const = 0;
};

/// What a backend is like, where the runtime's behaviour depends on it (rather than on
/// which backend it is).
struct BackendCapabilities {
  bool simulator = false; ///< Device::isSimulator(): the CPU simulator (reported, not branched on)
  /// Device memory is host memory: the host may write it in place (RNG states) and read
  /// the error records without a copy.
  bool hostAddressableMemory = false;
  /// A launch has run to completion when launch() returns: its faults are reported there.
  bool synchronousLaunches = false;
  /// Kernels keep full debug info (DWARF variables for gdb); otherwise line directives
  /// only, since full debug info makes the GPU's driver compile PTX unoptimised.
  bool fullDebugInfo = false;
  /// Bounds checks default: on for the simulator, off on the GPU (numba-cuda's default).
  bool boundscheckByDefault = false;
  /// Kernels compiled with `sanitize=` run the sanitizer's checks (docs/sanitizers.md); a
  /// backend without them compiles such kernels as any other.
  bool sanitizers = false;
  /// Compiled kernels are kept on disk unless a module or CUTWIN_CACHE=0 says not to
  /// (runtime/kernel_cache.h); otherwise only for modules that ask (numba's cache=True).
  bool cachesKernelsByDefault = false;
};

/// Device memory, and the host memory the device reaches (pinned, mapped, IPC): the
/// allocator side of a backend.
class DeviceMemory {
public:
  virtual ~DeviceMemory() = default;
  virtual void *allocate(size_t bytes) = 0;
  virtual void release(void *p) = 0;
  virtual void copyToDevice(void *dst, const void *src, size_t bytes) = 0;
  virtual void copyToHost(void *dst, const void *src, size_t bytes) = 0;
  virtual void fill(void *dst, int byte, size_t bytes) = 0;
  virtual void copyOnDevice(void *dst, const void *src, size_t bytes) = 0;
  /// Copies from another device of this backend's kind (`source`; a GPU to a GPU, a
  /// simulated device to a simulated one): cuMemcpyPeer.
  virtual void copyFromPeer(void *dst, Backend &source, const void *src, size_t bytes) = 0;
  /// The host wrote [p, p + bytes) of device memory in place (hostAddressableMemory): the
  /// simulator's sanitizer counts those bytes written.
  virtual void writtenInPlace(void *p, size_t bytes) { (void)p, (void)bytes; }
  /// Host memory (Device::allocateHost and friends; plain memory on the simulator).
  virtual void *allocateHost(size_t bytes, unsigned flags) = 0;
  virtual void releaseHost(void *p) = 0;
  virtual void registerHost(void *p, size_t bytes, unsigned flags) = 0;
  virtual void unregisterHost(void *p) = 0;
  virtual void *hostDevicePointer(void *host) = 0;
  virtual MemoryInfo memoryInfo() = 0;
  virtual IpcMemHandle ipcHandle(void *p) = 0;
  virtual void *ipcOpen(const std::vector<uint8_t> &handle) = 0;
  virtual void ipcClose(void *base) = 0;
};

/// Streams and events (opaque handles; null is the default stream), and waiting for the
/// whole device. The simulator runs every launch to completion, so its streams are
/// ordered trivially and its events read the host clock.
class DeviceStreams {
public:
  virtual ~DeviceStreams() = default;
  /// Waits for all work on the device; throws DeviceError if a kernel failed.
  virtual void synchronize() = 0;
  virtual void *createStream() = 0;
  virtual void destroyStream(void *s) = 0;
  virtual void synchronizeStream(void *s) = 0;
  virtual void *createEvent() = 0;
  virtual void destroyEvent(void *e) = 0;
  virtual void recordEvent(void *e, void *stream) = 0;
  virtual void synchronizeEvent(void *e) = 0;
  virtual float elapsedMilliseconds(void *start, void *end) = 0;
};

/// Kernel IR to a program the device can launch: the compiler side of a backend.
class KernelCompiler {
public:
  virtual ~KernelCompiler() = default;
  /// With `image`, also hands back the kernel as bytes load() makes it from in another
  /// process (for the kernel cache on disk); left empty for a kernel that cannot be kept.
  virtual std::unique_ptr<CompiledKernel> compile(ir::KernelIR ir, const PipelineOptions &opts,
                                                  std::string *image) = 0;
  /// The kernel compile() handed back as `image`, with its KernelInfo; Error if the image
  /// is not one this compiler can load.
  virtual std::unique_ptr<CompiledKernel> load(const std::string &image, const ir::KernelInfo &info) = 0;
  /// What the code compile() makes depends on besides the kernel and its options (the
  /// target, the toolkit, modes of the backend): part of the kernel cache's keys.
  virtual std::string codeIdentity() const = 0;
};

/// A device as the runtime sees it: what it is (name, capabilities, attributes) and its
/// three sides, memory, streams and the compiler; the programs it makes are
/// CompiledKernels.
class Backend {
public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  /// The device's number among those of its kind ("sim:N", "gpu:N").
  virtual int ordinal() const = 0;
  virtual BackendCapabilities capabilities() const = 0;
  /// Whether kernels of this device can reach `peer`'s memory once peer access is enabled.
  virtual bool canAccessPeer(Backend &peer) = 0;
  /// Enables or disables that access (the runtime keeps track of which is in force).
  virtual void setPeerAccess(Backend &peer, bool enable) = 0;
  /// Device::attribute: the value of a CUDA device attribute by name, or nullopt.
  virtual std::optional<int64_t> attribute(const std::string &name) const = 0;

  virtual DeviceMemory &memory() = 0;
  virtual DeviceStreams &streams() = 0;
  virtual KernelCompiler &compiler() = 0;
};

/// Simulated device `ordinal`.
std::unique_ptr<Backend> createSimBackend(int ordinal);
/// The CUDA device `index`; throws DeviceError if there is no driver or no such GPU.
std::unique_ptr<Backend> createGpuBackend(int index);
/// The GPUs the driver lists; 0 without a driver.
int gpuDeviceCount();

} // namespace cutwin::rt
