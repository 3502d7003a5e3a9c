// GPU benchmarks of cutwin's generated code, run on the GPU machine beside
// bench/numba_bench.py (the same kernel files with numba-cuda), with the same method:
// the time per kernel is the wall time of N back-to-back launches followed by one
// synchronisation, divided by N; compile + first launch is the wall time of compiling and
// loading the module, launching once and synchronising, less the kernel's own run time
// (the time per kernel). Prints Markdown rows.
#include "backend_gpu/cuda_driver.h"
#include "cutwin/cutwin.h"
#include "tests/support/random_data.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace cutwin;
using cutwin::test::randomFloats;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

struct Result {
  double firstMs, kernelMs;
};

std::string codegen = "nvptx";

std::shared_ptr<Module> load(const std::shared_ptr<Device> &dev, const std::string &file) {
  CompileOptions o;
  o.codegen = codegen;
  return Module::fromFile(dev, file, o);
}

Result measure(const std::shared_ptr<Device> &dev, const std::string &file, const std::string &kernel,
               Dim3 grid, Dim3 block, const std::vector<Arg> &args, int reps) {
  { // compile to PTX alone, for the breakdown of the first launch
    auto p0 = Clock::now();
    load(dev, file)->kernel(kernel).ptx(args);
    std::printf("| (compile to PTX: %s) | cutwin (%s) | - | %.1f | without the driver's PTX JIT |\n",
                kernel.c_str(), codegen.c_str(), seconds(p0, Clock::now()) * 1e3);
  }
  auto t0 = Clock::now();
  auto k = load(dev, file)->kernel(kernel);
  k.launch(grid, block, args);
  dev->synchronize();
  auto t1 = Clock::now();
  for (int i = 0; i < 3; ++i)
    k.launch(grid, block, args);
  dev->synchronize();
  auto t2 = Clock::now();
  for (int i = 0; i < reps; ++i)
    k.launch(grid, block, args);
  dev->synchronize();
  auto t3 = Clock::now();
  double kernelMs = seconds(t2, t3) * 1e3 / reps;
  return {seconds(t0, t1) * 1e3 - kernelMs, kernelMs};
}

constexpr int kBurst = 256;

/// Host time per launch: bursts of kBurst launches (fewer than the GPU's launch queue
/// holds, so the host never waits for the GPU), synchronised between bursts outside the
/// timing.
double burstUs(const std::function<void()> &launch, const std::function<void()> &sync) {
  launch();
  sync();
  double spent = 0;
  int launches = 0;
  for (int b = 0; b < 40; ++b) {
    auto t0 = Clock::now();
    for (int i = 0; i < kBurst; ++i)
      launch();
    spent += seconds(t0, Clock::now());
    launches += kBurst;
    sync();
  }
  return spent * 1e6 / launches;
}

/// The floor for launch overhead: the same PTX loaded and launched with the driver API
/// directly (a zeroed parameter buffer of the right size; the kernel reads nothing), in
/// the device's context, timed like burstUs().
double rawDriverLaunchUs(const std::string &ptx) {
  const gpu::CudaDriver &d = *gpu::CudaDriver::get();
  size_t at = ptx.find(".entry ") + 7;
  std::string entry = ptx.substr(at, ptx.find('(', at) - at);
  size_t params = 0;
  for (size_t p = ptx.find(".param", at); p != std::string::npos && p < ptx.find(')', at);
       p = ptx.find(".param", p + 1))
    ++params;
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  d.check(d.cuModuleLoadDataEx(&mod, ptx.c_str(), 0, nullptr, nullptr), "cuModuleLoadDataEx");
  d.check(d.cuModuleGetFunction(&fn, mod, entry.c_str()), "cuModuleGetFunction");
  std::vector<uint64_t> buffer(params, 0);
  size_t size = buffer.size() * sizeof(uint64_t);
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   CU_LAUNCH_PARAM_END};
  auto launch = [&] {
    d.check(d.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra), "launch");
  };
  double us = burstUs(launch, [&] { d.check(d.cuCtxSynchronize(), "cuCtxSynchronize"); });
  d.cuModuleUnload(mod);
  return us;
}

} // namespace

int main(int argc, char **argv) {
  std::string root = argc > 1 ? argv[1] : ".";
  if (argc > 2)
    codegen = argv[2];
  std::string impl = "cutwin (" + std::string(codegen == "nvvm" ? "NVVM" : "NVPTX") + ")";
  std::string cases = root + "/conformance/cases", kernels = root + "/bench/kernels";
  auto dev = Device::open("gpu");
  std::printf("| benchmark | implementation | kernel ms | compile + first launch ms | note "
              "|\n|---|---|---|---|---|\n");
  auto row = [&](const char *what, const Result &r, const std::string &note) {
    std::printf("| %s | %s | %.4f | %.1f | %s |\n", what, impl.c_str(), r.kernelMs, r.firstMs, note.c_str());
  };

  { // vector add, 64 M float32, against a device-to-device copy of the same bytes
    const int64_t n = 64ll << 20;
    auto a = dev->toDevice(randomFloats(size_t(n), 1)), b = dev->toDevice(randomFloats(size_t(n), 2));
    auto c = dev->zeros(DType::F32, {n});
    auto big = dev->zeros(DType::F32, {3 * n / 2}), big2 = dev->zeros(DType::F32, {3 * n / 2});
    big.copyFrom(big2);
    dev->synchronize();
    auto c0 = Clock::now();
    for (int i = 0; i < 20; ++i)
      big.copyFrom(big2);
    dev->synchronize();
    double copyMs = seconds(c0, Clock::now()) * 1e3 / 20; // reads and writes 12 bytes per vadd element
    std::printf("| device-to-device copy of 768 MB | cuMemcpyDtoD | %.4f | - | %.0f GB/s (read + write), the "
                "baseline "
                "for vadd |\n",
                copyMs, 2.0 * 6 * double(n) / (copyMs * 1e-3) / 1e9);
    Result r = measure(dev, cases + "/vadd/kernel.py", "vadd", Dim3(uint32_t(n / 256)), 256, {a, b, c}, 50);
    double gbps = 3.0 * 4 * double(n) / (r.kernelMs * 1e-3) / 1e9;
    char note[128];
    std::snprintf(note, sizeof note, "%.0f GB/s, %.0f %% of the copy", gbps, 100.0 * copyMs / r.kernelMs);
    row("vadd 64M float32", r, note);
    {                                        // the same sum with two elements per thread
      auto c2 = dev->zeros(DType::F32, {n}); // fresh, so a kernel that writes nothing is caught
      Result r2 = measure(dev, cases + "/vadd_two/kernel.py", "vadd_two", Dim3(uint32_t(n / 512)), 256,
                          {a, b, c2}, 50);
      std::vector<float> got = c2.toVector<float>(), x = randomFloats(size_t(n), 1),
                         y = randomFloats(size_t(n), 2);
      size_t wrong = 0;
      for (size_t i = 0; i < got.size(); ++i)
        wrong += got[i] != x[i] + y[i];
      std::snprintf(note, sizeof note, "two elements per thread: %.0f GB/s, %.0f %% of the copy%s",
                    3.0 * 4 * double(n) / (r2.kernelMs * 1e-3) / 1e9, 100.0 * copyMs / r2.kernelMs,
                    wrong ? " (WRONG RESULT)" : "");
      row("vadd 64M float32 (vadd_two)", r2, note);
    }
    for (uint32_t tpb : {128u, 512u, 1024u}) { // how the block size moves the bandwidth
      Result rb =
          measure(dev, cases + "/vadd/kernel.py", "vadd", Dim3(uint32_t(n / tpb)), tpb, {a, b, c}, 50);
      std::snprintf(note, sizeof note, "%u threads per block: %.0f GB/s, %.0f %% of the copy", tpb,
                    3.0 * 4 * double(n) / (rb.kernelMs * 1e-3) / 1e9, 100.0 * copyMs / rb.kernelMs);
      row("vadd 64M float32 (block size)", rb, note);
    }
  }
  const int m = 2048;
  auto A = dev->toDevice(randomFloats(size_t(m) * m, 3), {m, m}),
       B = dev->toDevice(randomFloats(size_t(m) * m, 4), {m, m});
  auto C = dev->zeros(DType::F32, {m, m});
  { // naive matmul 2048^2
    Result r = measure(dev, cases + "/matmul_naive/kernel.py", "matmul", Dim3(m / 16, m / 16), Dim3(16, 16),
                       {A, B, C}, 10);
    char note[128];
    std::snprintf(note, sizeof note, "%.0f GFLOP/s", 2.0 * m * m * m / (r.kernelMs * 1e-3) / 1e9);
    row("naive matmul 2048x2048 float32", r, note);
  }
  { // tiled matmul 2048^2
    Result r = measure(dev, cases + "/matmul_tiled/kernel.py", "matmul_tiled", Dim3(m / 16, m / 16),
                       Dim3(16, 16), {A, B, C}, 20);
    char note[128];
    std::snprintf(note, sizeof note, "%.0f GFLOP/s", 2.0 * m * m * m / (r.kernelMs * 1e-3) / 1e9);
    row("16x16 tiled matmul 2048x2048 float32", r, note);
  }
  { // block sum 16 M float32
    const int64_t n = 16ll << 20;
    auto x = dev->toDevice(randomFloats(size_t(n), 5));
    auto partial = dev->zeros(DType::F32, {n / 256});
    Result r = measure(dev, cases + "/block_sum/kernel.py", "block_sum", Dim3(uint32_t(n / 256)), 256,
                       {x, partial}, 50);
    char note[128];
    std::snprintf(note, sizeof note, "%.0f GB/s", 4.0 * double(n) / (r.kernelMs * 1e-3) / 1e9);
    row("shared-memory block sum 16M float32", r, note);
  }
  { // launch overhead: empty kernel, one array argument
    auto a = dev->zeros(DType::F32, {16});
    Result r = measure(dev, kernels + "/empty.py", "empty", 1, 32, {a}, 2000);
    std::printf(
        "| empty kernel, 1 array argument | %s, C++ launch | %.4f | %.1f | %.1f us per launch, back to "
        "back (the GPU's rate of empty kernels) |\n",
        impl.c_str(), r.kernelMs, r.firstMs, r.kernelMs * 1e3);
    auto k = load(dev, kernels + "/empty.py")->kernel("empty");
    double hostUs = burstUs([&] { k.launch(1, 32, {a}); }, [&] { dev->synchronize(); });
    double rawUs = rawDriverLaunchUs(k.ptx({a}));
    std::printf(
        "| empty kernel, 1 array argument | %s, C++ launch, host time | %.4f | - | %.1f us per launch "
        "(bursts of %d); cuLaunchKernel alone on the same PTX: %.1f us, so cutwin's dispatch adds %.1f us "
        "|\n",
        impl.c_str(), hostUs * 1e-3, hostUs, kBurst, rawUs, hostUs - rawUs);
  }
  return 0;
}
