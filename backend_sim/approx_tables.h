/// Table models of the GPU's approximation instructions (rcp, ex2, rsqrt, lg2, sqrt, sin and
/// cos .approx), measured
/// on the GPU by backend_sim/approx/measure_tables.cu and embedded in the library; the
/// simulator evaluates libdevice's uses of those instructions with them, so that it
/// returns the GPU's bits (docs/numerics.md).
#pragma once

#include <atomic>
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

struct ApproxBlock; ///< 64 entries, packed (approx_tables.cpp)

/// A table whose unit interpolates a quadratic per segment, modelled: over segments of
/// 2^segmentShift entries (at most 2^11) its entries follow a line to within the
/// rounding, so entry k (k > 0) is floor(q(k)) + bit k, q(k) = (base + slope t) /
/// 2^kModelFraction with t = k mod 2^segmentShift; the segment's record holds base's
/// integer part in its low word and slope << kModelFraction | base's fraction in its high
/// word, so that lanes compute it in 32 bits. Entry 0 is `first`. Derived at build time
/// from the measured table and checked against each of its entries (approx/fit_models.cpp);
/// nothing to decode.
struct ApproxModel {
  const char *name; ///< the table's: "<arch>.<instruction>"
  uint32_t entries, segmentShift, first;
  const uint64_t *segments;
  const uint32_t *bits;
};
extern const ApproxModel kApproxModels[]; ///< ends with a null name
inline constexpr int kModelFraction = 14;

/// The model of table `t` for the simulated architecture; null where there is none.
const ApproxModel *approxModel(ApproxTable t);

inline uint32_t approxModelEntry(const ApproxModel &m, uint32_t k) {
  uint64_t record = m.segments[k >> m.segmentShift];
  int32_t packed = int32_t(uint32_t(record >> 32)), slope = packed >> kModelFraction;
  int32_t fraction = packed & ((1 << kModelFraction) - 1);
  int32_t t = int32_t(k & ((uint32_t(1) << m.segmentShift) - 1));
  uint32_t q = uint32_t(record) + uint32_t((fraction + slope * t) >> kModelFraction);
  uint32_t bit = (m.bits[k >> 5] >> (k & 31)) & 1;
  return k == 0 ? m.first : q + bit;
}

/// How an opened table is read on the lookups' fast path: the block holding entry i is
/// blocks[i / 64], and it may be read once ready[i >> chunkShift] is set (its chunk is
/// decoded). The fast path of a lookup that finds no blocks or an unset flag takes the
/// full path, which opens the table and decodes the chunk.
struct ApproxTableView {
  const ApproxBlock *blocks;         ///< null until the table is opened; stays null where none exists
  const std::atomic<uint8_t> *ready; ///< per chunk: non-zero once decoded
  uint32_t chunkShift;               ///< log2 of the entries per chunk
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
/// tanh.approx.f16 of a float16 value held as float32: tanh.approx.f32 rounded to half.
float approxTanhF16(float x);
/// tanh.approx.bf16 of a bfloat16 held as float32 (the result is one too): tanh.approx.f32
/// cut to bfloat16, as measured on an H100.
float approxTanhBF16(float x);
/// The units above over n lanes at once (in[i] -> out[i]), as the vector variants of a
/// vectorised thread loop call them: the table blocks of all lanes are requested from
/// memory first, so that their cache misses overlap instead of following one another.
/// (ex2, rcp, rsqrt and sqrt have none: their variants compute the units' models inline,
/// approx_inline.h.)
void approxLg2F32Lanes(const float *in, float *out, int n);
void approxSinF32Lanes(const float *in, float *out, int n);
void approxCosF32Lanes(const float *in, float *out, int n);
void approxTanhF32Lanes(const float *in, float *out, int n);
/// Entry `i` of table `t` (0 rcp f32, 1 rcp f64, 2/3 ex2 f32 +/-, 4/5 rsqrt f32 even/odd,
/// 6/7 rsqrt f64 even/odd, 8/9 lg2 f32 e >= 0 / e < 0, 10/11 sqrt f32 even/odd, 12 sin,
/// 13 cos, 14 tanh) as lookups see it; 0 where there is none. For tests.
uint32_t approxTableEntry(int t, uint32_t i);

/// The views of the tables, indexed by ApproxTable (a test clears `blocks` to send every
/// lookup down its full path).
extern ApproxTableView approxTableViews[int(ApproxTable::Count)];

} // namespace cutwin::sim
