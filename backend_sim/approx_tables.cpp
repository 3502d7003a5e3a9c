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
const char *const kNames[TableCount] = {"rcp_approx_ftz_f32",
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
constexpr size_t kEntries[TableCount] = {size_t(1) << 23, size_t(1) << 20, size_t(1) << 23, size_t(1) << 23,
                                         size_t(1) << 23, size_t(1) << 23, size_t(1) << 20, size_t(1) << 20,
                                         size_t(1) << 23, size_t(1) << 23, size_t(1) << 23, size_t(1) << 23,
                                         size_t(1) << 25, size_t(1) << 25, 6684672};

constexpr int32_t kRawBlock = INT32_MIN;

} // namespace

/// 64 consecutive entries in 24 bytes: the first, and the 63 differences to the entry
/// before, each the block's smallest difference plus 0, 1 or 2 (two bit planes). The
/// measured tables are smooth enough for that almost everywhere; an entry is the first
/// plus a popcount or two, and a table takes 6 MB of cache instead of 64. A block that is
/// not (where a table's values cross a power of two, or the interpolation steps by more
/// than the rounding) keeps its 64 entries elsewhere: `least` is kRawBlock and `plane0`
/// points to them.
struct ApproxBlock {
  uint32_t first;
  int32_t least;
  uint64_t plane0, plane1; ///< bit k: the k-th difference's two bits (k = 1..63)
};

namespace {

using Block = ApproxBlock;

/// Entry r of a block that is not raw: first, plus r times the least difference, plus
/// the bits 1..r of the planes.
inline uint32_t packedEntry(const Block &b, uint32_t r) {
  uint64_t below = (~uint64_t(0) >> (63 - r)) & ~uint64_t(1);
  return b.first + uint32_t(b.least) * r + uint32_t(std::popcount(b.plane0 & below)) +
         2 * uint32_t(std::popcount(b.plane1 & below));
}

/// One embedded table, decoded chunk by chunk as lookups reach it (a kernel that takes
/// the exponential of a few values decodes a few of 2048 chunks) into Blocks.
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
    return packedEntry(b, r);
  }

  /// Where the lookups' fast paths find the blocks (approx_tables.h).
  ApproxTableView view() const { return {blocks_.get(), ready_.get(), chunkShift_}; }

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
      std::fprintf(stderr,
                   "cutwin: no measured approximation tables for %s: the simulator uses correctly "
                   "rounded values for the approximation instructions (results may differ from "
                   "the GPU's by an ulp)\n",
                   kSimulatedArch);
    said = true;
  }
  if (present) { // the blocks pointer last: the fast paths test it before the rest
    ApproxTableView v = tables[k].view();
    approxTableViews[k].ready = v.ready;
    approxTableViews[k].chunkShift = v.chunkShift;
    std::atomic_ref<const ApproxBlock *>(approxTableViews[k].blocks)
        .store(v.blocks, std::memory_order_release);
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

/// The models by table (approx_tables.h), found once.
const ApproxModel *const *modelsByTable() {
  static const std::array<const ApproxModel *, TableCount> models = [] {
    std::array<const ApproxModel *, TableCount> m{};
    for (int t = 0; t < TableCount; ++t) {
      std::string name = std::string(kSimulatedArch) + "." + kNames[t];
      for (const ApproxModel *e = kApproxModels; e->name; ++e)
        if (name == e->name && e->entries == kEntries[t])
          m[size_t(t)] = e;
    }
    return m;
  }();
  return models.data();
}

/// Entry i of table t where it is at hand: from the table's model, or the table open and
/// i's chunk decoded (the path of nearly every lookup, kept inline and free of calls);
/// false otherwise, and the caller takes its full path, which opens and decodes.
inline bool readyEntry(Table t, uint32_t i, uint32_t &out) {
  if (const ApproxModel *m = modelsByTable()[int(t)]) {
    out = approxModelEntry(*m, i);
    return true;
  }
  ApproxTableView &v = approxTableViews[int(t)];
  const Block *blocks = std::atomic_ref<const Block *>(v.blocks).load(std::memory_order_acquire);
  if (!blocks)
    return false;
  if (!v.ready[i >> v.chunkShift].load(std::memory_order_acquire))
    return false;
  const Block &b = blocks[i >> 6];
  uint32_t r = i & 63;
  out = b.least == kRawBlock ? reinterpret_cast<const uint32_t *>(b.plane0)[r] : packedEntry(b, r);
  return true;
}

float fromBits(uint32_t u) { return std::bit_cast<float>(u); }
uint32_t bitsOf(float f) { return std::bit_cast<uint32_t>(f); }
double fromHigh(uint32_t hi) { return std::bit_cast<double>(uint64_t(hi) << 32); }
uint32_t highOf(double d) { return uint32_t(std::bit_cast<uint64_t>(d) >> 32); }

/// Normal floats (and high words of normal doubles): the operands the fast paths take.
bool normal32(uint32_t u) { return (u & 0x7fffffffu) - 0x00800000u < 0x7f800000u - 0x00800000u; }
bool positiveNormal32(uint32_t u) { return u - 0x00800000u < 0x7f800000u - 0x00800000u; }
bool normal64(uint32_t hi) { return (hi & 0x7fffffffu) - 0x00100000u < 0x7ff00000u - 0x00100000u; }
bool positiveNormal64(uint32_t hi) { return hi - 0x00100000u < 0x7ff00000u - 0x00100000u; }

/// The results from a normal operand's entry t, shared by the fast and the full paths.
float rcp32From(uint32_t u, uint32_t t) {
  uint32_t s = u & 0x80000000u;
  int32_t r = int32_t((t >> 23) & 0xff) - (int32_t((u >> 23) & 0xff) - 127);
  return fromBits(r <= 0 ? s : s | uint32_t(r) << 23 | (t & 0x7fffff));
}
double rcp64From(uint32_t hi, uint32_t t) {
  uint32_t s = hi & 0x80000000u;
  int32_t r = int32_t((t >> 20) & 0x7ff) - (int32_t((hi >> 20) & 0x7ff) - 1023);
  return fromHigh(r <= 0 ? s : s | uint32_t(r) << 20 | (t & 0xfffff));
}
/// ex2 of |x| = k 2^-23 (k read truncated): the entry's exponent moved by k's integer part.
float ex2From(bool negative, uint32_t k, uint32_t t) {
  int32_t whole = int32_t(k >> 23), r = int32_t((t >> 23) & 0xff) + (negative ? -whole : whole);
  if (r <= 0)
    return 0.0f;
  if (r >= 0xff)
    return INFINITY;
  return fromBits(uint32_t(r) << 23 | (t & 0x7fffff));
}
/// rsqrt (halved exponent subtracted) or sqrt (added) of a positive normal operand whose
/// exponent is p, from the table of p's parity.
float root32From(int32_t p, uint32_t t, bool reciprocal) {
  int32_t half = (p - (p & 1)) >> 1, e = int32_t((t >> 23) & 0xff);
  return fromBits(uint32_t(reciprocal ? e - half : e + half) << 23 | (t & 0x7fffff));
}
double rsqrt64From(int32_t p, uint32_t t) {
  int32_t half = (p - (p & 1)) >> 1;
  return fromHigh(uint32_t(int32_t((t >> 20) & 0x7ff) - half) << 20 | (t & 0xfffff));
}
/// x rounded toward zero to float (x finite, within float's normal range or zero).
float truncateToFloat(double x) {
  return float(std::bit_cast<double>(std::bit_cast<uint64_t>(x) & ~((uint64_t(1) << 29) - 1)));
}
/// The unit forms p + lg2(1.m) exactly and truncates; p < 0 starts from lg2(1.m / 2) so that
/// the sum and the entry have one sign and truncating twice is truncating once.
float lg2From(int32_t p, uint32_t t) {
  return truncateToFloat(double(p >= 0 ? p : p + 1) + double(fromBits(t)));
}

// The full paths: special operands, tables not yet open or absent, chunks not yet decoded.

[[gnu::noinline]] float rcp32Full(float x) {
  LazyTable *T = tableFor(Table::Rcp32);
  if (!T)
    return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(INFINITY, x) : 1.0f / x;
  uint32_t u = bitsOf(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return fromBits(m ? 0x7fffffffu : s); // NaN; 1/inf = 0
  if (e == 0)
    return fromBits(s | 0x7f800000u); // zero and flushed subnormals
  return rcp32From(u, (*T)[m]);
}

[[gnu::noinline]] double rcp64Full(double x) {
  LazyTable *T = tableFor(Table::Rcp64);
  if (!T)
    return 1.0 / x;
  uint32_t hi = highOf(x), s = hi & 0x80000000u, e = (hi >> 20) & 0x7ff, m = hi & 0xfffff;
  if (e == 0x7ff) // the instruction reads the high word only: a NaN with a low-word payload is inf
    return fromHigh(m ? 0x7fffffffu : s);
  if (e == 0)
    return fromHigh(s | 0x7ff00000u);
  return rcp64From(hi, (*T)[m]);
}

[[gnu::noinline]] float ex2Full(float x) {
  LazyTable *P = tableFor(Table::Ex2Pos), *N = tableFor(Table::Ex2Neg);
  if (!P || !N)
    return std::fpclassify(x) == FP_SUBNORMAL ? 1.0f : float(std::exp2(double(x)));
  uint32_t u = bitsOf(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return fromBits(m ? 0x7fffffffu : (s ? 0u : 0x7f800000u));
  if (e == 0)
    return 1.0f; // a flushed subnormal: 2^0
  float a = fromBits(u & 0x7fffffffu);
  if (a >= 128.0f)
    return s ? 0.0f : INFINITY;
  uint32_t k = uint32_t(a * 0x1p23f); // the unit reads |x| to 2^-23 (truncated)
  return ex2From(s != 0, k, (s ? *N : *P)[k & 0x7fffff]);
}

[[gnu::noinline]] float root32Full(float x, bool reciprocal) {
  LazyTable *T0 = tableFor(reciprocal ? Table::Rsqrt32Even : Table::Sqrt32Even),
            *T1 = tableFor(reciprocal ? Table::Rsqrt32Odd : Table::Sqrt32Odd);
  bool subnormal = std::fpclassify(x) == FP_SUBNORMAL;
  if (!T0 || !T1) {
    if (reciprocal)
      return subnormal ? std::copysign(INFINITY, x) : float(1.0 / std::sqrt(double(x)));
    return subnormal ? std::copysign(0.0f, x) : std::sqrt(x);
  }
  uint32_t u = bitsOf(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return fromBits((m || s) ? 0x7fffffffu : reciprocal ? 0u : 0x7f800000u);
  if (e == 0) // zero and flushed subnormals: +-inf, +-0
    return fromBits(reciprocal ? s | 0x7f800000u : s);
  if (s)
    return fromBits(0x7fffffffu);
  int32_t p = int32_t(e) - 127;
  return root32From(p, (p & 1 ? *T1 : *T0)[m], reciprocal);
}

[[gnu::noinline]] double rsqrt64Full(double x) {
  LazyTable *T0 = tableFor(Table::Rsqrt64Even), *T1 = tableFor(Table::Rsqrt64Odd);
  if (!T0 || !T1)
    return 1.0 / std::sqrt(x);
  uint32_t hi = highOf(x), s = hi & 0x80000000u, e = (hi >> 20) & 0x7ff, m = hi & 0xfffff;
  const uint32_t nan = 0x7fffffffu;
  if (e == 0x7ff)
    return fromHigh((m || s) ? nan : 0);
  if (e == 0)
    return fromHigh(s | 0x7ff00000u);
  if (s)
    return fromHigh(nan);
  int32_t p = int32_t(e) - 1023;
  return rsqrt64From(p, (p & 1 ? *T1 : *T0)[m]);
}

[[gnu::noinline]] float lg2Full(float x) {
  LazyTable *T0 = tableFor(Table::Lg2E0), *T1 = tableFor(Table::Lg2Em1);
  if (!T0 || !T1)
    return std::fpclassify(x) == FP_SUBNORMAL ? -INFINITY : float(std::log2(double(x)));
  uint32_t u = bitsOf(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return fromBits((m || s) ? 0x7fffffffu : 0x7f800000u);
  if (e == 0)
    return -INFINITY; // zero and flushed subnormals
  if (s)
    return fromBits(0x7fffffffu);
  int32_t p = int32_t(e) - 127;
  return lg2From(p, (p >= 0 ? *T0 : *T1)[m]);
}

} // namespace

ApproxTableView approxTableViews[TableCount];

const ApproxModel *approxModel(ApproxTable t) {
  return int(t) >= 0 && int(t) < TableCount ? modelsByTable()[int(t)] : nullptr;
}

uint32_t approxTableEntry(int t, uint32_t i) {
  LazyTable *table = t >= 0 && t < TableCount ? tableFor(Table(t)) : nullptr;
  return table && i < kEntries[t] ? (*table)[i] : 0;
}

float approxRcpF32(float x) {
  uint32_t u = bitsOf(x), t;
  if (normal32(u) && readyEntry(Table::Rcp32, u & 0x7fffff, t))
    return rcp32From(u, t);
  return rcp32Full(x);
}

double approxRcpF64(double x) {
  uint32_t hi = highOf(x), t;
  if (normal64(hi) && readyEntry(Table::Rcp64, hi & 0xfffff, t))
    return rcp64From(hi, t);
  return rcp64Full(x);
}

float approxEx2F32(float x) {
  uint32_t u = bitsOf(x), a = u & 0x7fffffffu, t;
  if (a - 0x00800000u < 0x43000000u - 0x00800000u) { // normal, |x| < 128
    uint32_t k = uint32_t(fromBits(a) * 0x1p23f);    // the unit reads |x| to 2^-23 (truncated)
    bool negative = u >> 31;
    if (readyEntry(negative ? Table::Ex2Neg : Table::Ex2Pos, k & 0x7fffff, t))
      return ex2From(negative, k, t);
  }
  return ex2Full(x);
}

namespace {
/// rsqrt.approx.ftz.f32 (reciprocal) or sqrt.approx.ftz.f32: the table of the exponent's parity.
float root32(float x, bool reciprocal) {
  uint32_t u = bitsOf(x), t;
  int32_t p = int32_t((u >> 23) & 0xff) - 127;
  Table odd = reciprocal ? Table::Rsqrt32Odd : Table::Sqrt32Odd;
  Table even = reciprocal ? Table::Rsqrt32Even : Table::Sqrt32Even;
  if (positiveNormal32(u) && readyEntry(p & 1 ? odd : even, u & 0x7fffff, t))
    return root32From(p, t, reciprocal);
  return root32Full(x, reciprocal);
}
} // namespace

float approxRsqrtF32(float x) { return root32(x, true); }

double approxRsqrtF64(double x) {
  uint32_t hi = highOf(x), t;
  int32_t p = int32_t((hi >> 20) & 0x7ff) - 1023;
  if (positiveNormal64(hi) && readyEntry(p & 1 ? Table::Rsqrt64Odd : Table::Rsqrt64Even, hi & 0xfffff, t))
    return rsqrt64From(p, t);
  return rsqrt64Full(x);
}

namespace {
[[gnu::always_inline]] inline float lg2Unit(float x) {
  uint32_t u = bitsOf(x), t;
  int32_t p = int32_t((u >> 23) & 0xff) - 127;
  if (positiveNormal32(u) && readyEntry(p >= 0 ? Table::Lg2E0 : Table::Lg2Em1, u & 0x7fffff, t))
    return lg2From(p, t);
  return lg2Full(x);
}
} // namespace

float approxLg2F32(float x) { return lg2Unit(x); }

float approxSqrtF32(float x) { return root32(x, false); }

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

/// sin.approx (odd: the sign of t) or cos.approx (even) from table `t` at x's phase.
[[gnu::noinline]] float phaseFull(Table t, float x, bool odd, double (*fallback)(double)) {
  LazyTable *T = tableFor(t);
  if (!T)
    return float(fallback(double(x)));
  if (!std::isfinite(x))
    return fromBits(0x7fffffffu);
  bool negative;
  uint32_t q = sinCosPhase(x, negative);
  return fromBits((*T)[q] ^ (odd && negative ? 0x80000000u : 0u));
}

[[gnu::always_inline]] inline float phaseLookup(Table t, float x, bool odd, double (*fallback)(double)) {
  bool negative;
  uint32_t e;
  if (std::isfinite(x)) {
    uint32_t q = sinCosPhase(x, negative);
    if (readyEntry(t, q, e))
      return fromBits(e ^ (odd && negative ? 0x80000000u : 0u));
  }
  return phaseFull(t, x, odd, fallback);
}
} // namespace

namespace {
double sinFallback(double v) { return std::sin(v); }
double cosFallback(double v) { return std::cos(v); }
[[gnu::always_inline]] inline float sinUnit(float x) { return phaseLookup(Table::Sin, x, true, sinFallback); }
[[gnu::always_inline]] inline float cosUnit(float x) {
  return phaseLookup(Table::Cos, x, false, cosFallback);
}
} // namespace

float approxSinF32(float x) { return sinUnit(x); }
float approxCosF32(float x) { return cosUnit(x); }

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

namespace {
/// The entry of tanh's table for a float with exponent p (-8 .. 2) and mantissa m.
uint32_t tanhIndex(int p, uint32_t m) { return kTanhOffset[p + 8] + (m >> (23 - kTanhBits[p + 8])); }

[[gnu::noinline]] float tanhFull(float x) {
  LazyTable *T = tableFor(Table::Tanh);
  if (!T)
    return float(std::tanh(double(x)));
  uint32_t u = bitsOf(x), s = u & 0x80000000u, e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return fromBits(m ? 0x7fffffffu : s | 0x3f800000u);
  int p = int(e) - 127;
  if (p < -8)
    return x; // zeros and subnormals too
  if (p > 2)
    return fromBits(s | 0x3f800000u);
  return fromBits(s | (*T)[tanhIndex(p, m)]);
}
} // namespace

namespace {
[[gnu::always_inline]] inline float tanhUnit(float x) {
  uint32_t u = bitsOf(x), t;
  int p = int((u >> 23) & 0xff) - 127;
  if (p >= -8 && p <= 2 && readyEntry(Table::Tanh, tanhIndex(p, u & 0x7fffff), t))
    return fromBits((u & 0x80000000u) | t);
  return tanhFull(x);
}
} // namespace

float approxTanhF32(float x) { return tanhUnit(x); }

float approxTanhF16(float x) { return float(_Float16(tanhUnit(x))); }

float approxTanhBF16(float x) {
  // The float32 unit's result cut to bfloat16 (toward zero; NaN 0x7fff): an H100 gives
  // this for all 65536 inputs (docs/results/tanh_approx_bf16_h100.md), where rounding to
  // nearest, as tanh.approx.f16 rounds, differs in 2086 of them.
  uint32_t u = std::bit_cast<uint32_t>(tanhUnit(x));
  uint32_t r = (u & 0x7fffffffu) > 0x7f800000u ? 0x7fff0000u : (u & 0xffff0000u);
  return std::bit_cast<float>(r);
}

namespace {
/// Asks for the block holding entry i of table t (where the table is open).
inline void prefetchEntry(Table t, uint32_t i) {
  if (const Block *blocks =
          std::atomic_ref<const Block *>(approxTableViews[int(t)].blocks).load(std::memory_order_relaxed))
    __builtin_prefetch(&blocks[i >> 6]);
}

/// The entries the fast paths above read, prefetched; nothing for operands they leave to
/// the full paths.
void prefetchLg2F32(float x) {
  uint32_t u = bitsOf(x);
  prefetchEntry(((u >> 23) & 0xff) >= 127 ? Table::Lg2E0 : Table::Lg2Em1, u & 0x7fffff);
}
template <class T> void prefetchNothing(T) {}

template <class T, T (*Unit)(T), void (*Prefetch)(T)> void lanes(const T *in, T *out, int n) {
  for (int i = 0; i < n; ++i)
    Prefetch(in[i]);
  for (int i = 0; i < n; ++i)
    out[i] = Unit(in[i]);
}
} // namespace

void approxLg2F32Lanes(const float *in, float *out, int n) {
  lanes<float, lg2Unit, prefetchLg2F32>(in, out, n);
}
void approxSinF32Lanes(const float *in, float *out, int n) {
  lanes<float, sinUnit, prefetchNothing>(in, out, n);
}
void approxCosF32Lanes(const float *in, float *out, int n) {
  lanes<float, cosUnit, prefetchNothing>(in, out, n);
}
void approxTanhF32Lanes(const float *in, float *out, int n) {
  lanes<float, tanhUnit, prefetchNothing>(in, out, n);
}

} // namespace cutwin::sim
