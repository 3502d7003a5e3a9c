#include "backend_gpu/cuda_driver.h"

#include "backend_gpu/toolkit_library.h"
#include "cutwin/errors.h"

#include <dlfcn.h>

#include <mutex>

namespace cutwin::gpu {

namespace {

std::string &error() {
  static std::string e;
  return e;
}

/// Versioned entry points the header maps the plain names to (cuda.h's #defines).
const char *symbolName(const char *name) {
  static const std::pair<const char *, const char *> v2[] = {
      {"cuMemAlloc", "cuMemAlloc_v2"},
      {"cuMemFree", "cuMemFree_v2"},
      {"cuMemcpyHtoD", "cuMemcpyHtoD_v2"},
      {"cuMemcpyDtoH", "cuMemcpyDtoH_v2"},
      {"cuMemcpyDtoD", "cuMemcpyDtoD_v2"},
      {"cuMemsetD8", "cuMemsetD8_v2"},
      {"cuStreamDestroy", "cuStreamDestroy_v2"},
      {"cuEventDestroy", "cuEventDestroy_v2"},
      {"cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2"},
      {"cuLinkCreate", "cuLinkCreate_v2"},
      {"cuLinkAddData", "cuLinkAddData_v2"},
      {"cuLinkAddFile", "cuLinkAddFile_v2"},
      {"cuMemHostGetDevicePointer", "cuMemHostGetDevicePointer_v2"},
      {"cuMemHostRegister", "cuMemHostRegister_v2"},
      {"cuMemGetInfo", "cuMemGetInfo_v2"},
      {"cuIpcOpenMemHandle", "cuIpcOpenMemHandle_v2"},
      {"cuMemGetAddressRange", "cuMemGetAddressRange_v2"},
  };
  for (auto &[plain, versioned] : v2)
    if (std::string(name) == plain)
      return versioned;
  return name;
}

CudaDriver *load() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    error() = std::string("cannot load the CUDA driver (libcuda.so.1): ") + dlerror();
    return nullptr;
  }
  auto *d = new CudaDriver();
  SymbolBinder bind(lib, "the CUDA driver");
#define CUTWIN_LOAD(name, type) bind(d->name, symbolName(#name));
  CUTWIN_CUDA_FUNCTIONS(CUTWIN_LOAD)
#undef CUTWIN_LOAD
  if (!bind.error().empty()) {
    error() = bind.error();
    delete d;
    return nullptr;
  }
  if (CUresult r = d->cuInit(0); r != CUDA_SUCCESS) {
    error() = "cuInit failed: " + d->describe(r);
    delete d;
    return nullptr;
  }
  return d;
}

} // namespace

const CudaDriver *CudaDriver::get() {
  static std::once_flag once;
  static CudaDriver *driver = nullptr;
  std::call_once(once, [] { driver = load(); });
  return driver;
}

const std::string &CudaDriver::loadError() { return error(); }

std::string CudaDriver::describe(CUresult r) const {
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  return std::string(name ? name : "CUDA_ERROR") + " (" + (text ? text : "unknown error") + ")";
}

void CudaDriver::check(CUresult r, const std::string &what) const {
  if (r != CUDA_SUCCESS)
    throw DeviceError(what + ": " + describe(r));
}

} // namespace cutwin::gpu
