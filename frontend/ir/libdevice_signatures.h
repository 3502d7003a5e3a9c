/// The signatures of libdevice's functions, read from the toolkit's libdevice.10.bc, for
/// kernels that call them directly as numba-cuda's `numba.cuda.libdevice` module offers
/// them: `libdevice.sincosf(x)` calls `__nv_sincosf`. numba-cuda's bindings type every
/// integer as signed (int16/int32/int64, as LLVM gives no signedness) and return pointer
/// parameters as results: the function's value (unless void) then each output, a tuple
/// when there are two or more.
#pragma once

#include <string>
#include <vector>

namespace cutwin::ir {

enum class LibdeviceType { Void, I16, I32, I64, F32, F64 };

struct LibdeviceParam {
  LibdeviceType type;
  bool output; ///< a pointer the function stores its result through
};

struct LibdeviceSignature {
  LibdeviceType ret;
  std::vector<LibdeviceParam> params;
};

/// The signature of `__nv_<name>`; null where libdevice has no such function or one the
/// bindings cannot express (a pointer it reads, a type other than the above). Throws Error
/// if libdevice cannot be read.
const LibdeviceSignature *libdeviceSignature(const std::string &name);

/// Every function libdeviceSignature knows, by name without the `__nv_` prefix.
std::vector<std::string> libdeviceFunctionNames();

} // namespace cutwin::ir
