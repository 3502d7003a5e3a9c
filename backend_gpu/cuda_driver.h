/// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"), so that cutwin
/// builds and runs (simulator, tests) where no driver exists and reports "no GPU"
/// cleanly instead of failing to start.
#pragma once

#include <cuda.h>

#include <string>

namespace cutwin::gpu {

struct CudaDriver {
  /// The loaded driver, or null if it cannot be loaded (loadError() says why).
  static const CudaDriver *get();
  static const std::string &loadError();

  /// Throws DeviceError "<what>: CUDA_ERROR_X (description)" unless r is CUDA_SUCCESS.
  void check(CUresult r, const std::string &what) const;
  std::string describe(CUresult r) const;

#define CUTWIN_CUDA_FUNCTIONS(X)                                                                             \
  X(cuInit, CUresult (*)(unsigned))                                                                          \
  X(cuDriverGetVersion, CUresult (*)(int *))                                                                 \
  X(cuDeviceGetCount, CUresult (*)(int *))                                                                   \
  X(cuDeviceGet, CUresult (*)(CUdevice *, int))                                                              \
  X(cuDeviceGetName, CUresult (*)(char *, int, CUdevice))                                                    \
  X(cuDeviceGetAttribute, CUresult (*)(int *, CUdevice_attribute, CUdevice))                                 \
  X(cuDevicePrimaryCtxRetain, CUresult (*)(CUcontext *, CUdevice))                                           \
  X(cuDevicePrimaryCtxRelease, CUresult (*)(CUdevice))                                                       \
  X(cuCtxSetCurrent, CUresult (*)(CUcontext))                                                                \
  X(cuCtxSynchronize, CUresult (*)())                                                                        \
  X(cuMemAlloc, CUresult (*)(CUdeviceptr *, size_t))                                                         \
  X(cuMemFree, CUresult (*)(CUdeviceptr))                                                                    \
  X(cuMemcpyHtoD, CUresult (*)(CUdeviceptr, const void *, size_t))                                           \
  X(cuMemcpyDtoH, CUresult (*)(void *, CUdeviceptr, size_t))                                                 \
  X(cuMemcpyDtoD, CUresult (*)(CUdeviceptr, CUdeviceptr, size_t))                                            \
  X(cuMemsetD8, CUresult (*)(CUdeviceptr, unsigned char, size_t))                                            \
  X(cuMemcpyPeer, CUresult (*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t))                      \
  X(cuDeviceCanAccessPeer, CUresult (*)(int *, CUdevice, CUdevice))                                          \
  X(cuCtxEnablePeerAccess, CUresult (*)(CUcontext, unsigned))                                                \
  X(cuCtxDisablePeerAccess, CUresult (*)(CUcontext))                                                         \
  X(cuModuleLoadDataEx, CUresult (*)(CUmodule *, const void *, unsigned, CUjit_option *, void **))           \
  X(cuModuleUnload, CUresult (*)(CUmodule))                                                                  \
  X(cuLinkCreate, CUresult (*)(unsigned, CUjit_option *, void **, CUlinkState *))                            \
  X(cuLinkAddData, CUresult (*)(CUlinkState, CUjitInputType, void *, size_t, const char *, unsigned,         \
                                CUjit_option *, void **))                                                    \
  X(cuLinkAddFile,                                                                                           \
    CUresult (*)(CUlinkState, CUjitInputType, const char *, unsigned, CUjit_option *, void **))              \
  X(cuLinkComplete, CUresult (*)(CUlinkState, void **, size_t *))                                            \
  X(cuLinkDestroy, CUresult (*)(CUlinkState))                                                                \
  X(cuMemHostAlloc, CUresult (*)(void **, size_t, unsigned))                                                 \
  X(cuMemFreeHost, CUresult (*)(void *))                                                                     \
  X(cuMemHostGetDevicePointer, CUresult (*)(CUdeviceptr *, void *, unsigned))                                \
  X(cuMemHostRegister, CUresult (*)(void *, size_t, unsigned))                                               \
  X(cuMemHostUnregister, CUresult (*)(void *))                                                               \
  X(cuMemGetInfo, CUresult (*)(size_t *, size_t *))                                                          \
  X(cuMemGetAddressRange, CUresult (*)(CUdeviceptr *, size_t *, CUdeviceptr))                                \
  X(cuIpcGetMemHandle, CUresult (*)(CUipcMemHandle *, CUdeviceptr))                                          \
  X(cuIpcOpenMemHandle, CUresult (*)(CUdeviceptr *, CUipcMemHandle, unsigned))                               \
  X(cuIpcCloseMemHandle, CUresult (*)(CUdeviceptr))                                                          \
  X(cuModuleGetFunction, CUresult (*)(CUfunction *, CUmodule, const char *))                                 \
  X(cuFuncGetAttribute, CUresult (*)(int *, CUfunction_attribute, CUfunction))                               \
  X(cuFuncSetAttribute, CUresult (*)(CUfunction, CUfunction_attribute, int))                                 \
  X(cuLaunchKernel, CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,     \
                                 unsigned, CUstream, void **, void **))                                      \
  X(cuLaunchKernelEx, CUresult (*)(const CUlaunchConfig *, CUfunction, void **, void **))                    \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, CUresult (*)(int *, CUfunction, int, size_t))               \
  X(cuStreamCreate, CUresult (*)(CUstream *, unsigned))                                                      \
  X(cuStreamDestroy, CUresult (*)(CUstream))                                                                 \
  X(cuStreamSynchronize, CUresult (*)(CUstream))                                                             \
  X(cuStreamQuery, CUresult (*)(CUstream))                                                                   \
  X(cuEventCreate, CUresult (*)(CUevent *, unsigned))                                                        \
  X(cuEventDestroy, CUresult (*)(CUevent))                                                                   \
  X(cuEventRecord, CUresult (*)(CUevent, CUstream))                                                          \
  X(cuEventSynchronize, CUresult (*)(CUevent))                                                               \
  X(cuEventQuery, CUresult (*)(CUevent))                                                                     \
  X(cuEventElapsedTime, CUresult (*)(float *, CUevent, CUevent))                                             \
  X(cuGetErrorName, CUresult (*)(CUresult, const char **))                                                   \
  X(cuGetErrorString, CUresult (*)(CUresult, const char **))

#define CUTWIN_DECLARE(name, type)                                                                           \
  using name##_fn = type;                                                                                    \
  name##_fn name = nullptr;
  CUTWIN_CUDA_FUNCTIONS(CUTWIN_DECLARE)
#undef CUTWIN_DECLARE
};

} // namespace cutwin::gpu
