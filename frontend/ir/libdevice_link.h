/// Linking NVIDIA's libdevice into a kernel module: the `__nv_*` functions the module
/// declares, and what they call, from the CUDA toolkit's libdevice.10.bc. Both backends
/// use it; the simulator then rewrites the linked code for the CPU.
#pragma once

#include <set>
#include <string>

namespace llvm {
class MemoryBuffer;
class Module;
} // namespace llvm

namespace cutwin::ir {

/// Where libdevice.10.bc is read from: $CUTWIN_LIBDEVICE, else the toolkit found at build time.
std::string libdevicePath();
/// That file by path, size and time: what the kernel cache's keys say of the toolkit.
std::string libdeviceIdentity();

/// libdevice.10.bc, read once per process; throws Error (naming CUTWIN_LIBDEVICE) if it
/// cannot be read.
const llvm::MemoryBuffer &libdeviceBitcode();

/// What libdevice's __nvvm_reflect queries answer, as libNVVM answers them for the same
/// options (-ftz, -prec-sqrt, -arch); unknown queries answer 0.
struct ReflectValues {
  bool ftz = false;     ///< __CUDA_FTZ: fastmath
  bool precSqrt = true; ///< __CUDA_PREC_SQRT: not fastmath
  unsigned arch = 900;  ///< __CUDA_ARCH

  /// The answers for a kernel compiled with or without fastmath for sm_XY (arch = XY0).
  static ReflectValues forKernel(bool fastmath, unsigned arch = 900) { return {fastmath, !fastmath, arch}; }
};

/// Links what `m` needs and prepares it the same way for every backend; returns the names of
/// the functions that were added (empty if the module calls no libdevice function). Throws
/// Error if libdevice cannot be read. In each added function:
/// - every __nvvm_reflect call is replaced by its answer in `reflect`;
/// - libdevice's code gets the meaning it has in PTX where LLVM's differs (before any
///   optimisation can act on LLVM's): a shift by the width or more shifts everything out
///   (0, or the sign for an arithmetic right shift), where LLVM makes it poison and x86 takes
///   the amount modulo the width (__nv_pow's odd-integer test relies on PTX's meaning); and
///   llvm.nvvm.round.f/d round half to even (cvt.rni, as libNVVM compiles them), which LLVM
///   16's NVPTX instcombine turns into llvm.round, half away from zero (__nv_tgammaf(0.5)
///   came out as tgamma(-0.5)).
std::set<std::string> linkLibdevice(llvm::Module &m, const ReflectValues &reflect);

} // namespace cutwin::ir
