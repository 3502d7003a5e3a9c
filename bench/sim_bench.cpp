// Simulator throughput against plain C++ implementations of the same algorithms, in the
// same process: vector add (no barrier), 16x16 shared-memory tiled matmul (barriers), a
// shared-memory histogram (atomics), a shared-memory block sum (barriers in a loop), a
// warp-shuffle reduction (warp operations), math functions (libdevice compiled for the CPU
// against glibc), and the cost of one barrier per thread. Barrier kernels run both ways:
// split at their barriers and as fibers. Prints a Markdown table (docs/performance.md).
#include "cutwin/cutwin.h"
#include "tests/support/random_data.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace cutwin;
using cutwin::test::randomFloats;

namespace {

/// Median wall time of `reps` runs, in seconds (after one warm-up run).
double timeIt(const std::function<void()> &f, int reps = 5) {
  f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto s = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// The least disturbed of `reps` runs of a and of b, alternated so that both meet the same
/// load on a shared machine (after one warm-up run each), in seconds.
std::pair<double, double> timePair(const std::function<void()> &a, const std::function<void()> &b,
                                   int reps = 7) {
  auto once = [](const std::function<void()> &f) {
    auto s = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
  };
  a();
  b();
  double ta = 1e30, tb = 1e30;
  for (int i = 0; i < reps; ++i) {
    ta = std::min(ta, once(a));
    tb = std::min(tb, once(b));
  }
  return {ta, tb};
}

// Plain C++ baselines, compiled -O2 like the rest of the project.
void vaddPlain(const float *a, const float *b, float *c, int64_t n, bool parallel) {
  if (!parallel) {
    for (int64_t i = 0; i < n; ++i)
      c[i] = a[i] + b[i];
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, 256), [&](const tbb::blocked_range<int64_t> &r) {
    for (int64_t i = r.begin(); i != r.end(); ++i)
      c[i] = a[i] + b[i];
  });
}

/// The tiled algorithm of the kernel, written as C++ loops over blocks, tiles and threads.
void tiledPlain(const float *A, const float *B, float *C, int n, bool parallel) {
  const int T = 16, nb = (n + T - 1) / T;
  auto block = [&](int bid) {
    int bx = bid % nb, by = bid / nb;
    float sA[16][16], sB[16][16], acc[16][16] = {};
    for (int t = 0; t < nb; ++t) {
      for (int ty = 0; ty < T; ++ty)
        for (int tx = 0; tx < T; ++tx) {
          int x = bx * T + tx, y = by * T + ty;
          sA[ty][tx] = (y < n && tx + t * T < n) ? A[size_t(y) * n + tx + t * T] : 0.f;
          sB[ty][tx] = (x < n && ty + t * T < n) ? B[size_t(ty + t * T) * n + x] : 0.f;
        }
      for (int ty = 0; ty < T; ++ty)
        for (int tx = 0; tx < T; ++tx)
          for (int j = 0; j < T; ++j)
            acc[ty][tx] += sA[ty][j] * sB[j][tx];
    }
    for (int ty = 0; ty < T; ++ty)
      for (int tx = 0; tx < T; ++tx) {
        int x = bx * T + tx, y = by * T + ty;
        if (x < n && y < n)
          C[size_t(y) * n + x] = acc[ty][tx];
      }
  };
  if (!parallel) {
    for (int b = 0; b < nb * nb; ++b)
      block(b);
    return;
  }
  tbb::parallel_for(0, nb * nb, block);
}

/// The histogram kernel's algorithm: per block a private histogram of its grid-stride
/// slices, merged into the result with one atomic add per bin.
void histogramPlain(const int32_t *x, int64_t n, int32_t *bins, int blocks) {
  const int T = 256;
  tbb::parallel_for(0, blocks, [&](int b) {
    int32_t h[T] = {};
    for (int t = 0; t < T; ++t)
      for (int64_t i = int64_t(b) * T + t; i < n; i += int64_t(blocks) * T)
        ++h[x[i]];
    for (int t = 0; t < T; ++t)
      std::atomic_ref<int32_t>(bins[t]).fetch_add(h[t], std::memory_order_relaxed);
  });
}

/// The block-sum kernel's algorithm: per block of 256, the same tree of additions.
void blockSumPlain(const float *x, int64_t n, float *out) {
  const int T = 256;
  tbb::parallel_for(int64_t(0), n / T, [&](int64_t b) {
    float s[T];
    std::copy(x + b * T, x + b * T + T, s);
    for (int step = T / 2; step > 0; step /= 2)
      for (int t = 0; t < step; ++t)
        s[t] += s[t + step];
    out[b] = s[0];
  });
}

/// The warp-sum kernel's algorithm: per warp, five steps of lane l adding lane l + offset
/// (lanes past 31 add their own value, as shfl_down_sync gives them).
void warpSumPlain(const float *x, int64_t n, float *out) {
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n / 32, 64), [&](const tbb::blocked_range<int64_t> &r) {
    for (int64_t w = r.begin(); w != r.end(); ++w) {
      float v[32], next[32];
      std::copy(x + w * 32, x + w * 32 + 32, v);
      for (int off = 16; off > 0; off /= 2) {
        for (int l = 0; l < 32; ++l)
          next[l] = v[l] + (l + off < 32 ? v[l + off] : v[l]);
        std::copy(next, next + 32, v);
      }
      out[w] = v[0];
    }
  });
}

/// Whether to run a section: all of them, or those named in CUTWIN_BENCH_ONLY (comma-separated:
/// compile, vadd, matmul, histogram, blocksum, warp, math, barrier), for measuring one thing
/// repeatedly.
bool want(const char *section) {
  const char *only = std::getenv("CUTWIN_BENCH_ONLY");
  if (!only || !*only)
    return true;
  std::string list = std::string(",") + only + ",";
  return list.find(std::string(",") + section + ",") != std::string::npos;
}

void row(const char *what, const char *mode, double tSim, double tBase, double threads,
         const char *extra = "") {
  std::printf("| %s | %s | %.2f | %.2f | %.2f | %.0f M | %s |\n", what, mode, tSim * 1e3, tBase * 1e3,
              tSim / tBase, threads / tSim / 1e6, extra);
}

} // namespace

int main(int argc, char **argv) {
  // Arguments (for a copy of the repository elsewhere, ci/gpu/): bench/kernels and
  // conformance/cases. vadd, the tiled matmul and the block sum are the conformance suite's.
  std::string dir = argc > 1 ? argv[1] : CUTWIN_BENCH_KERNELS;
  std::string cases = argc > 2 ? argv[2] : CUTWIN_CONFORMANCE_CASES;
  auto caseKernel = [&](const char *name) { return cases + "/" + name + "/kernel.py"; };
  auto dev = Device::open("sim");
  // Barrier kernels run both ways: split at their barriers (the default) and as fibers.
  setenv("CUTWIN_SIM_THREADS", "fibers", 1);
  auto fibersDev = Device::open("sim");
  unsetenv("CUTWIN_SIM_THREADS");
  struct Way {
    std::shared_ptr<Device> dev;
    std::string mode;
  };
  const std::string cores = std::to_string(tbb::this_task_arena::max_concurrency()) + " cores";
  const Way ways[] = {{dev, "TBB, " + cores + ", regions"}, {fibersDev, "TBB, " + cores + ", fibers"}};
  CompileOptions checked, unchecked;
  unchecked.boundscheck = false;

  std::printf("| benchmark | mode | sim ms | plain C++ ms | ratio | simulated threads/s | note |\n");
  std::printf("|---|---|---|---|---|---|---|\n");

  const int64_t n = 1 << 24; // elements of vadd and the histogram
  if (want("compile")) {
    // Compile time: parse + type + lower + optimise + JIT, measured as the first launch of a
    // fresh module minus a second launch. First in the process, so that math_libdevice's
    // is the process's first use of libdevice (reading and preparing it, decoding the table
    // chunks its inputs reach); vadd's includes starting the JIT.
    for (const char *name : {"vadd", "matmul_tiled", "math_libdevice"}) {
      auto d = Device::open("sim");
      auto one = d->zeros(DType::F32, {256});
      std::vector<Arg> args;
      if (std::string(name) == "matmul_tiled") {
        auto sq = d->zeros(DType::F32, {16, 16});
        args = {sq, sq, sq};
      } else if (std::string(name) == "vadd") {
        args = {one, one, one};
      } else { // the math kernel's inputs spread, so that its first launch decodes table chunks as a
               // real one does (zeros would reach one chunk per table)
        std::vector<float> spread(256);
        for (size_t i = 0; i < spread.size(); ++i)
          spread[i] = 0.1f + 4.9f * float(i) / 255.0f;
        args = {d->toDevice(spread), one};
      }
      auto t0 = std::chrono::steady_clock::now();
      std::string file =
          std::string(name) == "math_libdevice" ? dir + "/math_libdevice.py" : caseKernel(name);
      CompileOptions compiled; // compiled here, not loaded from the kernel cache on disk
      compiled.cache = false;
      auto m = Module::fromFile(d, file, compiled);
      m->kernel(name).launch(1, 16, args);
      auto t1 = std::chrono::steady_clock::now();
      m->kernel(name).launch(1, 16, args);
      auto t2 = std::chrono::steady_clock::now();
      double first = std::chrono::duration<double, std::milli>(t1 - t0).count();
      double again = std::chrono::duration<double, std::milli>(t2 - t1).count();
      std::printf("| compile + first launch: %s | - | %.1f | - | - | - | second launch %.3f ms |\n", name,
                  first, again);
    }
  }

  if (want("vadd")) {
    // Vector add, 16 M float32, 256 threads per block.
    auto a = randomFloats(size_t(n), 1), b = randomFloats(size_t(n), 2);
    std::vector<float> c(static_cast<size_t>(n));
    for (bool bc : {true, false}) {
      for (bool par : {false, true}) {
        // The scheduler reads CUTWIN_SIM_SERIAL when a device is opened.
        setenv("CUTWIN_SIM_SERIAL", par ? "0" : "1", 1);
        auto d = Device::open("sim");
        auto k = Module::fromFile(d, caseKernel("vadd"), bc ? checked : unchecked)->kernel("vadd");
        auto da = d->toDevice(a), db = d->toDevice(b), dc = d->zeros(DType::F32, {n});
        double tSim = timeIt([&] { k.launch(Dim3(uint32_t(n / 256)), 256, {da, db, dc}); });
        double tBase = timeIt([&] { vaddPlain(a.data(), b.data(), c.data(), n, par); });
        if (dc.toVector<float>() != c) {
          std::fprintf(stderr, "vadd: simulator and C++ results differ\n");
          return 1;
        }
        row("vadd 16M float32", par ? ("TBB, " + cores).c_str() : "1 thread", tSim, tBase, double(n),
            bc ? "bounds checks on" : "bounds checks off");
      }
    }
    unsetenv("CUTWIN_SIM_SERIAL");
  }

  if (want("matmul")) {
    // Tiled matmul 512 x 512 (two barriers per tile, 32 tiles).
    const int m = 512;
    auto A = randomFloats(size_t(m) * m, 3), B = randomFloats(size_t(m) * m, 4);
    std::vector<float> C(static_cast<size_t>(m) * m);
    for (const Way &way : ways)
      for (bool bc : {true, false}) {
        auto dA = way.dev->toDevice(A, {m, m}), dB = way.dev->toDevice(B, {m, m});
        auto dC = way.dev->zeros(DType::F32, {m, m});
        auto mod = Module::fromFile(way.dev, caseKernel("matmul_tiled"), bc ? checked : unchecked);
        auto k = mod->kernel("matmul_tiled");
        double tSim = timeIt([&] { k.launch(Dim3(m / 16, m / 16), Dim3(16, 16), {dA, dB, dC}); }, 3);
        double tBase = timeIt([&] { tiledPlain(A.data(), B.data(), C.data(), m, true); }, 3);
        row("tiled matmul 512x512", way.mode.c_str(), tSim, tBase, double(m) * m,
            bc ? "bounds checks on; 64 barriers per thread" : "bounds checks off; 64 barriers per thread");
        // The kernel fuses its multiply-adds; the plain loop (compiled without contraction)
        // does not, so the two agree to rounding only.
        auto got = dC.toVector<float>();
        for (size_t i = 0; i < got.size(); ++i)
          if (std::fabs(got[i] - C[i]) > 1e-4f * (1 + std::fabs(C[i]))) {
            std::fprintf(stderr, "tiled matmul: simulator and C++ results differ at %zu\n", i);
            return 1;
          }
      }
  }

  if (want("histogram")) {
    // Shared-memory histogram, 16 M int32 values in 256 bins, 512 blocks of 256 threads.
    const int blocks = 512;
    std::mt19937 gen(5);
    std::vector<int32_t> x(static_cast<size_t>(n));
    for (auto &v : x)
      v = int32_t(gen() % 256);
    for (const Way &way : ways) {
      std::vector<int32_t> bins(256);
      auto k = Module::fromFile(way.dev, dir + "/histogram.py", unchecked)->kernel("histogram");
      auto dx = way.dev->toDevice(x), dbins = way.dev->zeros(DType::I32, {256});
      double tSim = timeIt([&] { k.launch(blocks, 256, {dx, dbins}); }, 3);
      double tBase = timeIt([&] { histogramPlain(x.data(), n, bins.data(), blocks); }, 3);
      auto got = dbins.toVector<int32_t>();
      for (int b = 0; b < 256; ++b) // both accumulated over warm-up and timed runs alike
        if (got[size_t(b)] != bins[size_t(b)]) {
          std::fprintf(stderr, "histogram: simulator and C++ results differ in bin %d\n", b);
          return 1;
        }
      row("shared-memory histogram 16M int32", way.mode.c_str(), tSim, tBase, double(blocks) * 256,
          "atomics on shared and global memory; 2 barriers per thread");
    }
  }

  if (want("blocksum")) {
    // Block sums of 16 M float32: a tree in shared memory, 9 barriers per thread.
    auto x = randomFloats(size_t(n), 8);
    std::vector<float> sums(size_t(n / 256));
    for (const Way &way : ways) {
      auto k = Module::fromFile(way.dev, caseKernel("block_sum"), unchecked)->kernel("block_sum");
      auto dx = way.dev->toDevice(x), dsums = way.dev->zeros(DType::F32, {n / 256});
      double tSim = timeIt([&] { k.launch(uint32_t(n / 256), 256, {dx, dsums}); }, 3);
      double tBase = timeIt([&] { blockSumPlain(x.data(), n, sums.data()); }, 3);
      if (dsums.toVector<float>() != sums) {
        std::fprintf(stderr, "block sum: simulator and C++ results differ\n");
        return 1;
      }
      row("block sum 16M float32", way.mode.c_str(), tSim, tBase, double(n), "9 barriers per thread");
    }
  }

  if (want("warp")) {
    // Warp-shuffle reduction, 1 M float32: 5 shfl_down_sync per thread.
    {
      const int64_t w = 1 << 20;
      auto x = randomFloats(size_t(w), 6);
      std::vector<float> sums(size_t(w / 32));
      auto k = Module::fromFile(dev, dir + "/warp_sum.py", unchecked)->kernel("warp_sum");
      auto dx = dev->toDevice(x), dsums = dev->zeros(DType::F32, {w / 32});
      double tSim = timeIt([&] { k.launch(uint32_t(w / 256), 256, {dx, dsums}); }, 3);
      double tBase = timeIt([&] { warpSumPlain(x.data(), w, sums.data()); }, 3);
      if (dsums.toVector<float>() != sums) {
        std::fprintf(stderr, "warp sum: simulator and C++ results differ\n");
        return 1;
      }
      row("warp-shuffle sum 1M float32", ("TBB, " + cores).c_str(), tSim, tBase, double(w),
          "5 warp shuffles per thread");
    }
  }

  if (want("math")) {
    // Math throughput: libdevice on the simulator against glibc on the same TBB threads,
    // 4 M elements, float32 and float64, positive inputs (log and pow need them).
    {
      const int64_t m = 1 << 22;
      auto x32 = randomFloats(size_t(m), 7);
      for (auto &v : x32)
        v = std::fabs(v) * 10.0f + 0.01f;
      std::vector<double> x64(x32.begin(), x32.end());
      std::vector<float> y32(x32.size());
      std::vector<double> y64(x64.size());
      auto mod = Module::fromFile(dev, dir + "/math_throughput.py", unchecked);
      auto d32 = dev->toDevice(x32), d64 = dev->toDevice(x64);
      auto o32 = dev->zeros(DType::F32, {m}), o64 = dev->zeros(DType::F64, {m});
      auto each = [&](auto &in, auto &out, auto f) {
        tbb::parallel_for(tbb::blocked_range<size_t>(0, in.size(), 4096),
                          [&](const tbb::blocked_range<size_t> &r) {
                            for (size_t i = r.begin(); i != r.end(); ++i)
                              out[i] = f(in[i]);
                          });
      };
      struct Fn {
        const char *kernel, *name32, *name64;
        float (*f32)(float);
        double (*f64)(double);
      };
      const Fn fns[] = {
          {"sin_each", "sinf", "sin", [](float v) { return std::sin(v); },
           [](double v) { return std::sin(v); }},
          {"exp_each", "expf", "exp", [](float v) { return std::exp(v); },
           [](double v) { return std::exp(v); }},
          {"log_each", "logf", "log", [](float v) { return std::log(v); },
           [](double v) { return std::log(v); }},
          {"pow_each", "powf", "pow", [](float v) { return std::pow(v, 1.7f); },
           [](double v) { return std::pow(v, 1.7); }},
      };
      for (const Fn &f : fns) {
        auto k = mod->kernel(f.kernel);
        for (bool single : {true, false}) {
          // pow_each takes its exponent (1.7 in the input's type) as an argument
          std::vector<Arg> a32 = {d32, o32}, a64 = {d64, o64};
          if (std::string(f.kernel) == "pow_each") {
            a32.insert(a32.begin() + 1, Arg(1.7f));
            a64.insert(a64.begin() + 1, Arg(1.7));
          }
          auto [tSim, tLibm] =
              single
                  ? timePair([&] { k.launch(uint32_t(m / 256), 256, a32); }, [&] { each(x32, y32, f.f32); })
                  : timePair([&] { k.launch(uint32_t(m / 256), 256, a64); }, [&] { each(x64, y64, f.f64); });
          std::string what = std::string(single ? f.name32 : f.name64) + " 4M (glibc baseline)";
          char note[96];
          std::snprintf(note, sizeof note, "%.1f ns per element (glibc %.1f ns)", tSim / double(m) * 1e9,
                        tLibm / double(m) * 1e9);
          row(what.c_str(), ("TBB, " + cores).c_str(), tSim, tLibm, double(m), note);
        }
      }
    }
  }

  if (want("barrier")) {
    // Barrier cost: threads that only synchronise.
    unsigned ncores = unsigned(tbb::this_task_arena::max_concurrency());
    for (const Way &way : ways) {
      auto mod = Module::fromFile(way.dev, dir + "/barriers.py", unchecked);
      auto k = mod->kernel("barriers");
      for (uint32_t tpb : {32u, 256u, 1024u}) {
        const int64_t rounds = 200;
        const uint32_t blocks = 64;
        auto out = way.dev->zeros(DType::I64, {int64_t(blocks) * tpb});
        auto run = [&](int64_t r) { k.launch(blocks, tpb, {out, r}); };
        double t1 = timeIt([&] { run(rounds); }), t0 = timeIt([&] { run(0); });
        double perBarrier = (t1 - t0) / (double(blocks) * tpb * rounds) * 1e9;
        std::printf("| barrier cost, %u threads per block | %s | %.2f | - | - | - | %.1f ns per thread per "
                    "barrier (wall time / threads; %.1f ns per core) |\n",
                    tpb, way.mode.c_str(), t1 * 1e3, perBarrier, perBarrier * ncores);
      }
    }
  }
  return 0;
}
