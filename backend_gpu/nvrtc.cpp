#include "backend_gpu/nvrtc.h"

#include "backend_gpu/toolkit_library.h"
#include "cutwin/errors.h"

#include <nvrtc.h>

#include <filesystem>
#include <mutex>
#include <vector>

namespace cutwin::gpu {

namespace {

struct Libnvrtc {
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetPTXSize) ptxSize = nullptr;
  decltype(&nvrtcGetPTX) ptx = nullptr;
  decltype(&nvrtcGetProgramLogSize) logSize = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetErrorString) errorString = nullptr;
  std::string error;
  std::string include; ///< the toolkit's include directory (cuda_fp16.h and friends)
  std::string cccl;    ///< its libcu++/CUB/Thrust headers where CUDA 13 keeps them apart (include/cccl)
};

const Libnvrtc &lib() {
  static std::once_flag once;
  static Libnvrtc l;
  std::call_once(once, [] {
    void *h = openToolkitLibrary(
        "CUTWIN_LIBNVRTC",
        {"/lib64/libnvrtc.so", "/lib/libnvrtc.so", "/targets/x86_64-linux/lib/libnvrtc.so"},
        {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"});
    if (!h) {
      l.error = "NVRTC not found (set CUTWIN_LIBNVRTC to the toolkit's libnvrtc.so)";
      return;
    }
    SymbolBinder bind(h, "NVRTC");
    bind(l.create, "nvrtcCreateProgram");
    bind(l.destroy, "nvrtcDestroyProgram");
    bind(l.compile, "nvrtcCompileProgram");
    bind(l.ptxSize, "nvrtcGetPTXSize");
    bind(l.ptx, "nvrtcGetPTX");
    bind(l.logSize, "nvrtcGetProgramLogSize");
    bind(l.log, "nvrtcGetProgramLog");
    bind(l.errorString, "nvrtcGetErrorString");
    if (!bind.error().empty()) {
      l.error = bind.error();
      return;
    }
    l.include = std::string(toolkitHome()) + "/include";
    if (std::filesystem::is_directory(l.include + "/cccl")) // curand_kernel.h includes <cuda/std/...>
      l.cccl = l.include + "/cccl";
  });
  return l;
}

} // namespace

bool nvrtcAvailable(std::string *whyNot) {
  const Libnvrtc &l = lib();
  if (whyNot)
    *whyNot = l.error;
  return l.error.empty();
}

std::string compileCudaToPtx(const std::string &source, const std::string &path, const std::string &arch) {
  const Libnvrtc &l = lib();
  if (!l.error.empty())
    throw Error("cannot compile " + path + ": " + l.error);
  nvrtcProgram prog = nullptr;
  if (nvrtcResult r = l.create(&prog, source.c_str(), path.c_str(), 0, nullptr, nullptr); r != NVRTC_SUCCESS)
    throw Error("NVRTC: " + std::string(l.errorString(r)));
  struct Destroy {
    const Libnvrtc &l;
    nvrtcProgram &p;
    ~Destroy() { l.destroy(&p); }
  } destroy{l, prog};
  std::string dir = ".";
  if (auto slash = path.rfind('/'); slash != std::string::npos)
    dir = path.substr(0, slash);
  std::string archOpt = "--gpu-architecture=compute_" + arch.substr(3);
  std::string inc = "-I" + dir, sysinc = "-I" + l.include, cccl = "-I" + l.cccl;
  // No contraction (-fmad=false), as on the simulator's CPU: write fma() where one is meant.
  std::vector<const char *> opts = {archOpt.c_str(), "-rdc=true", "-default-device",
                                    "-fmad=false",   inc.c_str(), sysinc.c_str()};
  if (!l.cccl.empty())
    opts.push_back(cccl.c_str());
  nvrtcResult r = l.compile(prog, static_cast<int>(opts.size()), opts.data());
  if (r != NVRTC_SUCCESS) {
    size_t n = 0;
    l.logSize(prog, &n);
    std::string log(n, '\0');
    if (n)
      l.log(prog, log.data());
    std::string msg = "NVRTC could not compile " + path + " (linked with link=[...]):\n" + log;
    throw CompileError(path, {}, msg, msg);
  }
  size_t size = 0;
  l.ptxSize(prog, &size);
  std::string ptx(size, '\0');
  l.ptx(prog, ptx.data());
  while (!ptx.empty() && ptx.back() == '\0')
    ptx.pop_back();
  return ptx;
}

} // namespace cutwin::gpu
