// The modelled units (ex2, rcp, rsqrt, sqrt) as IR (approx_inline.h: what vectorised
// thread loops compute) against the host units, bit for bit: scalar and over 4, 8 and 16
// lanes, compiled by the simulator's JIT, on every table entry (each at a few exponents)
// and on random bit patterns, specials and the edges of each unit's range.
#include "backend_sim/approx_inline.h"
#include "backend_sim/approx_ops.h"
#include "backend_sim/approx_tables.h"
#include "backend_sim/jit.h"

#include <gtest/gtest.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace {

using namespace llvm;
using namespace cutwin::sim;

/// Compiles `unit` over each lane count as void(const T *in, T *out, i64 n): a loop over
/// groups of `lanes` elements (n a multiple of 16); returns the functions by lane count.
template <class T> std::map<unsigned, void (*)(const T *, T *, int64_t)> compile(const char *unit) {
  auto ctx = std::make_unique<LLVMContext>();
  auto m = std::make_unique<Module>("units", *ctx);
  Type *scalar = sizeof(T) == 4 ? Type::getFloatTy(*ctx) : Type::getDoubleTy(*ctx);
  auto *ptr = PointerType::get(*ctx, 0);
  std::vector<std::string> names;
  const unsigned laneCounts[] = {1, 4, 8, 16};
  for (unsigned lanes : laneCounts) {
    Type *t = lanes == 1 ? scalar : FixedVectorType::get(scalar, lanes);
    names.push_back(std::string(unit) + "_" + std::to_string(lanes));
    auto *fn =
        Function::Create(FunctionType::get(Type::getVoidTy(*ctx), {ptr, ptr, Type::getInt64Ty(*ctx)}, false),
                         Function::ExternalLinkage, names.back(), *m);
    BasicBlock *entry = BasicBlock::Create(*ctx, "entry", fn), *loop = BasicBlock::Create(*ctx, "loop", fn),
               *done = BasicBlock::Create(*ctx, "done", fn);
    IRBuilder<> b(entry);
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    PHINode *i = b.CreatePHI(b.getInt64Ty(), 2);
    i->addIncoming(b.getInt64(0), entry);
    Value *x = b.CreateAlignedLoad(t, b.CreateGEP(scalar, fn->getArg(0), i), Align(sizeof(T)));
    Value *y = emitModelledUnit(b, unit, x);
    if (!y)
      return {};
    b.CreateAlignedStore(y, b.CreateGEP(scalar, fn->getArg(1), i), Align(sizeof(T)));
    Value *next = b.CreateAdd(i, b.getInt64(lanes));
    i->addIncoming(next, loop);
    b.CreateCondBr(b.CreateICmpULT(next, fn->getArg(2)), loop, done);
    b.SetInsertPoint(done);
    b.CreateRetVoid();
  }
  auto &jit = Jit::get();
  m->setDataLayout(jit.dataLayout());
  std::map<std::string, uint64_t> externals;
  for (auto &[name, addr] : modelSymbols())
    externals[name] = reinterpret_cast<uint64_t>(addr);
  auto addresses = jit.load(orc::ThreadSafeModule(std::move(m), std::move(ctx)), names, externals);
  std::map<unsigned, void (*)(const T *, T *, int64_t)> out;
  for (size_t k = 0; k < names.size(); ++k)
    out[laneCounts[k]] = reinterpret_cast<void (*)(const T *, T *, int64_t)>(addresses[k]);
  return out;
}

template <class T, class Bits> void expectSameAsHost(const char *unit, T (*host)(T), std::vector<T> xs) {
  while (xs.size() % 16)
    xs.push_back(T(1));
  auto fns = compile<T>(unit);
  ASSERT_EQ(fns.size(), 4u) << unit << " has no model";
  std::vector<T> out(xs.size());
  for (auto &[lanes, fn] : fns) {
    fn(xs.data(), out.data(), int64_t(xs.size()));
    for (size_t i = 0; i < xs.size(); ++i)
      ASSERT_EQ(std::bit_cast<Bits>(out[i]), std::bit_cast<Bits>(host(xs[i])))
          << unit << " over " << lanes << " lanes, x = " << xs[i] << " (0x" << std::hex
          << std::bit_cast<Bits>(xs[i]) << ")";
  }
}

std::vector<float> randomFloats(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<float> v;
  for (size_t i = 0; i < n; ++i)
    v.push_back(std::bit_cast<float>(uint32_t(gen())));
  return v;
}

const float kFloatEdges[] = {0.0f,
                             -0.0f,
                             1e-45f,
                             -1e-45f,
                             1.1754942e-38f,
                             1.1754944e-38f,
                             -1.1754944e-38f,
                             1.0f,
                             -1.0f,
                             0x1p126f,
                             0x1.000002p126f,
                             0x1p127f,
                             3.4028235e38f,
                             -3.4028235e38f,
                             INFINITY,
                             -INFINITY,
                             NAN,
                             -NAN,
                             std::bit_cast<float>(0x7f800001u),
                             std::bit_cast<float>(0xffc00001u)};

TEST(ApproxInline, Ex2MatchesTheHostUnit) {
  std::vector<float> xs = randomFloats(200000, 1);
  for (uint32_t k = 0; k < (1u << 23); ++k) { // every entry of both tables, at whole parts 0 and 1 .. 5
    float f = float(k) * 0x1p-23f + float(k % 6);
    xs.push_back(k & 64 ? -f : f);
  }
  for (float w = -130.0f; w <= 130.0f; w += 0.25f)
    xs.push_back(w);
  for (float x : {125.99999f, 126.0f, -126.0f, -126.00001f, 127.99999f, 128.0f, -128.0f, -149.0f, -150.0f})
    xs.push_back(x);
  xs.insert(xs.end(), std::begin(kFloatEdges), std::end(kFloatEdges));
  expectSameAsHost<float, uint32_t>(approxUnitSymbol(ApproxF32::Ex2Ftz), approxEx2F32, xs);
}

TEST(ApproxInline, RcpF32MatchesTheHostUnit) {
  std::vector<float> xs = randomFloats(200000, 2);
  for (uint32_t m = 0; m < (1u << 23); ++m) { // every entry, at exponents from the flushed to the overflowing
    static const uint32_t exps[] = {1, 60, 126, 127, 128, 200, 252, 253, 254};
    xs.push_back(std::bit_cast<float>((m & 1u) << 31 | exps[m % 9] << 23 | m));
  }
  xs.insert(xs.end(), std::begin(kFloatEdges), std::end(kFloatEdges));
  expectSameAsHost<float, uint32_t>(approxUnitSymbol(ApproxF32::RcpFtz), approxRcpF32, xs);
}

TEST(ApproxInline, RcpF64MatchesTheHostUnit) {
  std::mt19937_64 gen(3);
  std::vector<double> xs;
  for (int i = 0; i < 200000; ++i)
    xs.push_back(std::bit_cast<double>(uint64_t(gen())));
  for (uint32_t m = 0; m < (1u << 20); ++m) // every entry, each with a few exponents and a low word
    for (uint64_t e : {1u, 1022u, 1023u, 1024u, 2045u, 2046u})
      xs.push_back(
          std::bit_cast<double>(uint64_t(m & 1) << 63 | e << 52 | uint64_t(m) << 32 | (gen() & 0xffffffffu)));
  for (double x :
       {0.0, -0.0, 4.9e-324, 2.2250738585072014e-308, 1.0, -1.0, 1.7976931348623157e308, double(INFINITY),
        -double(INFINITY), double(NAN), std::bit_cast<double>(0x7ff0000000000001ull),
        std::bit_cast<double>(0xfff0000100000000ull)})
    xs.push_back(x);
  expectSameAsHost<double, uint64_t>(approxUnitSymbol(ApproxF64::RcpFtz), approxRcpF64, xs);
}

TEST(ApproxInline, RootsF32MatchTheHostUnits) {
  std::vector<float> xs = randomFloats(200000, 5);
  for (uint32_t m = 0; m < (1u << 23);
       ++m) { // every entry of both parities, positive, negative, edge exponents
    static const uint32_t exps[] = {1, 2, 126, 127, 128, 129, 253, 254};
    xs.push_back(std::bit_cast<float>((m % 17 == 0 ? 1u : 0u) << 31 | exps[m % 8] << 23 | m));
  }
  xs.insert(xs.end(), std::begin(kFloatEdges), std::end(kFloatEdges));
  expectSameAsHost<float, uint32_t>(approxUnitSymbol(ApproxF32::RsqrtFtz), approxRsqrtF32, xs);
  expectSameAsHost<float, uint32_t>(approxUnitSymbol(ApproxF32::SqrtFtz), approxSqrtF32, xs);
}

TEST(ApproxInline, RsqrtF64MatchesTheHostUnit) {
  std::mt19937_64 gen(6);
  std::vector<double> xs;
  for (int i = 0; i < 200000; ++i)
    xs.push_back(std::bit_cast<double>(uint64_t(gen())));
  for (uint32_t m = 0; m < (1u << 20); ++m) // every entry of both parities, with a low word
    for (uint64_t e : {1u, 2u, 1022u, 1023u, 2045u, 2046u})
      xs.push_back(std::bit_cast<double>(uint64_t(m % 13 == 0) << 63 | e << 52 | uint64_t(m) << 32 |
                                         (gen() & 0xffffffffu)));
  for (double x : {0.0, -0.0, 4.9e-324, -4.9e-324, 1.0, 4.0, 0.25, double(INFINITY), -double(INFINITY),
                   double(NAN), std::bit_cast<double>(0x7ff0000000000001ull)})
    xs.push_back(x);
  expectSameAsHost<double, uint64_t>(approxUnitSymbol(ApproxF64::RsqrtFtz), approxRsqrtF64, xs);
}

TEST(ApproxInline, OtherUnitsHaveNoModel) {
  LLVMContext ctx;
  Module m("none", ctx);
  auto *fn =
      Function::Create(FunctionType::get(Type::getVoidTy(ctx), false), Function::ExternalLinkage, "f", m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", fn));
  Value *x = ConstantFP::get(b.getFloatTy(), 1.0);
  EXPECT_EQ(emitModelledUnit(b, approxUnitSymbol(ApproxF32::Lg2Ftz), x), nullptr);
  EXPECT_EQ(emitModelledUnit(b, approxUnitSymbol(ApproxF32::Sin), x), nullptr);
  EXPECT_EQ(emitModelledUnit(b, "cutwin_sim_f32op", x), nullptr);
}

} // namespace
