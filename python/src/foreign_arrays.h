/// Kernel arguments from other libraries' arrays, used in place without a copy: the CUDA
/// Array Interface (CuPy, PyTorch, numba's arrays, ...) and DLPack (JAX, PyTorch, anything
/// with __dlpack__). Read in C++ at launch, so that a foreign array costs about what one
/// of cutwin's own does (docs/python.md, "Foreign arrays").
#pragma once

#include "cutwin/cutwin.h"

#include <nanobind/nanobind.h>

#include <optional>

namespace cutwin::py {

/// What a launch knows that foreign arrays depend on.
struct ForeignContext {
  std::shared_ptr<Device> device; ///< the kernel's device: the arrays are wrapped on it
  const Stream *stream = nullptr; ///< the launch's stream (null: the legacy default stream)
  /// numba's CUDA_ARRAY_INTERFACE_SYNC: wait for the stream an interface names before use
  /// (unless the launch's own stream orders the work already).
  bool interfaceSync = true;
};

/// `obj` as a device array, if it exports the CUDA Array Interface or DLPack; nullopt if
/// it exports neither. Errors (a mask, an array on another device, host memory on a GPU)
/// are raised as Python exceptions.
std::optional<DeviceArray> foreignArray(nanobind::handle obj, const ForeignContext &ctx);

/// `cuda.from_dlpack`'s core: a DLPack producer (or capsule) as a device array of `device`,
/// the producer's work ordered before `stream` (null: the legacy default stream).
DeviceArray fromDlpack(nanobind::handle obj, const std::shared_ptr<Device> &device,
                       const Stream *stream = nullptr);

/// A DLPack export of `a` (nanobind's ndarray object, whose __dlpack__ makes the capsule):
/// CUDA memory of GPU N on a GPU, CPU memory on the simulator (its device memory is host
/// memory, which NumPy and PyTorch then use in place).
nanobind::object dlpackView(const DeviceArray &a);

} // namespace cutwin::py
