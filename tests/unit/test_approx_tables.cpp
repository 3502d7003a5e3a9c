// The simulator's measured approximation tables: every entry as lookups see it (packed in
// 64-entry blocks, or from a table's quadratic-and-bit model) against a plain decode of
// the embedded bytes, and the models against values the GPU's instructions are known to
// give.
#include "backend_sim/approx_ops.h"
#include "backend_sim/approx_tables.h"
#include "backend_sim/host_callbacks.h" // cutwin_sim_approx_f32/f64

#include <gtest/gtest.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Support/Compression.h>
#include <llvm/Support/Error.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace cutwin::sim;

namespace {

/// The table's entries decoded straight from its chunks (first entry, then the differences
/// as four byte planes).
std::vector<uint32_t> plainDecode(const std::string &name) {
  for (const EmbeddedTable *e = kApproxTableData; e->name; ++e) {
    if (name != e->name)
      continue;
    const unsigned char *p = e->bytes, *end = e->bytes + e->size;
    uint32_t entries, per;
    std::memcpy(&entries, p, 4);
    std::memcpy(&per, p + 4, 4);
    p += 8;
    std::vector<uint32_t> out;
    while (p < end) {
      uint32_t n;
      std::memcpy(&n, p, 4);
      p += 4;
      llvm::SmallVector<uint8_t, 0> raw;
      size_t count = std::min<size_t>(per, entries - out.size());
      llvm::Error err =
          llvm::compression::zlib::decompress(llvm::ArrayRef<uint8_t>(p, n), raw, 4 + 4 * (count - 1));
      EXPECT_FALSE(bool(err));
      llvm::consumeError(std::move(err));
      p += n;
      uint32_t v;
      std::memcpy(&v, raw.data(), 4);
      out.push_back(v);
      for (size_t i = 1; i < count; ++i) {
        uint32_t d = 0;
        for (size_t k = 0; k < 4; ++k)
          d |= uint32_t(raw[4 + k * (count - 1) + i - 1]) << (8 * k);
        out.push_back(v += d);
      }
    }
    return out;
  }
  return {};
}

TEST(ApproxTables, EveryEntryAsLookupsSeeIt) {
  const char *names[] = {"rcp_approx_ftz_f32",
                         "rcp_approx_ftz_f64",
                         "ex2_approx_ftz_f32_pos",
                         "ex2_approx_ftz_f32_neg",
                         "rsqrt_approx_ftz_f32_even",
                         "rsqrt_approx_ftz_f32_odd",
                         "rsqrt_approx_ftz_f64_even",
                         "rsqrt_approx_ftz_f64_odd",
                         "lg2_approx_ftz_f32_e0",
                         "lg2_approx_ftz_f32_em1",
                         "sqrt_approx_ftz_f32_even",
                         "sqrt_approx_ftz_f32_odd",
                         "sin_approx_f32",
                         "cos_approx_f32",
                         "tanh_approx_f32"};
  for (int t = 0; t < 15; ++t) {
    std::vector<uint32_t> want = plainDecode(std::string(kSimulatedArch) + "." + names[t]);
    ASSERT_FALSE(want.empty()) << names[t];
    for (uint32_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(approxTableEntry(t, i), want[i]) << names[t] << " entry " << i;
  }
}

/// The quadratic-and-bit models (ApproxModel) of the tables that have them, entry by
/// entry against the measured table; and that ex2's, rcp's, rsqrt's and sqrt's tables
/// have them.
TEST(ApproxTables, EveryModelEntryIsTheMeasuredOne) {
  int modelled = 0;
  for (int t = 0; t < int(ApproxTable::Count); ++t) {
    const ApproxModel *m = approxModel(ApproxTable(t));
    if (!m)
      continue;
    ++modelled;
    std::vector<uint32_t> want = plainDecode(m->name);
    ASSERT_EQ(want.size(), m->entries) << m->name;
    for (uint32_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(approxModelEntry(*m, i), want[i]) << m->name << " entry " << i;
  }
  for (ApproxTable t : {ApproxTable::Ex2Pos, ApproxTable::Ex2Neg, ApproxTable::Rcp32, ApproxTable::Rcp64,
                        ApproxTable::Rsqrt32Even, ApproxTable::Rsqrt32Odd, ApproxTable::Rsqrt64Even,
                        ApproxTable::Rsqrt64Odd, ApproxTable::Sqrt32Even, ApproxTable::Sqrt32Odd})
    EXPECT_NE(approxModel(t), nullptr) << int(t);
  EXPECT_EQ(modelled, 10);
}

TEST(ApproxTables, ModelsGiveTheGpuValuesAtKnownPoints) {
  EXPECT_EQ(approxRcpF32(1.0f), 1.0f);
  EXPECT_EQ(approxRcpF32(-4.0f), -0.25f);
  EXPECT_EQ(std::bit_cast<uint32_t>(approxRcpF32(1e-40f)), 0x7f800000u); // a subnormal is flushed: inf
  EXPECT_EQ(std::bit_cast<uint32_t>(approxRcpF32(NAN)), 0x7fffffffu);
  EXPECT_EQ(approxEx2F32(0.0f), 1.0f);
  EXPECT_EQ(approxEx2F32(3.0f), 8.0f);
  EXPECT_EQ(approxEx2F32(-1.0f), 0.5f);
  EXPECT_EQ(approxEx2F32(-127.0f), 0.0f); // below 2^-126: flushed
  EXPECT_EQ(approxEx2F32(128.0f), INFINITY);
  EXPECT_EQ(approxRsqrtF32(4.0f), 0.5f);
  EXPECT_EQ(approxRsqrtF32(0.25f), 2.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(approxRsqrtF32(-1.0f)), 0x7fffffffu);
  EXPECT_EQ(approxLg2F32(1.0f), 0.0f);
  EXPECT_EQ(approxLg2F32(8.0f), 3.0f);
  // below 1 the unit is not exact at powers of two; within PTX's bound of 2^-22.6
  EXPECT_NEAR(approxLg2F32(0.5f), -1.0f, 0x1p-22f);
  EXPECT_NEAR(approxLg2F32(0x1p-100f), -100.0f, 0x1p-16f);
  EXPECT_EQ(approxLg2F32(0.0f), -INFINITY);
  EXPECT_EQ(approxLg2F32(1e-40f), -INFINITY); // flushed
  EXPECT_EQ(std::bit_cast<uint32_t>(approxLg2F32(-2.0f)), 0x7fffffffu);
  EXPECT_EQ(approxSqrtF32(4.0f), 2.0f);
  EXPECT_EQ(approxSqrtF32(0.25f), 0.5f);
  EXPECT_EQ(std::bit_cast<uint32_t>(approxSqrtF32(-0.0f)), 0x80000000u);
  EXPECT_EQ(approxSinF32(0.0f), 0.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(approxSinF32(-0.0f)), 0x80000000u);
  EXPECT_EQ(approxCosF32(0.0f), 1.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(approxSinF32(INFINITY)), 0x7fffffffu);
  EXPECT_EQ(approxTanhF32(0x1p-9f), 0x1p-9f); // below 2^-8: x itself
  EXPECT_EQ(approxTanhF32(-1e-40f), -1e-40f);
  EXPECT_EQ(approxTanhF32(8.0f), 1.0f);
  EXPECT_EQ(approxTanhF32(-INFINITY), -1.0f);
  EXPECT_NEAR(approxTanhF32(0.5f), std::tanh(0.5), 0x1p-11 * std::tanh(0.5)); // PTX's bound
  EXPECT_EQ(approxTanhF32(-0.5f), -approxTanhF32(0.5f));
  EXPECT_EQ(approxRcpF64(2.0), 0.5);
  EXPECT_EQ(std::bit_cast<uint64_t>(approxRcpF64(NAN)), 0x7fffffff00000000ull);
  EXPECT_EQ(approxRsqrtF64(16.0), 0.25);
  // Neighbouring values stay within 2 ulp of the correctly rounded ones (the GPU's error).
  for (float x = 1.0f; x < 2.0f; x += 0.001f) {
    EXPECT_LE(std::abs(int64_t(std::bit_cast<uint32_t>(approxRcpF32(x))) -
                       int64_t(std::bit_cast<uint32_t>(float(1.0 / x)))),
              2);
    EXPECT_LE(std::abs(int64_t(std::bit_cast<uint32_t>(approxEx2F32(x))) -
                       int64_t(std::bit_cast<uint32_t>(float(std::exp2(double(x)))))),
              2);
  }
}

} // namespace

namespace {
float approx(ApproxF32 op, float x, float y = 0.0f) { return cutwin_sim_approx_f32(int(op), x, y); }
} // namespace

// The sequences ptxas builds around the units (measure_tables.cu checks them on every input
// on the GPU): here, that each composes the units as documented at the points where the
// non-ftz and ftz forms part.
TEST(ApproxSequences, NonFtzFormsScaleSubnormalsAroundTheUnit) {
  float h = approxEx2F32(-65.0f);
  EXPECT_EQ(approx(ApproxF32::Ex2, -130.0f), h * h); // a subnormal result
  EXPECT_GT(approx(ApproxF32::Ex2, -130.0f), 0.0f);
  EXPECT_EQ(approx(ApproxF32::Ex2Ftz, -130.0f), 0.0f);
  EXPECT_EQ(approx(ApproxF32::Lg2, 0x1p-140f), approxLg2F32(0x1p-116f) - 24.0f);
  EXPECT_EQ(approx(ApproxF32::Lg2Ftz, 0x1p-140f), -INFINITY);
  EXPECT_EQ(approx(ApproxF32::Rsqrt, 0x1p-140f), approxRsqrtF32(0x1p-116f) * 4096.0f);
  EXPECT_EQ(approx(ApproxF32::Sqrt, 0x1p-140f), approxSqrtF32(0x1p-116f) * 0x1p-12f);
  EXPECT_EQ(approx(ApproxF32::SqrtFtz, 0x1p-140f), 0.0f);
  EXPECT_EQ(approx(ApproxF32::Rcp, 0x1p127f), 0.25f * approxRcpF32(0x1p125f)); // subnormal result
  EXPECT_GT(approx(ApproxF32::Rcp, 0x1p127f), 0.0f);
  EXPECT_EQ(approx(ApproxF32::RcpFtz, 0x1p127f), 0.0f);
}

TEST(ApproxSequences, DivisionIsAProductWithTheReciprocal) {
  EXPECT_EQ(approx(ApproxF32::DivFtz, 3.0f, 7.0f), 3.0f * approxRcpF32(7.0f));
  EXPECT_EQ(approx(ApproxF32::DivFtz, 1.0f, 0x1p-130f), INFINITY); // the divisor is flushed
  EXPECT_EQ(approx(ApproxF32::DivFtz, 0x1p-140f, 2.0f), 0.0f);     // the dividend too
  EXPECT_EQ(approx(ApproxF32::Div, 0x1p-140f, 0x1p-130f),
            approxRcpF32(0x1p-106f) * 0x1p-116f); // both scaled by 2^24
}

TEST(ApproxSequences, RsqrtF64IsOneNewtonStepFromTheUnit) {
  auto rsqrt = [](double x) { return cutwin_sim_approx_f64(int(ApproxF64::Rsqrt), x); };
  EXPECT_EQ(rsqrt(4.0), 0.5);
  EXPECT_EQ(rsqrt(0.0), INFINITY);
  EXPECT_EQ(rsqrt(-0.0), -INFINITY);
  EXPECT_EQ(rsqrt(INFINITY), 0.0);
  EXPECT_EQ(std::bit_cast<uint64_t>(rsqrt(-1.0)), 0xfff8000000000000ull);
  for (double x : {3.0, 0.1, 1e300, 1e-300, 0x1p-1060}) { // the last subnormal: scaled by 2^54
    double want = 1.0 / std::sqrt(x);
    EXPECT_NEAR(rsqrt(x), want, want * 0x1p-50) << x;
  }
}
