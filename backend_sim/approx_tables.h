/// Table models of the GPU's approximation instructions (rcp, ex2, rsqrt, lg2, sqrt, sin and
/// cos .approx), measured
/// on the GPU by backend_sim/approx/measure_tables.cu and embedded in the library; the
/// simulator evaluates libdevice's uses of those instructions with them, so that it
/// returns the GPU's bits (docs/numerics.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cutwin::sim {

struct EmbeddedTable {
  const char *name; ///< "<arch>.<instruction>", e.g. "sm_90.rcp_approx_ftz_f32"
  const unsigned char *bytes;
  size_t size;
};
extern const EmbeddedTable kApproxTableData[]; ///< ends with a null name

/// The architecture whose tables the simulator uses: the one it simulates.
inline constexpr const char *kSimulatedArch = "sm_90";

/// The measured tables, as approxTableEntry and the views below number them.
enum class ApproxTable : int {
  Rcp32,
  Rcp64,
  Ex2Pos,
  Ex2Neg,
  Rsqrt32Even,
  Rsqrt32Odd,
  Rsqrt64Even,
  Rsqrt64Odd,
  Lg2E0,
  Lg2Em1,
  Sqrt32Even,
  Sqrt32Odd,
  Sin,
  Cos,
  Tanh,
  Count
};

/// How a table is held once opened, for the lookups the simulator's JIT compiles into
/// kernels (approx_inline.cpp): entry i lies in the 24-byte block i / 64, laid out as
/// ApproxBlock; it may be read once the byte ready[i >> chunkShift] is non-zero (its
/// chunk is decoded; a lookup that finds zero takes the host path, which decodes).
struct ApproxBlock {
  uint32_t first; ///< entry 0 of the block
  /// Entry r > 0 is first + least r + popcount(plane0 & m) + 2 popcount(plane1 & m), m the
  /// bits 1..r; a block whose differences do not fit holds kRawBlock here and the address
  /// of its 64 entries in plane0.
  int32_t least;
  uint64_t plane0, plane1;
};
inline constexpr int32_t kRawBlock = INT32_MIN;

struct ApproxTableView {
  const ApproxBlock *blocks; ///< null until the table is opened; stays null where none exists
  const uint8_t *ready;      ///< per chunk: non-zero once decoded
  uint32_t chunkShift;       ///< log2 of the entries per chunk
};

/// rcp.approx.ftz, ex2.approx.ftz.f32 and rsqrt.approx.ftz as the GPU computes them,
/// from the tables; where the simulated architecture has no tables, the correctly rounded
/// value (said once per process on stderr).
float approxRcpF32(float x);
double approxRcpF64(double x);
float approxEx2F32(float x);
float approxRsqrtF32(float x);
double approxRsqrtF64(double x);
/// lg2.approx.ftz.f32 and sqrt.approx.ftz.f32 likewise; sin.approx.f32 and cos.approx.f32
/// whole (the scaling by 1 / 2 pi included; their ftz forms are the same).
float approxLg2F32(float x);
float approxSqrtF32(float x);
float approxSinF32(float x);
float approxCosF32(float x);
/// tanh.approx.f32: x below 2^-8, +-1 from 8, else a table per exponent (-8 .. 2) over the
/// top 17 to 21 mantissa bits the unit reads.
float approxTanhF32(float x);
/// Entry `i` of table `t` (0 rcp f32, 1 rcp f64, 2/3 ex2 f32 +/-, 4/5 rsqrt f32 even/odd,
/// 6/7 rsqrt f64 even/odd, 8/9 lg2 f32 e >= 0 / e < 0, 10/11 sqrt f32 even/odd, 12 sin,
/// 13 cos, 14 tanh) as lookups see it; 0 where there is none. For tests.
uint32_t approxTableEntry(int t, uint32_t i);

/// The views of the tables, indexed by ApproxTable; JIT-compiled kernels read them under
/// the symbol name kApproxViewsSymbol.
extern ApproxTableView approxTableViews[int(ApproxTable::Count)];
inline constexpr const char *kApproxViewsSymbol = "cutwin_sim_approx_views";

} // namespace cutwin::sim
