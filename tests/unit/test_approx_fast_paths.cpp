// The approximation units' fast paths (a normal operand whose table chunk is decoded,
// read through approxTableViews) against their full paths (the table's own lookup, taken
// when the views are cleared): bit for bit, on random bit patterns, each unit's domain
// swept densely, and the edges. The full paths are checked against the GPU's values by
// test_approx_tables.cpp and the conformance cases.
#include "backend_sim/approx_ops.h"
#include "backend_sim/approx_tables.h"
#include "backend_sim/host_callbacks.h" // cutwin_sim_approx_f32/f64

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using namespace cutwin::sim;

/// Runs f with the fast paths off: the views hidden, so lookups take the full paths.
template <class F> auto withoutFastPaths(F f) {
  ApproxTableView saved[int(ApproxTable::Count)];
  for (int t = 0; t < int(ApproxTable::Count); ++t) {
    saved[t] = approxTableViews[t];
    approxTableViews[t].blocks = nullptr;
  }
  auto r = f();
  for (int t = 0; t < int(ApproxTable::Count); ++t)
    approxTableViews[t] = saved[t];
  return r;
}

/// Random bit patterns, values spread over [-range, range], the neighbourhood of every
/// power of two, and the edges.
std::vector<float> floatInputs(float range) {
  std::mt19937 gen(5);
  std::vector<float> v;
  for (int i = 0; i < 300000; ++i)
    v.push_back(std::bit_cast<float>(uint32_t(gen())));
  std::uniform_real_distribution<float> in(-range, range);
  for (int i = 0; i < 300000; ++i)
    v.push_back(in(gen));
  for (int e = -150; e <= 128; ++e)
    for (int k = -3; k <= 3; ++k) {
      float p = std::ldexp(1.0f, e);
      v.push_back(std::nextafter(p, k < 0 ? 0.0f : INFINITY) * (k & 1 ? -1.0f : 1.0f));
    }
  for (float x : {0.0f,
                  -0.0f,
                  1e-45f,
                  -1e-45f,
                  1.1754942e-38f,
                  1.1754944e-38f,
                  125.99999f,
                  126.0f,
                  -126.0f,
                  -126.00001f,
                  127.99999f,
                  128.0f,
                  -128.0f,
                  -130.0f,
                  0x1p126f,
                  0x1.000002p126f,
                  0x1p127f,
                  3.4e38f,
                  -3.4e38f,
                  7.99f,
                  8.0f,
                  INFINITY,
                  -INFINITY,
                  NAN,
                  std::bit_cast<float>(0x7fc00001u),
                  std::bit_cast<float>(0xff800001u)})
    v.push_back(x);
  return v;
}

TEST(ApproxFastPaths, FloatUnitsAgreeWithTheFullPaths) {
  const ApproxF32 ops[] = {ApproxF32::Ex2Ftz,   ApproxF32::Ex2,    ApproxF32::RcpFtz,  ApproxF32::Rcp,
                           ApproxF32::RsqrtFtz, ApproxF32::Rsqrt,  ApproxF32::SqrtFtz, ApproxF32::Sqrt,
                           ApproxF32::Lg2Ftz,   ApproxF32::Lg2,    ApproxF32::Sin,     ApproxF32::Cos,
                           ApproxF32::Tanh,     ApproxF32::DivFtz, ApproxF32::Div};
  for (ApproxF32 op : ops) {
    bool small = op == ApproxF32::Ex2Ftz || op == ApproxF32::Ex2 || op == ApproxF32::Tanh;
    std::vector<float> xs = floatInputs(small ? 130.0f : 1e6f);
    auto run = [&] {
      std::vector<uint32_t> out;
      for (size_t i = 0; i < xs.size(); ++i)
        out.push_back(std::bit_cast<uint32_t>(cutwin_sim_approx_f32(int(op), xs[i], xs[xs.size() - 1 - i])));
      return out;
    };
    run(); // decodes the chunks the inputs reach, so that the next run takes the fast paths
    std::vector<uint32_t> fast = run(), full = withoutFastPaths(run);
    for (size_t i = 0; i < xs.size(); ++i)
      ASSERT_EQ(fast[i], full[i]) << "op " << int(op) << " x " << xs[i] << " (0x" << std::hex
                                  << std::bit_cast<uint32_t>(xs[i]) << ")";
  }
}

TEST(ApproxFastPaths, DoubleUnitsAgreeWithTheFullPaths) {
  std::mt19937_64 gen(9);
  std::vector<double> xs;
  for (int i = 0; i < 400000; ++i)
    xs.push_back(std::bit_cast<double>(uint64_t(gen())));
  std::uniform_real_distribution<double> in(0.5, 4.0);
  for (int i = 0; i < 400000; ++i)
    xs.push_back(in(gen));
  for (double x :
       std::initializer_list<double>{0.0, -0.0, 4.9e-324, 2.2250738585072014e-308, 2.225073858507201e-308,
                                     1.0, -1.0, 0x1p1023, 1.7976931348623157e308, -1.7976931348623157e308,
                                     INFINITY, -INFINITY, NAN, std::bit_cast<double>(0x7ff0000000000001ull)})
    xs.push_back(x);
  for (ApproxF64 op : {ApproxF64::RcpFtz, ApproxF64::RsqrtFtz, ApproxF64::Rsqrt}) {
    auto run = [&] {
      std::vector<uint64_t> out;
      for (double x : xs)
        out.push_back(std::bit_cast<uint64_t>(cutwin_sim_approx_f64(int(op), x)));
      return out;
    };
    run();
    std::vector<uint64_t> fast = run(), full = withoutFastPaths(run);
    for (size_t i = 0; i < xs.size(); ++i)
      ASSERT_EQ(fast[i], full[i]) << "op " << int(op) << " x " << xs[i];
  }
}

/// A unit's form over lanes (what vectorised thread loops call) against the unit one
/// operand at a time, in groups of 16, 8, 4 and 3 lanes.
template <class T, class Bits>
void expectLanesAgree(const char *name, T (*one)(T), void (*lanes)(const T *, T *, int),
                      const std::vector<T> &xs) {
  std::vector<T> out(xs.size());
  for (int group : {16, 8, 4, 3}) {
    for (size_t i = 0; i < xs.size(); i += size_t(group))
      lanes(&xs[i], &out[i], int(std::min<size_t>(size_t(group), xs.size() - i)));
    for (size_t i = 0; i < xs.size(); ++i)
      ASSERT_EQ(std::bit_cast<Bits>(out[i]), std::bit_cast<Bits>(one(xs[i])))
          << name << " over " << group << " lanes, x " << xs[i];
  }
}

TEST(ApproxFastPaths, UnitsOverLanesAgreeWithOneAtATime) {
  std::vector<float> wide = floatInputs(1e6f), small = floatInputs(130.0f);
  for (int pass = 0; pass < 2; ++pass) { // the first pass finds chunks undecoded, the second decoded
    expectLanesAgree<float, uint32_t>("tanh", approxTanhF32, approxTanhF32Lanes, small);
    expectLanesAgree<float, uint32_t>("lg2", approxLg2F32, approxLg2F32Lanes, wide);
    expectLanesAgree<float, uint32_t>("sin", approxSinF32, approxSinF32Lanes, wide);
    expectLanesAgree<float, uint32_t>("cos", approxCosF32, approxCosF32Lanes, wide);
  }
}

} // namespace
