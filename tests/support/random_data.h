// Deterministic random inputs for tests and benchmarks.
#pragma once

#include <random>
#include <vector>

namespace cutwin::test {

/// n floats uniform in [-1, 1) from a fixed seed.
inline std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(rng);
  return v;
}

} // namespace cutwin::test
