// cutwin's float16 conversions (backend_sim/half_conversions.cpp) against an arithmetic
// oracle (every half's value computed in double, exactly; the nearest half found by
// comparing distances), against libgcc's where the host's has them (GCC 12 and later), and
// called from JIT-compiled code, which must reach cutwin's and not the host's.
#include "backend_sim/half_conversions.h"
#include "backend_sim/jit.h"

#include <gtest/gtest.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <vector>

namespace {

template <class To, class From> To bitCast(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

/// A half's value, exactly (every half is a double); infinity as HUGE_VAL, NaN as NaN.
double valueOf(uint16_t h) {
  int field = (h >> 10) & 0x1f, fraction = h & 0x3ff;
  double magnitude = field == 0x1f ? (fraction ? NAN : HUGE_VAL)
                     : field == 0  ? std::ldexp(fraction, -24)
                                   : std::ldexp(fraction | 0x400, field - 25);
  return h >> 15 ? -magnitude : magnitude;
}

/// The nearest half to `x` (a double or long double, which hold every midpoint exactly),
/// ties to the even one, infinity from 65520 on: the definition, by search.
template <class Real> uint16_t nearestHalf(Real x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  Real a = std::fabs(x);
  if (a >= Real(65520))
    return uint16_t(sign | 0x7c00);
  uint16_t lo = 0; // the largest half magnitude <= a
  for (uint16_t step = 0x4000; step; step >>= 1)
    if (uint16_t(lo + step) <= 0x7bff && Real(valueOf(uint16_t(lo + step))) <= a)
      lo = uint16_t(lo + step);
  if (Real(valueOf(lo)) == a || lo == 0x7bff)
    return uint16_t(sign | lo);
  Real below = a - Real(valueOf(lo)), above = Real(valueOf(uint16_t(lo + 1))) - a;
  uint16_t pick = below < above ? lo : above < below ? uint16_t(lo + 1) : (lo & 1 ? uint16_t(lo + 1) : lo);
  return uint16_t(sign | pick);
}

/// Inputs that decide a conversion: every half's value and the midpoints to its neighbour,
/// each with its closest neighbours in the wider format, and random numbers of all sizes.
std::vector<double> decidingDoubles() {
  std::vector<double> xs;
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    double v = valueOf(uint16_t(h));
    double mid = (v + valueOf(uint16_t(h + 1))) / 2; // h + 1 = 0x7c00: 65536, the overflow edge
    for (double p : {v, mid})
      for (double q : {p, std::nextafter(p, 0.0), std::nextafter(p, HUGE_VAL),
                       double(std::nextafter(float(p), 0.0f)), double(std::nextafter(float(p), HUGE_VALF))})
        xs.insert(xs.end(), {q, -q});
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-30, 18);
  for (int k = 0; k < 200000; ++k)
    xs.push_back(std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), int(exponent(rng))));
  return xs;
}

/// libgcc's conversion `name`, or null where the host's libgcc predates it.
template <class Fn> Fn libgcc(const char *name) {
  void *lib = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
  return lib ? reinterpret_cast<Fn>(dlsym(lib, name)) : nullptr;
}

TEST(HalfConversions, WideningIsExactForEveryHalf) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    _Float16 half = bitCast<_Float16>(uint16_t(h));
    double exact = valueOf(uint16_t(h));
    float f = __extendhfsf2(half);
    double d = __extendhfdf2(half);
    if (std::isnan(exact)) { // quietened, payload kept at the top of the fraction
      EXPECT_EQ(bitCast<uint32_t>(f), (uint32_t(h >> 15) << 31) | 0x7fc00000u | (uint32_t(h & 0x3ff) << 13))
          << h;
      EXPECT_EQ(bitCast<uint64_t>(d),
                (uint64_t(h >> 15) << 63) | 0x7ff8000000000000ull | (uint64_t(h & 0x3ff) << 42))
          << h;
      continue;
    }
    EXPECT_EQ(bitCast<uint64_t>(double(f)), bitCast<uint64_t>(exact)) << h; // -0 included
    EXPECT_EQ(bitCast<uint64_t>(d), bitCast<uint64_t>(exact)) << h;
  }
}

TEST(HalfConversions, NarrowingRoundsToNearestEven) {
  for (double x : decidingDoubles()) {
    uint16_t want = nearestHalf(x);
    ASSERT_EQ(bitCast<uint16_t>(__truncdfhf2(x)), want) << x;
    ASSERT_EQ(bitCast<uint16_t>(__truncxfhf2((long double)x)), want) << x;
    float f = float(x);
    ASSERT_EQ(bitCast<uint16_t>(__truncsfhf2(f)), nearestHalf(double(f))) << f;
  }
  // long double only: just beside a midpoint, closer than a double can get.
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    long double mid = ((long double)valueOf(uint16_t(h)) + valueOf(uint16_t(h + 1))) / 2;
    for (long double x : {std::nextafter(mid, 0.0L), std::nextafter(mid, HUGE_VALL)})
      ASSERT_EQ(bitCast<uint16_t>(__truncxfhf2(x)), nearestHalf(x)) << double(x);
  }
}

TEST(HalfConversions, SpecialValues) {
  auto half = [](auto x) { return bitCast<uint16_t>(__truncdfhf2(double(x))); };
  EXPECT_EQ(half(HUGE_VAL), 0x7c00);
  EXPECT_EQ(half(-HUGE_VAL), 0xfc00);
  EXPECT_EQ(half(1e300), 0x7c00);
  EXPECT_EQ(half(-0.0), 0x8000);
  EXPECT_EQ(half(1e-300), 0x0000);
  EXPECT_EQ(half(std::ldexp(1.0, -25)), 0x0000); // half the smallest subnormal: tie, to even
  EXPECT_EQ(half(std::nextafter(std::ldexp(1.0, -25), 1.0)), 0x0001); // just above it
  EXPECT_EQ(half(65519.99), 0x7bff);
  EXPECT_EQ(half(65520.0), 0x7c00);
  // NaNs keep their sign and the top of their payload, quietened.
  EXPECT_EQ(bitCast<uint16_t>(__truncsfhf2(bitCast<float>(0x7f800001u))), 0x7e00); // signalling
  EXPECT_EQ(bitCast<uint16_t>(__truncsfhf2(bitCast<float>(0xffc02000u))), 0xfe01);
  EXPECT_EQ(bitCast<uint16_t>(__truncdfhf2(bitCast<double>(0x7ff4000000000000ull))), 0x7f00);
  EXPECT_EQ(bitCast<uint16_t>(__truncxfhf2(std::nanl(""))), 0x7e00);
}

TEST(HalfConversions, SameAsLibgccWhereItHasThem) {
  using Trunc32 = _Float16 (*)(float);
  using Trunc64 = _Float16 (*)(double);
  using Trunc80 = _Float16 (*)(long double);
  using Extend32 = float (*)(_Float16);
  auto truncsf = libgcc<Trunc32>("__truncsfhf2");
  auto truncdf = libgcc<Trunc64>("__truncdfhf2");
  auto truncxf = libgcc<Trunc80>("__truncxfhf2");
  auto extendsf = libgcc<Extend32>("__extendhfsf2");
  if (!truncsf || !truncdf || !truncxf || !extendsf)
    GTEST_SKIP() << "this host's libgcc predates float16 conversions (GCC 12)";
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    _Float16 half = bitCast<_Float16>(uint16_t(h));
    ASSERT_EQ(bitCast<uint32_t>(__extendhfsf2(half)), bitCast<uint32_t>(extendsf(half))) << h;
  }
  std::vector<double> xs = decidingDoubles();
  for (uint32_t nan : {0x7f800001u, 0x7fc00000u, 0xffffffffu, 0x7fa5a5a5u})
    xs.push_back(double(bitCast<float>(nan)));
  for (double x : xs) {
    ASSERT_EQ(bitCast<uint16_t>(__truncdfhf2(x)), bitCast<uint16_t>(truncdf(x))) << x;
    ASSERT_EQ(bitCast<uint16_t>(__truncxfhf2(x)), bitCast<uint16_t>(truncxf(x))) << x;
    ASSERT_EQ(bitCast<uint16_t>(__truncsfhf2(float(x))), bitCast<uint16_t>(truncsf(float(x)))) << x;
  }
}

// A JIT-compiled fptrunc double -> half calls a conversion (x86 has no instruction for it):
// cutwin's, found before anything the process has.
TEST(HalfConversions, JitCompiledCodeCallsCutwins) {
  using namespace llvm;
  auto ctx = std::make_unique<LLVMContext>();
  auto m = std::make_unique<Module>("half_conversions", *ctx);
  IRBuilder<> b(*ctx);
  auto *fn = Function::Create(FunctionType::get(b.getInt16Ty(), {b.getDoubleTy()}, false),
                              Function::ExternalLinkage, "to_half", *m);
  b.SetInsertPoint(BasicBlock::Create(*ctx, "", fn));
  b.CreateRet(b.CreateBitCast(b.CreateFPTrunc(fn->getArg(0), b.getHalfTy()), b.getInt16Ty()));
  // And a function giving the address the name resolves to, as kernels' calls resolve it.
  auto *declared = m->getOrInsertFunction("__truncdfhf2", b.getHalfTy(), b.getDoubleTy()).getCallee();
  auto *where = Function::Create(FunctionType::get(b.getInt64Ty(), false), Function::ExternalLinkage,
                                 "conversion_address", *m);
  b.SetInsertPoint(BasicBlock::Create(*ctx, "", where));
  b.CreateRet(b.CreatePtrToInt(declared, b.getInt64Ty()));
  auto &jit = cutwin::sim::Jit::get();
  m->setDataLayout(jit.dataLayout());
  auto addresses =
      jit.load(orc::ThreadSafeModule(std::move(m), std::move(ctx)), {"to_half", "conversion_address"});
  ASSERT_NE(addresses[0], 0u);
  ASSERT_NE(addresses[1], 0u);
  EXPECT_EQ(reinterpret_cast<uint64_t (*)()>(addresses[1])(), reinterpret_cast<uint64_t>(&__truncdfhf2));
  auto toHalf = reinterpret_cast<uint16_t (*)(double)>(addresses[0]);
  for (double x : decidingDoubles())
    ASSERT_EQ(toHalf(x), nearestHalf(x)) << x;
}

} // namespace
