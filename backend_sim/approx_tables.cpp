#include "backend_sim/approx_tables.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Support/Compression.h>
#include <llvm/Support/Error.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <sys/mman.h>

namespace cutwin::sim {

namespace {

using Table = ApproxTable;
constexpr int TableCount = int(ApproxTable::Count);
const char *const kNames[TableCount] = {"rcp_approx_ftz_f32",        "rcp_approx_ftz_f64",
                                        "ex2_approx_ftz_f32_pos",    "ex2_approx_ftz_f32_neg",
                                        "rsqrt_approx_ftz_f32_even", "rsqrt_approx_ftz_f32_odd",
                                        "rsqrt_approx_ftz_f64_even", "rsqrt_approx_ftz_f64_odd",
                                        "lg2_approx_ftz_f32_e0",     "lg2_approx_ftz_f32_em1",
                                        "sqrt_approx_ftz_f32_even",  "sqrt_approx_ftz_f32_odd",
                                        "sin_approx_f32",            "cos_approx_f32",
                                        "tanh_approx_f32"};
constexpr size_t kEntries[TableCount] = {size_t(1) << 23, size_t(1) << 20, size_t(1) << 23, size_t(1) << 23,
                                     size_t(1) << 23, size_t(1) << 23, size_t(1) << 20, size_t(1) << 20,
                                     size_t(1) << 23, size_t(1) << 23, size_t(1) << 23, size_t(1) << 23,
                                     size_t(1) << 25, size_t(1) << 25, 6684672};

/// 64 consecutive entries in 24 bytes (ApproxBlock): the first, and the 63 differences
/// to the entry before, each the block's smallest difference plus 0, 1 or 2 (two bit
/// planes). The measured tables are smooth enough for that almost everywhere; an entry
/// is the first plus a popcount or two, and a table takes 6 MB of cache instead of 64. A
/// block that is not (where a table's values cross a power of two, or the interpolation
/// steps by more than the rounding) keeps its 64 entries elsewhere.
using Block = ApproxBlock;
static_assert(sizeof(Block) == 24 && offsetof(Block, least) == 4 && offsetof(Block, plane0) == 8 &&
              offsetof(Block, plane1) == 16, "approx_inline.cpp reads blocks with this layout");
static_assert(sizeof(std::atomic<uint8_t>) == 1 && std::atomic<uint8_t>::is_always_lock_free,
              "compiled lookups read the ready flags as bytes");

/// One embedded table, decoded chunk by chunk as lookups reach it (a kernel that takes
/// the exponential of a few values decodes a few of 256 chunks) into Blocks.
class LazyTable {
public:
  /// Finds and indexes the table; false when the simulated architecture has none.
  bool open(Table t) {
    std::string name = std::string(kSimulatedArch) + "." + kNames[int(t)];
    for (const EmbeddedTable *e = kApproxTableData; e->name; ++e) {
      if (name != e->name)
        continue;
      const unsigned char *p = e->bytes, *end = e->bytes + e->size;
      auto u32 = [&] {
        uint32_t v = 0;
        std::memcpy(&v, p, 4);
        p += 4;
        return v;
      };
      entries_ = u32();
      perChunk_ = u32();
      // blocks within chunks; a power of two, so that finding an entry's chunk is a shift
      if (entries_ != kEntries[int(t)] || perChunk_ < 64 || !std::has_single_bit(perChunk_))
        return false;
      chunkShift_ = unsigned(std::countr_zero(perChunk_));
      while (p + 4 <= end) {
        uint32_t n = u32();
        chunks_.push_back({p, n});
        p += n;
      }
      if (chunks_.size() != (entries_ + perChunk_ - 1) / perChunk_)
        return false;
      // Pages untouched until a chunk is decoded; huge pages where the kernel offers them
      // (lookups land anywhere in the table: 4 KiB pages would miss the TLB on most).
      size_t bytes = (entries_ + 63) / 64 * sizeof(Block);
      size_t huge = size_t(2) << 20;
      void *mem = std::aligned_alloc(huge, (bytes + huge - 1) / huge * huge);
      if (!mem)
        return false;
      madvise(mem, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE);
      blocks_.reset(static_cast<Block *>(mem));
      ready_.reset(new std::atomic<uint8_t>[chunks_.size()]);
      raw_.resize(chunks_.size());
      for (size_t c = 0; c < chunks_.size(); ++c)
        ready_[c].store(0, std::memory_order_relaxed);
      return llvm::compression::zlib::isAvailable();
    }
    return false;
  }

  uint32_t operator[](uint32_t i) {
    uint32_t c = i >> chunkShift_;
    if (!ready_[c].load(std::memory_order_acquire)) [[unlikely]]
      decode(c);
    const Block &b = blocks_[i >> 6];
    uint32_t r = i & 63;
    if (b.least == kRawBlock) [[unlikely]]
      return reinterpret_cast<const uint32_t *>(b.plane0)[r];
    uint64_t below = r == 63 ? ~uint64_t(1) : ((uint64_t(1) << (r + 1)) - 1) & ~uint64_t(1);
    return b.first + uint32_t(b.least) * r + uint32_t(std::popcount(b.plane0 & below)) +
           2 * uint32_t(std::popcount(b.plane1 & below));
  }

  /// Where compiled lookups find the blocks (approx_tables.h).
  ApproxTableView view() const {
    return {blocks_.get(), reinterpret_cast<const uint8_t *>(ready_.get()), chunkShift_};
  }

private:
  void decode(size_t c) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ready_[c].load(std::memory_order_relaxed))
      return;
    size_t first = c * perChunk_, n = std::min<size_t>(perChunk_, entries_ - first);
    // The chunk: its first entry, then the n - 1 differences as four byte planes.
    size_t size = 4 + 4 * (n - 1);
    llvm::SmallVector<uint8_t, 0> raw;
    llvm::Error err = llvm::compression::zlib::decompress(
        llvm::ArrayRef<uint8_t>(chunks_[c].first, chunks_[c].second), raw, size);
    if (err || raw.size() != size) { // the embedded data is the library's own: cannot happen
      llvm::consumeError(std::move(err));
      std::fprintf(stderr, "cutwin: a measured approximation table is corrupt\n");
      std::abort();
    }
    std::vector<uint32_t> values(n);
    uint32_t v;
    std::memcpy(&v, raw.data(), 4);
    values[0] = v;
    const uint8_t *planes = raw.data() + 4;
    for (size_t i = 1; i < n; ++i) {
      uint32_t d = 0;
      for (size_t k = 0; k < 4; ++k)
        d |= uint32_t(planes[k * (n - 1) + i - 1]) << (8 * k);
      values[i] = v += d;
    }
    pack(values, first, c);
    ready_[c].store(1, std::memory_order_release);
  }

  /// Packs the chunk's values into Blocks; blocks whose differences span more than three
  /// values keep their entries in the chunk's raw storage.
  void pack(const std::vector<uint32_t> &values, size_t first, size_t c) {
    std::vector<uint32_t> &spill = raw_[c];
    size_t spilled = 0;
    for (int pass = 0; pass < 2; ++pass) // count the raw blocks, then fill them (no reallocation)
      for (size_t s = 0; s < values.size(); s += 64) {
      size_t n = std::min<size_t>(64, values.size() - s);
      int64_t least = 0, most = 0; // differences modulo 2^32, as int32s (a sign change wraps)
      for (size_t k = 1; k < n; ++k) {
        int64_t d = int32_t(values[s + k] - values[s + k - 1]);
        least = k == 1 ? d : std::min(least, d);
        most = k == 1 ? d : std::max(most, d);
      }
      Block &b = blocks_[(first + s) / 64];
      b.first = values[s];
      if (most - least > 2 || least == kRawBlock) {
        if (pass == 0) {
          spill.resize(spill.size() + 64);
        } else {
          uint32_t *dst = spill.data() + spilled++ * 64;
          std::copy(values.begin() + long(s), values.begin() + long(s + n), dst);
          b.least = kRawBlock;
          b.plane0 = reinterpret_cast<uint64_t>(dst);
        }
        continue;
      }
      if (pass == 0)
        continue;
      b.least = int32_t(least);
      b.plane0 = b.plane1 = 0;
      for (size_t k = 1; k < n; ++k) {
        uint32_t d = uint32_t(int64_t(int32_t(values[s + k] - values[s + k - 1])) - least);
        b.plane0 |= uint64_t(d & 1) << k;
        b.plane1 |= uint64_t(d >> 1) << k;
      }
    }
  }

  uint32_t entries_ = 0, perChunk_ = 0;
  unsigned chunkShift_ = 0;
  std::vector<std::pair<const unsigned char *, uint32_t>> chunks_;
  struct FreeBlocks {
    void operator()(Block *b) const { std::free(b); }
  };
  std::unique_ptr<Block[], FreeBlocks> blocks_;
  std::unique_ptr<std::atomic<uint8_t>[]> ready_;
  std::vector<std::vector<uint32_t>> raw_; ///< per chunk, the entries of its raw blocks
  std::mutex mutex_;
};

LazyTable tables[TableCount];
std::atomic<int> tableState[TableCount]; // 0 unopened, 1 present, 2 absent

/// Opens table `t` (once; later calls read the state).
[[gnu::noinline]] LazyTable *openTable(Table t) {
  static std::mutex opening;
  std::lock_guard<std::mutex> lock(opening);
  int k = int(t);
  if (int s = tableState[k].load(std::memory_order_relaxed))
    return s == 1 ? &tables[k] : nullptr;
  bool present = tables[k].open(t);
  if (!present) {
    static bool said = false;
    if (!said)
      std::fprintf(stderr, "cutwin: no measured approximation tables for %s: the simulator uses correctly "
                           "rounded values for the approximation instructions (results may differ from "
                           "the GPU's by an ulp)\n",
                   kSimulatedArch);
    said = true;
  }
  if (present) { // the blocks pointer last: compiled lookups test it before the rest
    ApproxTableView v = tables[k].view();
    approxTableViews[k].ready = v.ready;
    approxTableViews[k].chunkShift = v.chunkShift;
    std::atomic_ref<const ApproxBlock *>(approxTableViews[k].blocks).store(v.blocks, std::memory_order_release);
  }
  tableState[k].store(present ? 1 : 2, std::memory_order_release);
  return present ? &tables[k] : nullptr;
}

/// The table, opened on first use; null where the simulated architecture has none. The
/// fast path is one acquire load, inlined into every lookup (std::call_once cost a TLS
/// round trip per lookup).
inline LazyTable *tableFor(Table t) {
  if (int s = tableState[int(t)].load(std::memory_order_acquire)) [[likely]]
    return s == 1 ? &tables[int(t)] : nullptr;
  return openTable(t);
}

} // namespace

ApproxTableView approxTableViews[TableCount];

uint32_t approxTableEntry(int t, uint32_t i) {
  LazyTable *table = t >= 0 && t < TableCount ? tableFor(Table(t)) : nullptr;
  return table && i < kEntries[t] ? (*table)[i] : 0;
}

float approxRcpF32(float x) {
  LazyTable *T = tableFor(Table::Rcp32);
  if (!T)
    return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(INFINITY, x) : 1.0f / x;
  uint32_t u = std::bit_cast<uint32_t>(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return std::bit_cast<float>(m ? 0x7fffffffu : s); // NaN; 1/inf = 0
  if (e == 0)
    return std::bit_cast<float>(s | 0x7f800000u); // zero and flushed subnormals
  uint32_t t = (*T)[m];
  int32_t r = int32_t((t >> 23) & 0xff) - (int32_t(e) - 127);
  return std::bit_cast<float>(r <= 0 ? s : s | uint32_t(r) << 23 | (t & 0x7fffff));
}

double approxRcpF64(double x) {
  LazyTable *T = tableFor(Table::Rcp64);
  if (!T)
    return 1.0 / x;
  uint64_t u = std::bit_cast<uint64_t>(x);
  uint32_t hi = uint32_t(u >> 32), s = hi & 0x80000000u, e = (hi >> 20) & 0x7ff, m = hi & 0xfffff;
  if (e == 0x7ff) // the instruction reads the high word only: a NaN with a low-word payload is inf
    return std::bit_cast<double>(m ? 0x7fffffff00000000ull : uint64_t(s) << 32);
  if (e == 0)
    return std::bit_cast<double>(uint64_t(s | 0x7ff00000u) << 32);
  uint32_t t = (*T)[m];
  int32_t r = int32_t((t >> 20) & 0x7ff) - (int32_t(e) - 1023);
  return std::bit_cast<double>(uint64_t(r <= 0 ? s : s | uint32_t(r) << 20 | (t & 0xfffff)) << 32);
}

float approxEx2F32(float x) {
  LazyTable *P = tableFor(Table::Ex2Pos), *N = tableFor(Table::Ex2Neg);
  if (!P || !N)
    return std::fpclassify(x) == FP_SUBNORMAL ? 1.0f : float(std::exp2(double(x)));
  uint32_t u = std::bit_cast<uint32_t>(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return std::bit_cast<float>(m ? 0x7fffffffu : (s ? 0u : 0x7f800000u));
  if (e == 0)
    return 1.0f; // a flushed subnormal: 2^0
  float a = std::bit_cast<float>(u & 0x7fffffffu);
  if (a >= 128.0f)
    return s ? 0.0f : INFINITY;
  uint32_t k = uint32_t(a * 0x1p23f); // the unit reads |x| to 2^-23 (truncated)
  uint32_t t = (s ? *N : *P)[k & 0x7fffff];
  int32_t r = int32_t((t >> 23) & 0xff) + (s ? -int32_t(k >> 23) : int32_t(k >> 23));
  if (r <= 0)
    return 0.0f;
  if (r >= 0xff)
    return INFINITY;
  return std::bit_cast<float>(uint32_t(r) << 23 | (t & 0x7fffff));
}

float approxRsqrtF32(float x) {
  LazyTable *T0 = tableFor(Table::Rsqrt32Even), *T1 = tableFor(Table::Rsqrt32Odd);
  if (!T0 || !T1)
    return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(INFINITY, x) : float(1.0 / std::sqrt(double(x)));
  uint32_t u = std::bit_cast<uint32_t>(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return std::bit_cast<float>((m || s) ? 0x7fffffffu : 0u);
  if (e == 0)
    return std::bit_cast<float>(s | 0x7f800000u);
  if (s)
    return std::bit_cast<float>(0x7fffffffu);
  int32_t p = int32_t(e) - 127, odd = p & 1;
  uint32_t t = (odd ? *T1 : *T0)[m];
  int32_t r = int32_t((t >> 23) & 0xff) - ((p - odd) >> 1);
  return std::bit_cast<float>(uint32_t(r) << 23 | (t & 0x7fffff));
}

double approxRsqrtF64(double x) {
  LazyTable *T0 = tableFor(Table::Rsqrt64Even), *T1 = tableFor(Table::Rsqrt64Odd);
  if (!T0 || !T1)
    return 1.0 / std::sqrt(x);
  uint64_t u = std::bit_cast<uint64_t>(x);
  uint32_t hi = uint32_t(u >> 32), s = hi & 0x80000000u, e = (hi >> 20) & 0x7ff, m = hi & 0xfffff;
  const uint64_t nan = 0x7fffffff00000000ull;
  if (e == 0x7ff)
    return std::bit_cast<double>((m || s) ? nan : 0);
  if (e == 0)
    return std::bit_cast<double>(uint64_t(s | 0x7ff00000u) << 32);
  if (s)
    return std::bit_cast<double>(nan);
  int32_t p = int32_t(e) - 1023, odd = p & 1;
  uint32_t t = (odd ? *T1 : *T0)[m];
  int32_t r = int32_t((t >> 20) & 0x7ff) - ((p - odd) >> 1);
  return std::bit_cast<double>(uint64_t(uint32_t(r) << 20 | (t & 0xfffff)) << 32);
}

namespace {
/// x rounded toward zero to float (x finite, within float's normal range or zero).
float truncateToFloat(double x) {
  return float(std::bit_cast<double>(std::bit_cast<uint64_t>(x) & ~((uint64_t(1) << 29) - 1)));
}
} // namespace

float approxLg2F32(float x) {
  LazyTable *T0 = tableFor(Table::Lg2E0), *T1 = tableFor(Table::Lg2Em1);
  if (!T0 || !T1)
    return std::fpclassify(x) == FP_SUBNORMAL ? -INFINITY : float(std::log2(double(x)));
  uint32_t u = std::bit_cast<uint32_t>(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return std::bit_cast<float>((m || s) ? 0x7fffffffu : 0x7f800000u);
  if (e == 0)
    return -INFINITY; // zero and flushed subnormals
  if (s)
    return std::bit_cast<float>(0x7fffffffu);
  // The unit forms e + lg2(1.m) exactly and truncates; e < 0 starts from lg2(1.m / 2) so that
  // the sum and the entry have one sign and truncating twice is truncating once.
  int32_t p = int32_t(e) - 127;
  if (p >= 0)
    return truncateToFloat(double(p) + double(std::bit_cast<float>((*T0)[m])));
  return truncateToFloat(double(p + 1) + double(std::bit_cast<float>((*T1)[m])));
}

float approxSqrtF32(float x) {
  LazyTable *T0 = tableFor(Table::Sqrt32Even), *T1 = tableFor(Table::Sqrt32Odd);
  if (!T0 || !T1)
    return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : std::sqrt(x);
  uint32_t u = std::bit_cast<uint32_t>(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return std::bit_cast<float>((m || s) ? 0x7fffffffu : 0x7f800000u);
  if (e == 0)
    return std::bit_cast<float>(s); // zero and flushed subnormals: +-0
  if (s)
    return std::bit_cast<float>(0x7fffffffu);
  int32_t p = int32_t(e) - 127, odd = p & 1;
  uint32_t t = (odd ? *T1 : *T0)[m];
  int32_t r = int32_t((t >> 23) & 0xff) + ((p - odd) >> 1);
  return std::bit_cast<float>(uint32_t(r) << 23 | (t & 0x7fffff));
}

namespace {
/// The phase the sine and cosine units read: q = floor(frac(|t|) 2^25) of t = RZ(x / 2 pi),
/// as the instruction scales x (FMUL.RZ by float(1 / 2 pi)).
uint32_t sinCosPhase(float x, bool &negative) {
  // the product is exact in double; below float's normal range q is 0 however it rounds
  float t = truncateToFloat(double(x) * double(0.15915493667125701904f));
  negative = std::signbit(t);
  float a = std::fabs(t);
  return uint32_t((a - std::floor(a)) * 0x1p25f); // exact, then truncated
}
} // namespace

namespace {
/// sin.approx (odd: the sign of t) or cos.approx (even) from table `t` at x's phase.
float phaseLookup(Table t, float x, bool odd, double (*fallback)(double)) {
  LazyTable *T = tableFor(t);
  if (!T)
    return float(fallback(double(x)));
  if (!std::isfinite(x))
    return std::bit_cast<float>(0x7fffffffu);
  bool negative;
  uint32_t q = sinCosPhase(x, negative);
  return std::bit_cast<float>((*T)[q] ^ (odd && negative ? 0x80000000u : 0u));
}
} // namespace

float approxSinF32(float x) { return phaseLookup(Table::Sin, x, true, [](double v) { return std::sin(v); }); }

float approxCosF32(float x) { return phaseLookup(Table::Cos, x, false, [](double v) { return std::cos(v); }); }

namespace {
/// tanh's table, per exponent -8 .. 2: the mantissa bits the unit reads; each exponent's
/// part follows the previous one's.
constexpr int kTanhBits[11] = {17, 17, 17, 18, 18, 19, 19, 19, 20, 21, 20};
constexpr std::array<uint32_t, 12> kTanhOffset = [] {
  std::array<uint32_t, 12> o{};
  for (size_t k = 0; k < 11; ++k)
    o[k + 1] = o[k] + (uint32_t(1) << kTanhBits[k]);
  return o;
}();
} // namespace

static_assert(kTanhOffset[11] == kEntries[int(Table::Tanh)], "tanh's table holds every exponent's part");

float approxTanhF32(float x) {
  LazyTable *T = tableFor(Table::Tanh);
  if (!T)
    return float(std::tanh(double(x)));
  uint32_t u = std::bit_cast<uint32_t>(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return std::bit_cast<float>(m ? 0x7fffffffu : s | 0x3f800000u);
  int p = int(e) - 127;
  if (p < -8)
    return x; // zeros and subnormals too
  if (p > 2)
    return std::bit_cast<float>(s | 0x3f800000u);
  int k = p + 8;
  return std::bit_cast<float>(s | (*T)[kTanhOffset[k] + (m >> (23 - kTanhBits[k]))]);
}

} // namespace cutwin::sim
