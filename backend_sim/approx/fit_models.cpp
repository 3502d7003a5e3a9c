// Build tool: derives the simulator's table models (approx_tables.h, ApproxModel) from the
// measured tables. The units these tables model interpolate a quadratic per segment of
// their input and round; so each entry k is floor(q(k)) or floor(q(k)) + 1, q a quadratic
// per segment fitted here (least squares, then centred on the residuals: every entry lies
// within 0.6 of it), and one bit per entry says which. Kernels evaluate that inline, with
// no call and nothing to decode; the fit is checked against every entry and the build
// fails where one does not follow it.
//
//   cutwin_fit_approx_models OUT.cpp OUT.bin SHIFT:TABLE.chunks...
//
// writes OUT.bin (per model: its coefficients, then its bits) and OUT.cpp, which embeds it
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

/// q(t) = c0 + t (c1 + t c2) as kernels evaluate it (approx_inline.cpp, approx_tables.cpp).
double evaluate(const double *c, double t) { return std::fma(std::fma(c[2], t, c[1]), t, c[0]); }

/// Least-squares quadratic through (t, y[t]) for t in [from, n), in u = t / n, returned in
/// t's units (exact: n is a power of two).
void fitQuadratic(const uint32_t *y, size_t from, size_t n, double *c) {
  long double s[5] = {}, r[3] = {};
  long double y0 = y[from];
  for (size_t t = from; t < n; ++t) {
    long double u = (long double)t / n, v = (long double)y[t] - y0, p = 1;
    for (int k = 0; k < 5; ++k, p *= u) {
      s[k] += p;
      if (k < 3)
        r[k] += p * v;
    }
  }
  long double a[3][4] = {{s[0], s[1], s[2], r[0]}, {s[1], s[2], s[3], r[1]}, {s[2], s[3], s[4], r[2]}};
  for (int i = 0; i < 3; ++i) // Gauss-Jordan; the system is small and well conditioned in u
    for (int j = 0; j < 3; ++j) {
      if (i == j)
        continue;
      long double f = a[j][i] / a[i][i];
      for (int k = i; k < 4; ++k)
        a[j][k] -= f * a[i][k];
    }
  long double b0 = a[0][3] / a[0][0], b1 = a[1][3] / a[1][1], b2 = a[2][3] / a[2][2];
  c[0] = double(b0 + y0);
  c[1] = double(b1 / n);
  c[2] = double(b2 / ((long double)n * n));
}

struct Model {
  std::string name;
  uint32_t entries = 0, shift = 0, first = 0;
  std::vector<double> coefficients; ///< per segment c0, c1, c2
  std::vector<uint32_t> bits;       ///< bit k: entry k is floor(q(k)) + 1
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
  double widest = 0;
  for (size_t seg = 0; seg < T.size() / S; ++seg) {
    const uint32_t *y = T.data() + seg * S;
    size_t from = seg == 0 ? 1 : 0; // entry 0 (x = 1 or 0) can sit across an exponent change: kept whole
    double c[3];
    fitQuadratic(y, from, S, c);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t t = from; t < S; ++t) {
      double r = double(y[t]) - evaluate(c, double(t));
      lo = std::min(lo, r), hi = std::max(hi, r);
    }
    c[0] += (lo + hi) / 2; // centred: |T - q| <= (hi - lo) / 2
    widest = std::max(widest, (hi - lo) / 2);
    for (size_t t = from; t < S; ++t) {
      int64_t base = int64_t(std::floor(evaluate(c, double(t))));
      int64_t bit = int64_t(y[t]) - base;
      if (bit != 0 && bit != 1)
        fail(m.name + ": entry " + std::to_string(seg * S + t) + " is not floor(q) or floor(q) + 1");
      if (bit)
        m.bits[(seg * S + t) / 32] |= uint32_t(1) << ((seg * S + t) % 32);
    }
    m.coefficients.insert(m.coefficients.end(), c, c + 3);
  }
  std::printf("cutwin_fit_approx_models: %s: %zu segments of %zu, every entry within %.3f of its quadratic\n",
              m.name.c_str(), T.size() / S, S, widest);
  return m;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4)
    fail("usage: cutwin_fit_approx_models OUT.cpp OUT.bin SHIFT:TABLE.chunks...");
  std::string cpp = argv[1], bin = argv[2];
  std::ofstream data(bin, std::ios::binary);
  std::string entries;
  size_t offset = 0;
  for (int i = 3; i < argc; ++i) {
    std::string arg = argv[i];
    size_t colon = arg.find(':');
    if (colon == std::string::npos)
      fail("expected SHIFT:TABLE.chunks, got " + arg);
    Model m = fit(arg.substr(colon + 1), uint32_t(std::stoul(arg.substr(0, colon))));
    size_t cbytes = m.coefficients.size() * sizeof(double), bbytes = m.bits.size() * sizeof(uint32_t);
    data.write(reinterpret_cast<const char *>(m.coefficients.data()), std::streamsize(cbytes));
    data.write(reinterpret_cast<const char *>(m.bits.data()), std::streamsize(bbytes));
    entries += "    {\"" + m.name + "\", " + std::to_string(m.entries) + "u, " + std::to_string(m.shift) +
               "u, " + std::to_string(m.first) +
               "u, reinterpret_cast<const double *>(cutwin_approx_models + " + std::to_string(offset) +
               "), reinterpret_cast<const uint32_t *>(cutwin_approx_models + " +
               std::to_string(offset + cbytes) + ")},\n";
    offset += cbytes + bbytes; // multiples of 8: coefficients are doubles, bit words come in fours
  }
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
