// The table lookups and directed-rounding operations the simulator compiles into kernels
// (approx_inline.cpp, directed_f32.cpp) against the host helpers they stand in for
// (fp_helpers.cpp; those are checked against the GPU's bits by test_approx_tables.cpp and
// the conformance cases, and against the FPU by test_fp_helpers.cpp): bit for bit, on
// random bit patterns, each unit's domain swept densely, and the edges.
#include "backend_sim/approx_inline.h"
#include "backend_sim/approx_ops.h"
#include "backend_sim/directed_f32.h"
#include "backend_sim/jit.h"

#include <gtest/gtest.h>

#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

extern "C" float cutwin_sim_approx_f32(int op, float x, float y);
extern "C" double cutwin_sim_approx_f64(int op, double x);
extern "C" float cutwin_sim_f32op(int op, int mode, float a, float b, float c);

namespace {

using namespace cutwin::sim;
using F32 = float (*)(float, float);
using F64 = double (*)(double);
using Dir = float (*)(float, float, float);

/// Compiles external wrappers around the compiled units and returns their addresses.
std::vector<uint64_t> compile(const std::vector<ApproxF32> &f32s, const std::vector<ApproxF64> &f64s,
                              const std::vector<std::pair<int, int>> &directed) {
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = std::make_unique<llvm::Module>("units", *ctx);
  m->setDataLayout(Jit::get().dataLayout());
  m->setTargetTriple(Jit::get().triple());
  std::vector<std::string> names;
  auto wrap = [&](llvm::Function *unit, const std::string &name) {
    auto *w = llvm::Function::Create(unit->getFunctionType(), llvm::GlobalValue::ExternalLinkage, name, *m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(*ctx, "entry", w));
    std::vector<llvm::Value *> args;
    for (auto &a : w->args())
      args.push_back(&a);
    b.CreateRet(b.CreateCall(unit, args));
    names.push_back(name);
  };
  for (ApproxF32 op : f32s) {
    llvm::Function *unit = compiledApproxF32(*m, op);
    EXPECT_NE(unit, nullptr) << int(op);
    wrap(unit, "f32_" + std::to_string(int(op)));
  }
  for (ApproxF64 op : f64s) {
    llvm::Function *unit = compiledApproxF64(*m, op);
    EXPECT_NE(unit, nullptr) << int(op);
    wrap(unit, "f64_" + std::to_string(int(op)));
  }
  for (auto [op, mode] : directed) {
    llvm::Function *unit = compiledDirectedF32(*m, op, mode);
    EXPECT_NE(unit, nullptr) << op << " " << mode;
    wrap(unit, "dir_" + std::to_string(op) + "_" + std::to_string(mode));
  }
  return Jit::get().load(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx)), names);
}

float fromBits(uint32_t u) { return std::bit_cast<float>(u); }

/// Inputs for a float unit: random bit patterns, values spread over [-lo, hi] with every
/// exponent, the neighbourhood of each power of two, and the edges.
std::vector<float> floatInputs(float range) {
  std::mt19937 gen(5);
  std::vector<float> v;
  for (int i = 0; i < 300000; ++i)
    v.push_back(fromBits(gen()));
  std::uniform_real_distribution<float> in(-range, range);
  for (int i = 0; i < 300000; ++i)
    v.push_back(in(gen));
  for (int e = -140; e <= 140; ++e)
    for (int k = -3; k <= 3; ++k) {
      float p = std::ldexp(1.0f, e);
      v.push_back(std::nextafter(p, k < 0 ? 0.0f : INFINITY) * (k & 1 ? -1.0f : 1.0f));
    }
  for (float x : {0.0f, -0.0f, 1e-45f, -1e-45f, 1.1754942e-38f, 1.1754944e-38f, 125.99999f, 126.0f, -126.0f,
                  -126.00001f, 127.99999f, 128.0f, -128.0f, 0x1p126f, 0x1.000002p126f, 0x1p127f, 3.4e38f, -3.4e38f,
                  INFINITY, -INFINITY, NAN, fromBits(0x7fc00001u), fromBits(0xff800001u)})
    v.push_back(x);
  return v;
}

TEST(CompiledUnits, ApproximationLookupsMatchTheHostHelpers) {
  const std::vector<ApproxF32> ops = {ApproxF32::Ex2Ftz, ApproxF32::Ex2,   ApproxF32::RcpFtz, ApproxF32::Rcp,
                                      ApproxF32::RsqrtFtz, ApproxF32::Rsqrt, ApproxF32::SqrtFtz, ApproxF32::Sqrt,
                                      ApproxF32::Lg2Ftz, ApproxF32::Lg2};
  std::vector<uint64_t> fns = compile(ops, {}, {});
  ASSERT_EQ(fns.size(), ops.size());
  for (size_t k = 0; k < ops.size(); ++k) {
    ASSERT_NE(fns[k], 0u);
    auto unit = reinterpret_cast<F32>(fns[k]);
    bool ex2 = ops[k] == ApproxF32::Ex2Ftz || ops[k] == ApproxF32::Ex2;
    std::vector<float> xs = floatInputs(ex2 ? 130.0f : 1e6f);
    long compared = 0;
    // twice: the first pass decodes chunks through the host path, the second takes the
    // compiled one
    for (int pass = 0; pass < 2; ++pass)
      for (float x : xs) {
        uint32_t got = std::bit_cast<uint32_t>(unit(x, 0.0f));
        uint32_t want = std::bit_cast<uint32_t>(cutwin_sim_approx_f32(int(ops[k]), x, 0.0f));
        ASSERT_EQ(got, want) << "op " << int(ops[k]) << " x " << x << " (0x" << std::hex
                             << std::bit_cast<uint32_t>(x) << ")";
        ++compared;
      }
    EXPECT_GT(compared, 1000000);
  }
}

TEST(CompiledUnits, DoubleLookupsMatchTheHostHelpers) {
  const std::vector<ApproxF64> ops = {ApproxF64::RcpFtz, ApproxF64::RsqrtFtz};
  std::vector<uint64_t> fns = compile({}, ops, {});
  ASSERT_EQ(fns.size(), ops.size());
  std::mt19937_64 gen(9);
  std::vector<double> xs;
  for (int i = 0; i < 400000; ++i)
    xs.push_back(std::bit_cast<double>(gen()));
  std::uniform_real_distribution<double> in(0.5, 4.0);
  for (int i = 0; i < 400000; ++i)
    xs.push_back(in(gen));
  for (double x : std::initializer_list<double>{0.0, -0.0, 4.9e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1.0, -1.0, 0x1p1023,
                   1.7976931348623157e308, -1.7976931348623157e308, INFINITY, -INFINITY, NAN,
                   std::bit_cast<double>(0x7ff0000000000001ull)})
    xs.push_back(x);
  for (size_t k = 0; k < ops.size(); ++k) {
    ASSERT_NE(fns[k], 0u);
    auto unit = reinterpret_cast<F64>(fns[k]);
    for (int pass = 0; pass < 2; ++pass)
      for (double x : xs) {
        uint64_t got = std::bit_cast<uint64_t>(unit(x));
        uint64_t want = std::bit_cast<uint64_t>(cutwin_sim_approx_f64(int(ops[k]), x));
        ASSERT_EQ(got, want) << "op " << int(ops[k]) << " x " << x;
      }
  }
}

TEST(CompiledUnits, DirectedRoundingMatchesTheHostHelper) {
  std::vector<std::pair<int, int>> ops;
  for (int op : {0, 1, 3, 6})
    for (int mode : {1, 2, 3})
      ops.emplace_back(op, mode);
  std::vector<uint64_t> fns = compile({}, {}, ops);
  ASSERT_EQ(fns.size(), ops.size());
  llvm::LLVMContext ctx;
  llvm::Module other("other", ctx);
  EXPECT_EQ(compiledDirectedF32(other, 2, 1), nullptr); // division keeps the host path
  EXPECT_EQ(compiledDirectedF32(other, 0, 0), nullptr); // round to nearest needs no help
  std::mt19937 gen(13);
  auto any = [&] { return fromBits(gen()); };
  const float edge[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-45f, -1e-45f, 3.4e38f, -3.4e38f, 1.1754944e-38f, INFINITY,
                        NAN};
  for (int i = 0; i < 300000; ++i) {
    // near magnitudes and cancellations as well as random patterns
    float a = any(), b = i % 3 ? any() : a * 0.75f, c = i % 5 ? any() : -(a * b);
    if (i < 1331) {
      a = edge[i % 11];
      b = edge[(i / 11) % 11];
      c = edge[(i / 121) % 11];
    }
    for (size_t k = 0; k < ops.size(); ++k) {
      auto unit = reinterpret_cast<Dir>(fns[k]);
      auto [op, mode] = ops[k];
      uint32_t got = std::bit_cast<uint32_t>(unit(a, b, c));
      uint32_t want = std::bit_cast<uint32_t>(cutwin_sim_f32op(op, mode, a, b, c));
      ASSERT_EQ(got, want) << "op " << op << " mode " << mode << " a " << a << " b " << b << " c " << c;
    }
  }
}

} // namespace
