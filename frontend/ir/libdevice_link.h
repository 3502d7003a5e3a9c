/// Linking NVIDIA's libdevice into a kernel module: the `__nv_*` functions the module
/// declares, and what they call, from the CUDA toolkit's libdevice.10.bc. Both backends
/// use it; the simulator then rewrites the linked code for the CPU.
#pragma once

#include <set>
#include <string>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace cutwin::ir {

/// Where libdevice.10.bc is read from: $CUTWIN_LIBDEVICE, else the toolkit found at build time.
std::string libdevicePath();

/// Links what `m` needs; returns the names of the functions that were added (empty if the
/// module calls no libdevice function). Throws Error if libdevice cannot be read.
std::set<std::string> linkLibdevice(llvm::Module &m);

/// What libdevice's __nvvm_reflect queries answer, as libNVVM answers them for the same
/// options (-ftz, -prec-sqrt, -arch); unknown queries answer 0.
struct ReflectValues {
  bool ftz = false;     ///< __CUDA_FTZ: fastmath
  bool precSqrt = true; ///< __CUDA_PREC_SQRT: not fastmath
  unsigned arch = 900;  ///< __CUDA_ARCH
};

/// Replaces each __nvvm_reflect call in `f` by its answer.
void resolveReflect(llvm::Function &f, const ReflectValues &v);

/// Gives libdevice's code in `f` the meaning it has in PTX where LLVM's differs; run
/// before any optimisation:
/// - a shift by the width or more shifts everything out (0, or the sign for an arithmetic
///   right shift): LLVM makes it poison, x86 takes the amount modulo the width, and
///   __nv_pow's odd-integer test relies on PTX's meaning;
/// - llvm.nvvm.round.f/d round half to even (cvt.rni, as libNVVM compiles them), which LLVM
///   16's NVPTX instcombine turns into llvm.round (half away from zero): __nv_tgammaf(0.5)
///   came out as tgamma(-0.5).
void givePtxMeaning(llvm::Function &f);

} // namespace cutwin::ir
