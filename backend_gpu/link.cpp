#include "backend_gpu/link.h"

#include "backend_gpu/nvrtc.h"
#include "cutwin/errors.h"

#include <fstream>
#include <sstream>

namespace cutwin::gpu {

namespace {

std::string extension(const std::string &path) {
  auto dot = path.rfind('.');
  auto slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return "";
  return path.substr(dot + 1);
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

CUmodule loadLinkedModule(const CudaDriver &d, const std::string &ptx, const std::vector<std::string> &files,
                          const std::string &arch, const std::string &kernel) {
  char info[8192] = {}, err[8192] = {};
  CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {info, reinterpret_cast<void *>(sizeof info), err, reinterpret_cast<void *>(sizeof err)};
  CUlinkState state = nullptr;
  d.check(d.cuLinkCreate(4, opts, values, &state), "kernel '" + kernel + "': cuLinkCreate");
  struct Destroy {
    const CudaDriver &d;
    CUlinkState s;
    ~Destroy() { d.cuLinkDestroy(s); }
  } destroy{d, state};
  auto fail = [&](CUresult r, const std::string &what) {
    throw CompileError("", {}, "",
                       "linking kernel '" + kernel + "': " + what + ": " + d.describe(r) + "\n" + err);
  };
  std::string self = ptx;
  if (CUresult r = d.cuLinkAddData(state, CU_JIT_INPUT_PTX, self.data(), self.size() + 1, kernel.c_str(), 0,
                                   nullptr, nullptr);
      r != CUDA_SUCCESS)
    fail(r, "its own PTX");
  for (const std::string &f : files) {
    std::string ext = extension(f);
    CUresult r;
    if (ext == "cu") {
      std::string code = compileCudaToPtx(readFile(f), f, arch);
      r = d.cuLinkAddData(state, CU_JIT_INPUT_PTX, code.data(), code.size() + 1, f.c_str(), 0, nullptr,
                          nullptr);
    } else if (ext == "ptx") {
      r = d.cuLinkAddFile(state, CU_JIT_INPUT_PTX, f.c_str(), 0, nullptr, nullptr);
    } else if (ext == "cubin") {
      r = d.cuLinkAddFile(state, CU_JIT_INPUT_CUBIN, f.c_str(), 0, nullptr, nullptr);
    } else if (ext == "fatbin") {
      r = d.cuLinkAddFile(state, CU_JIT_INPUT_FATBINARY, f.c_str(), 0, nullptr, nullptr);
    } else if (ext == "o") {
      r = d.cuLinkAddFile(state, CU_JIT_INPUT_OBJECT, f.c_str(), 0, nullptr, nullptr);
    } else if (ext == "a") {
      r = d.cuLinkAddFile(state, CU_JIT_INPUT_LIBRARY, f.c_str(), 0, nullptr, nullptr);
    } else {
      throw Error("kernel '" + kernel + "': cannot link " + f +
                  " (expected a .cu, .ptx, .cubin, .fatbin, .o or .a file)");
    }
    if (r != CUDA_SUCCESS)
      fail(r, f);
  }
  void *cubin = nullptr;
  size_t size = 0;
  if (CUresult r = d.cuLinkComplete(state, &cubin, &size); r != CUDA_SUCCESS)
    fail(r, "completing the link");
  CUmodule module = nullptr;
  d.check(d.cuModuleLoadDataEx(&module, cubin, 0, nullptr, nullptr),
          "kernel '" + kernel + "': loading the linked code");
  return module;
}

} // namespace cutwin::gpu
