/// Conversions between float16 and the wider binary formats, rounded to nearest (ties to
/// even), under the names the compilers give them: x86 has no instruction for most of them,
/// so GCC (for cutwin's own C++) and LLVM (for JIT-compiled kernels) call these functions.
/// Their usual home, libgcc_s, has them only since GCC 12; cutwin defines them itself, so
/// that a kernel converting a double to float16 gives the same bits on every host and runs
/// where the C++ runtime is older (the wheel's baseline: python/src/glibc_baseline.cpp).
/// Defined hidden: they serve cutwin's code and the JIT (halfConversionSymbols), and leave
/// the rest of the process to its own runtime's.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

extern "C" {
_Float16 __truncsfhf2(float value);
_Float16 __truncdfhf2(double value);
_Float16 __truncxfhf2(long double value);
float __extendhfsf2(_Float16 value);
double __extendhfdf2(_Float16 value);
}

namespace cutwin::sim {

/// A float16 and its bit pattern, without converting (a conversion would call the above).
inline _Float16 halfFromBits(uint16_t bits) { return std::bit_cast<_Float16>(bits); }
inline uint16_t bitsOfHalf(_Float16 h) { return std::bit_cast<uint16_t>(h); }

/// Each conversion's symbol and address, for the simulator's JIT.
std::vector<std::pair<std::string, void *>> halfConversionSymbols();

} // namespace cutwin::sim
