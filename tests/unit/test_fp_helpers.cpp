// The simulator's float32 add, sub, mul and fma in directed rounding modes (the inline IR
// kernels get for libdevice's fma.rm and friends) against the same operations computed
// with the FPU switched to that mode. This file is compiled with -frounding-math.
#include "backend_sim/directed_rounding.h"
#include "backend_sim/jit.h"

#include <gtest/gtest.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

namespace {

float reference(int op, int mode, float a, float b, float c) {
  static const int modes[] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
  int saved = fegetround();
  fesetround(modes[mode]);
  volatile float r;
  switch (op) {
  case 0: r = a + b; break;
  case 1: r = a * b; break;
  case 3: r = std::fma(a, b, c); break;
  default: r = a - b; break;
  }
  fesetround(saved);
  return r;
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// Calls check(a, b, c) on edge values (NaN among them) and random triples (NaNs aside,
/// operands often near each other in magnitude and sums often cancelling): 400000 in all.
template <class F> void forOperands(F check) {
  std::mt19937 gen(11);
  auto any = [&] {
    uint32_t u = gen();
    if ((u & 0x7f800000u) == 0x7f800000u)
      u &= 0xbfffffffu;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  const float edge[] = {0.0f,    -0.0f,    1.0f,           -1.0f,    1e-45f, -1e-45f,
                        3.4e38f, -3.4e38f, 1.1754944e-38f, INFINITY, NAN};
  for (int i = 0; i < 400000; ++i) {
    float a = any(), b = i % 3 ? any() : a * 0.75f, c = i % 5 ? any() : -(a * b);
    if (i < 11 * 11 * 11) {
      a = edge[i % 11];
      b = edge[(i / 11) % 11];
      c = edge[(i / 121) % 11];
    }
    check(a, b, c);
  }
}

/// got against the FPU's result, NaNs as any NaN; counts the comparisons.
void expectSame(float got, float want, int op, int mode, float a, float b, float c, long &checked) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got));
    return;
  }
  ASSERT_EQ(bits(got), bits(want)) << "op " << op << " mode " << mode << " a " << a << " b " << b << " c "
                                   << c;
  ++checked;
}

const int kOps[] = {0, 1, 3, 6};

/// The straight-line IR kernels get for these operations (emitDirectedF32), compiled by
/// the simulator's JIT: one function per operation and mode.
TEST(FpHelpers, DirectedRoundingInlineIrMatchesTheFpu) {
  using namespace llvm;
  auto ctx = std::make_unique<LLVMContext>();
  auto m = std::make_unique<Module>("directed", *ctx);
  Type *f32 = Type::getFloatTy(*ctx);
  std::vector<std::string> names;
  for (int op : kOps)
    for (int mode : {1, 2, 3}) {
      names.push_back("directed_" + std::to_string(op) + "_" + std::to_string(mode));
      auto *fn = Function::Create(FunctionType::get(f32, {f32, f32, f32}, false), Function::ExternalLinkage,
                                  names.back(), *m);
      IRBuilder<> b(BasicBlock::Create(*ctx, "entry", fn));
      b.CreateRet(cutwin::sim::emitDirectedF32(b, op, mode, fn->getArg(0), fn->getArg(1), fn->getArg(2)));
    }
  auto &jit = cutwin::sim::Jit::get();
  m->setDataLayout(jit.dataLayout());
  auto addresses = jit.load(orc::ThreadSafeModule(std::move(m), std::move(ctx)), names);
  long checked = 0;
  forOperands([&](float a, float b, float c) {
    size_t f = 0;
    for (int op : kOps)
      for (int mode : {1, 2, 3}) {
        auto fn = reinterpret_cast<float (*)(float, float, float)>(addresses[f++]);
        float got = fn(a, b, c), want = reference(op, mode, a, b, c);
        if (std::isnan(want)) { // the GPU's canonical NaN, as the instruction gives
          ASSERT_EQ(bits(got), 0x7fffffffu) << "op " << op << " mode " << mode << " a " << a << " b " << b;
        }
        expectSame(got, want, op, mode, a, b, c, checked);
      }
  });
  EXPECT_GT(checked, 4000000);
}

} // namespace
