// Runs a Numba CUDA kernel module on the cutwin simulator and checks the result.
#include "cutwin/cutwin.h"

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  const char *file = argc > 1 ? argv[1] : "vadd.py";
  const int n = 1000;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = 0.5f * float(i);
  }
  try {
    auto dev = cutwin::Device::open("sim");
    auto mod = cutwin::Module::fromFile(dev, file);
    auto da = dev->toDevice(a), db = dev->toDevice(b);
    auto out = dev->zeros(cutwin::DType::F32, {n});
    mod->kernel("vadd").launch((n + 255) / 256, 256, {da, db, out});
    std::vector<float> c = out.toVector<float>();
    for (int i = 0; i < n; ++i)
      if (c[i] != a[i] + b[i]) {
        std::printf("mismatch at %d\n", i);
        return 1;
      }
    std::printf("vadd: %d values correct\n", n);
  } catch (const cutwin::Error &e) {
    std::printf("%s\n", e.what());
    return 1;
  }
  return 0;
}
