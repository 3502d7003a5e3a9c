// Build tool: derives the simulator's table models (approx_tables.h, ApproxModel) from the
// measured tables. The units these tables model interpolate a quadratic per segment of
// their input and round; over short segments their entries follow a line to within the
// rounding, so each entry k is floor(q(k)) or floor(q(k)) + 1, q a line per segment fitted
// here (least squares, quantised to fixed point, centred on the residuals: every entry
// lies within about 0.6 of it), and one bit per entry says which. Kernels evaluate that
// inline, with no call and nothing to decode; the fit is checked against every entry and
// the build fails where one does not follow it.
//
//   cutwin_fit_approx_models OUT.cpp OUT.bin SHIFT:TABLE.chunks...
//
// writes OUT.bin (the models' segment records, then their bits) and OUT.cpp, which embeds it
// and lists the models (kApproxModels).
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "cutwin_fit_approx_models: %s\n", what.c_str());
  std::exit(1);
}

uint32_t u32(const unsigned char *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

/// The entries of a .chunks file (backend_sim/approx/compress_tables.py: per chunk its
/// first entry, then the differences as four byte planes, zlib-compressed).
std::vector<uint32_t> decodeChunks(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 8)
    fail("cannot read " + path);
  uint32_t entries = u32(bytes.data()), per = u32(bytes.data() + 4);
  std::vector<uint32_t> out;
  size_t at = 8;
  while (at + 4 <= bytes.size() && out.size() < entries) {
    uint32_t n = u32(bytes.data() + at);
    at += 4;
    size_t count = std::min<size_t>(per, entries - out.size());
    std::vector<unsigned char> raw(4 + 4 * (count - 1));
    uLongf size = uLongf(raw.size());
    if (at + n > bytes.size() || uncompress(raw.data(), &size, bytes.data() + at, n) != Z_OK ||
        size != raw.size())
      fail("corrupt chunk in " + path);
    at += n;
    uint32_t v = u32(raw.data());
    out.push_back(v);
    for (size_t i = 1; i < count; ++i) {
      uint32_t d = 0;
      for (size_t k = 0; k < 4; ++k)
        d |= uint32_t(raw[4 + k * (count - 1) + i - 1]) << (8 * k);
      out.push_back(v += d);
    }
  }
  if (out.size() != entries)
    fail(path + ": fewer entries than its header says");
  return out;
}

constexpr int kFraction = 14; ///< fractional bits of a segment's base and slope (kModelFraction)

/// q(t) = (base + slope t) / 2^kFraction as kernels evaluate it, floored (approx_tables.h:
/// approxModelEntry; approx_inline.cpp): the record's low word is base's integer part,
/// its high word slope << kFraction | base's fraction.
int64_t floorQ(uint64_t record, uint32_t t) {
  int32_t packed = int32_t(uint32_t(record >> 32)), slope = packed >> kFraction;
  int32_t fraction = packed & ((1 << kFraction) - 1);
  return int64_t(uint32_t(record)) +
         ((fraction + slope * int32_t(t)) >> kFraction); // 32 bits: |slope t| < 2^28
}

/// Least-squares line through (t, y[t]) for t in [from, n): c0 + c1 t.
void fitLine(const uint32_t *y, size_t from, size_t n, long double &c0, long double &c1) {
  long double st = 0, sy = 0, stt = 0, sty = 0, m = (long double)(n - from), y0 = y[from];
  for (size_t t = from; t < n; ++t) {
    long double v = (long double)y[t] - y0;
    st += t, sy += v, stt += (long double)t * t, sty += t * v;
  }
  c1 = (m * sty - st * sy) / (m * stt - st * st);
  c0 = (sy - c1 * st) / m + y0;
}

struct Model {
  std::string name;
  uint32_t entries = 0, shift = 0, first = 0;
  std::vector<uint64_t> segments; ///< per segment (floorQ): base's integer part, slope and base's fraction
  std::vector<uint32_t> bits;     ///< bit k: entry k is floor(q(k)) + 1
};

Model fit(const std::string &path, uint32_t shift) {
  Model m;
  std::string file = path.substr(path.find_last_of('/') + 1);
  m.name = file.substr(0, file.size() - std::strlen(".chunks"));
  std::vector<uint32_t> T = decodeChunks(path);
  m.entries = uint32_t(T.size());
  m.shift = shift;
  m.first = T[0];
  size_t S = size_t(1) << shift;
  if (T.size() % S || T.size() % 32)
    fail(m.name + ": entries are not whole segments");
  m.bits.assign(T.size() / 32, 0);
  const long double one = (long double)(int64_t(1) << kFraction);
  double widest = 0;
  for (size_t seg = 0; seg < T.size() / S; ++seg) {
    const uint32_t *y = T.data() + seg * S;
    size_t from = seg == 0 ? 1 : 0; // entry 0 (x = 1 or 0) can sit across an exponent change: kept whole
    long double c0, c1;
    fitLine(y, from, S, c0, c1);
    int64_t slope = std::llround(c1 * one);
    if (slope >= (int64_t(1) << 17) || slope < -(int64_t(1) << 17)) // slope << kFraction in 32 bits
      fail(m.name + ": a segment's slope does not fit its field");
    // centred on the residuals of the line as quantised: |T - q| <= (hi - lo) / 2
    long double lo = INFINITY, hi = -INFINITY;
    for (size_t t = from; t < S; ++t) {
      long double r = (long double)y[t] - (c0 + (long double)slope * t / one);
      lo = std::min(lo, r), hi = std::max(hi, r);
    }
    int64_t base = std::llround((c0 + (lo + hi) / 2) * one);
    if (base < 0 || base >= (int64_t(1) << (32 + kFraction)) || shift > 11)
      fail(m.name + ": a segment's base or length does not fit its field");
    uint32_t packed = uint32_t(slope) << kFraction | uint32_t(base & ((1 << kFraction) - 1));
    uint64_t record = uint64_t(packed) << 32 | uint64_t(base >> kFraction);
    widest = std::max(widest, double((hi - lo) / 2));
    for (size_t t = from; t < S; ++t) {
      int64_t bit = int64_t(y[t]) - floorQ(record, uint32_t(t));
      if (bit != 0 && bit != 1)
        fail(m.name + ": entry " + std::to_string(seg * S + t) + " is not floor(q) or floor(q) + 1");
      if (bit)
        m.bits[(seg * S + t) / 32] |= uint32_t(1) << ((seg * S + t) % 32);
    }
    m.segments.push_back(record);
  }
  std::printf("cutwin_fit_approx_models: %s: %zu segments of %zu, every entry within %.3f of its line\n",
              m.name.c_str(), T.size() / S, S, widest);
  return m;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4)
    fail("usage: cutwin_fit_approx_models OUT.cpp OUT.bin SHIFT:TABLE.chunks...");
  std::string cpp = argv[1], bin = argv[2];
  std::ofstream data(bin, std::ios::binary);
  // Every model's records, then every model's bits: the arrays of consecutive models
  // follow one another (ex2's negative table then extends its positive one).
  std::vector<Model> models;
  for (int i = 3; i < argc; ++i) {
    std::string arg = argv[i];
    size_t colon = arg.find(':');
    if (colon == std::string::npos)
      fail("expected SHIFT:TABLE.chunks, got " + arg);
    models.push_back(fit(arg.substr(colon + 1), uint32_t(std::stoul(arg.substr(0, colon)))));
  }
  size_t recordBytes = 0;
  for (const Model &m : models)
    recordBytes += m.segments.size() * sizeof(uint64_t);
  std::string entries;
  size_t records = 0,
         bits = recordBytes; // offsets: multiples of 8 (records are 8 bytes, bit words come in fours)
  for (const Model &m : models) {
    data.write(reinterpret_cast<const char *>(m.segments.data()), std::streamsize(m.segments.size() * 8));
    entries += "    {\"" + m.name + "\", " + std::to_string(m.entries) + "u, " + std::to_string(m.shift) +
               "u, " + std::to_string(m.first) +
               "u, reinterpret_cast<const uint64_t *>(cutwin_approx_models + " + std::to_string(records) +
               "), reinterpret_cast<const uint32_t *>(cutwin_approx_models + " + std::to_string(bits) +
               ")},\n";
    records += m.segments.size() * 8;
    bits += m.bits.size() * 4;
  }
  for (const Model &m : models)
    data.write(reinterpret_cast<const char *>(m.bits.data()), std::streamsize(m.bits.size() * 4));
  if (!data)
    fail("cannot write " + bin);
  std::ofstream out(cpp);
  out << "// Generated by backend_sim/approx/fit_models.cpp from the measured tables.\n"
         "#include \"backend_sim/approx_tables.h\"\n\n"
         "__asm__(\".section .rodata\\n.balign 64\\n.globl cutwin_approx_models\\n.hidden "
         "cutwin_approx_models\\n"
         "cutwin_approx_models:\\n.incbin \\\""
      << bin
      << "\\\"\\n.previous\\n\");\n"
         "extern \"C\" const unsigned char cutwin_approx_models[];\n\n"
         "namespace cutwin::sim {\n\nconst ApproxModel kApproxModels[] = {\n"
      << entries << "    {nullptr, 0, 0, 0, nullptr, nullptr},\n};\n\n} // namespace cutwin::sim\n";
  return out ? 0 : 1;
}
