/// The one argument ABI both backends take: a packed buffer laid out like a C struct of
/// the kernel's flattened parameters. Scalars by value (bool as one byte); each array as
/// {data pointer, shape[ndim], strides[ndim]} (int64, strides in bytes); tuples flattened
/// in order; last, a hidden pointer to the launch's error record. The same layout is the
/// kernel's parameter list in the IR, so on the GPU the buffer can be handed to
/// cuLaunchKernel as CU_LAUNCH_PARAM_BUFFER_POINTER. See docs/abi.md.
#pragma once

#include "frontend/sema/types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cutwin::ir {

struct ParamSlot {
  enum class Role { Scalar, Data, Shape, Stride, ErrorRecord };
  Role role = Role::Scalar;
  unsigned arg = 0;                    ///< index of the Python-level argument (ErrorRecord: args.size())
  std::vector<unsigned> path;          ///< element path inside tuple arguments
  unsigned dim = 0;                    ///< Shape/Stride: which dimension
  fe::Scalar scalar = fe::Scalar::I64; ///< Scalar: its type; Data/Shape/Stride: the element type
  bool pointer = false;                ///< Data/Shape/Stride of a CPointer: the host passes an address
  uint32_t offset = 0, size = 0, align = 0;
};

struct ArgLayout {
  std::vector<ParamSlot> slots;
  uint32_t size = 0; ///< bytes, rounded up to `align`
  uint32_t align = 8;
};

/// Lays out the parameters of a kernel taking `argTypes` (Scalar, Array or Tuple of those).
ArgLayout computeArgLayout(const std::vector<fe::Type> &argTypes);

} // namespace cutwin::ir
