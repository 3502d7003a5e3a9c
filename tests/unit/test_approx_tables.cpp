// The simulator's measured approximation tables: every entry as lookups see it (packed in
// 64-entry blocks) against a plain decode of the embedded bytes, and the models against
// values the GPU's instructions are known to give.
#include "backend_sim/approx_tables.h"

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
  const char *names[] = {"rcp_approx_ftz_f32",        "rcp_approx_ftz_f64",        "ex2_approx_ftz_f32_pos",
                         "ex2_approx_ftz_f32_neg",    "rsqrt_approx_ftz_f32_even", "rsqrt_approx_ftz_f32_odd",
                         "rsqrt_approx_ftz_f64_even", "rsqrt_approx_ftz_f64_odd",  "lg2_approx_ftz_f32_e0",
                         "lg2_approx_ftz_f32_em1",    "sqrt_approx_ftz_f32_even",  "sqrt_approx_ftz_f32_odd",
                         "sin_approx_f32",            "cos_approx_f32"};
  for (int t = 0; t < 14; ++t) {
    std::vector<uint32_t> want = plainDecode(std::string(kSimulatedArch) + "." + names[t]);
    ASSERT_FALSE(want.empty()) << names[t];
    for (uint32_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(approxTableEntry(t, i), want[i]) << names[t] << " entry " << i;
  }
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
