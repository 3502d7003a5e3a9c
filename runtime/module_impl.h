/// A kernel module compiled for one device: the parsed file and, per kernel and argument
/// type tuple, the compiled kernel (numba's dispatcher).
#pragma once

#include "cutwin/cutwin.h"
#include "runtime/backend.h"
#include "runtime/pipeline.h"

#include <atomic>
#include <map>
#include <mutex>

namespace cutwin::rt {

/// Whether a debugger traces this process now (Linux: TracerPid in /proc/self/status).
/// Debug kernels compiled then get KernelInfo::debuggerView; without one they keep the
/// faster code (the prompt's stepping needs no such thing: it steps by line events).
bool debuggerAttached();

class ModuleImpl {
public:
  /// `inputs`: the module's digest for the kernel cache (cache_key.h), empty where it is
  /// not used.
  ModuleImpl(std::shared_ptr<Device> dev, std::shared_ptr<const fe::SourceFile> file, CompileOptions opts,
             const fe::HostBindings &host, std::string inputs);
  ModuleImpl(std::shared_ptr<Device> dev, const std::vector<HostSource> &sources, CompileOptions opts,
             std::string inputs);

  void launch(const std::string &kernel, Dim3 grid, Dim3 block, const std::vector<Arg> &args,
              uint64_t sharedBytes, void *stream, double timeoutSeconds = 0);
  const Device &device() const { return *device_; }
  std::shared_ptr<Device> sharedDevice() const { return device_; }
  std::string ir(const std::string &kernel, const std::vector<Arg> &args);
  std::map<std::string, std::string> localTypes(const std::string &kernel, const std::vector<Arg> &args);
  uint64_t maxCooperativeBlocks(const std::string &kernel, const std::vector<Arg> &args, Dim3 block,
                                uint64_t sharedBytes);
  /// The same for the kernel's latest compiled specialization; throws if there is none.
  uint64_t maxCooperativeBlocks(const std::string &kernel, Dim3 block, uint64_t sharedBytes);
  std::string ptx(const std::string &kernel, const std::vector<Arg> &args, const std::string &arch);
  CompiledFunction compileFunction(const std::string &name, const FunctionCompileRequest &request);
  /// The signatures of `kernel`'s specializations, in compilation order: all, or only those
  /// loaded from the kernel cache.
  std::vector<std::vector<std::string>> compiledSignatures(const std::string &kernel,
                                                           bool cachedOnly = false);
  std::vector<std::string> takeWarnings();
  KernelAttributes attributes(const std::string &kernel, const std::vector<Arg> &args);
  void setLoadHook(Module::LoadHook hook) { loadHook_ = std::move(hook); }
  bool cachesKernels() const { return !inputs_.empty(); }
  ~ModuleImpl();
  std::vector<std::string> kernelNames() const { return parsed_->scope().kernelNames(); }
  const fe::ModuleScope &scope() const { return parsed_->scope(); }

private:
  struct Compiled {
    std::string kernelName;
    std::shared_ptr<const ir::KernelInfo> info;
    std::unique_ptr<CompiledKernel> kernel;
    bool fromCache = false; ///< loaded from the kernel cache on disk
  };
  /// The argument types the kernel is compiled for: the launch's, or the matching
  /// declared signature.
  std::vector<fe::Type> formalTypes(const std::string &kernel, const std::vector<Arg> &args) const;
  Compiled &compiled(const std::string &kernel, const std::vector<fe::Type> &types);
  /// The kernel from the cache on disk, or compiled (and kept there where the cache is on).
  std::unique_ptr<Compiled> compileOrLoad(const std::string &kernel, const std::vector<fe::Type> &types);
  PipelineOptions pipelineOptions() const;

  std::shared_ptr<Device> device_;
  std::shared_ptr<ParsedModule> parsed_;
  CompileOptions opts_;
  std::string inputs_; ///< the kernel cache's digest of the module (empty: the cache is off)
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Compiled>> cache_;
  std::map<std::string, Compiled *> lastCompiled_; ///< by kernel name: its latest specialization
  /// By kernel name: the argument types of its latest lookup and what they found, so that
  /// repeated launches of one specialization skip building the cache's key.
  std::map<std::string, std::pair<std::vector<fe::Type>, Compiled *>, std::less<>> lastLookup_;
  std::vector<const Compiled *> order_;      ///< every specialization, in compilation order
  std::vector<std::string> pendingWarnings_; ///< compiled kernels' warnings not yet taken
  std::atomic<bool> hasWarnings_{false};
  Module::LoadHook loadHook_;
};

} // namespace cutwin::rt
