// Host bindings (ModuleBindings): what the Python package tells a module about its names
// wins over the source, so kernels see the live values of host-computed globals and
// functions jitted without a decorator.
#include "kernel_test_util.h"

#include <cstring>

using namespace cutwin;
using namespace cutwin::test;

namespace {

HostValue intValue(int64_t v) {
  HostValue h;
  h.kind = HostValue::Kind::Int;
  h.i = v;
  return h;
}

const char *kHostComputed = R"PY(
import sys
from numba import cuda

SCALE = float(sys.argv[1])   # host code: the frontend cannot evaluate it
SHAPE = (2, 3)

def fill(out):               # no decorator: jitted by the host program
    i = cuda.grid(1)
    if i < out.size:
        out[i] = SCALE * i + SHAPE[1]

def twice(x):
    return 2 * x

@cuda.jit
def use_helper(out):
    out[0] = twice(SHAPE[0])
)PY";

} // namespace

TEST(ModuleBindings, HostValuesReplaceHostComputedGlobals) {
  ModuleBindings b;
  HostValue scale;
  scale.kind = HostValue::Kind::Float;
  scale.f = 0.5;
  b.constants["SCALE"] = scale;
  HostValue shape;
  shape.kind = HostValue::Kind::Tuple;
  shape.elems = {intValue(4), intValue(7)}; // the host's value wins over the source's (2, 3)
  b.constants["SHAPE"] = shape;
  JitDeclaration fill;
  fill.signatures = {"void(float64[::1])"};
  b.functions["fill"] = fill;
  auto mod = Module::fromString(sim(), kHostComputed, "host.py", {}, b);
  EXPECT_TRUE(mod->hasFunction("fill"));
  EXPECT_FALSE(mod->hasFunction("twice"));
  auto out = sim()->zeros(DType::F64, {5});
  mod->kernel("fill").launch(1, 8, {out});
  auto got = out.toVector<double>();
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(got[i], 0.5 * i + 7) << i;
}

TEST(ModuleBindings, HostDeclaredDeviceFunctionIsCallable) {
  ModuleBindings b;
  JitDeclaration twice;
  twice.device = true;
  b.functions["twice"] = twice;
  b.constants["SCALE"] = intValue(1);
  auto mod = Module::fromString(sim(), kHostComputed, "host.py", {}, b);
  auto out = sim()->zeros(DType::I64, {1});
  mod->kernel("use_helper").launch(1, 1, {out});
  EXPECT_EQ(out.toVector<int64_t>()[0], 4); // twice(SHAPE[0]) with the source's SHAPE
}

TEST(ModuleBindings, WithoutBindingsHostComputedGlobalsAreDiagnosed) {
  JitDeclaration fill;
  ModuleBindings b;
  b.functions["fill"] = fill;
  auto mod = Module::fromString(sim(), kHostComputed, "host.py", {}, b);
  auto out = sim()->zeros(DType::F64, {5});
  try {
    mod->kernel("fill").launch(1, 8, {out});
    FAIL() << "expected a CompileError";
  } catch (const CompileError &e) {
    EXPECT_EQ(e.loc().line, 11u); // `out[i] = SCALE * i + ...`
    EXPECT_THAT(e.what(), testing::HasSubstr("SCALE"));
  }
}

TEST(ModuleBindings, DeclaringAFunctionTheFileLacksIsAnError) {
  ModuleBindings b;
  b.functions["missing"] = JitDeclaration{};
  EXPECT_THROW(Module::fromString(sim(), kHostComputed, "host.py", {}, b), Error);
}

TEST(ModuleBindings, DeclaredSignatureRejectsOtherArgumentTypes) {
  ModuleBindings b;
  JitDeclaration fill;
  fill.signatures = {"void(float64[::1])"};
  b.functions["fill"] = fill;
  b.constants["SCALE"] = intValue(1);
  auto mod = Module::fromString(sim(), kHostComputed, "host.py", {}, b);
  auto out = sim()->zeros(DType::I32, {5});
  EXPECT_THROW(mod->kernel("fill").launch(1, 8, {out}), Error);
}

namespace {

const char *kConstArrays = R"PY(
from numba import cuda

@cuda.jit
def gather(idx, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = TABLE[idx[i] % TABLE.shape[0], 1] + cuda.const.array_like(TABLE)[0, 0]

@cuda.jit
def write(out):
    TABLE[0, 0] = 1.0
)PY";

HostValue table(int64_t rows) {
  HostValue t;
  t.kind = HostValue::Kind::Array;
  t.dtype = DType::F32;
  t.shape = {rows, 2};
  std::vector<float> v(size_t(rows) * 2);
  for (size_t k = 0; k < v.size(); ++k)
    v[k] = float(k) * 0.5f;
  t.bytes.resize(v.size() * 4);
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

} // namespace

TEST(ModuleBindings, HostArraysAreReadOnlyConstants) {
  ModuleBindings b;
  b.constants["TABLE"] = table(5); // rows k: (k, k + 0.5)
  auto mod = Module::fromString(sim(), kConstArrays, "const.py", {}, b);
  std::vector<int32_t> idx = {0, 3, 7, 4};
  auto out = sim()->zeros(DType::F32, {4});
  mod->kernel("gather").launch(1, 4, {sim()->toDevice(idx), out});
  auto got = out.toVector<float>();
  for (size_t i = 0; i < idx.size(); ++i)
    EXPECT_EQ(got[i], float(idx[i] % 5) + 0.5f) << i;
  for (const char *codegen : {"nvptx", "nvvm"}) {
    CompileOptions o;
    o.codegen = codegen;
    auto gpuMod = Module::fromString(sim(), kConstArrays, "const.py", o, b);
    std::string ptx = gpuMod->kernel("gather").ptx({sim()->toDevice(idx), out});
    EXPECT_NE(ptx.find(".const .align 16 .b8"), std::string::npos) << codegen;
    EXPECT_NE(ptx.find("ld.const"), std::string::npos) << codegen;
  }
  try {
    mod->kernel("write").launch(1, 1, {out});
    FAIL() << "stores into a constant array must not compile";
  } catch (const CompileError &e) {
    EXPECT_EQ(e.loc().line, 12u);
    EXPECT_THAT(e.what(), testing::HasSubstr("read-only"));
  }
}

TEST(ModuleBindings, ConstantMemoryHolds64KiB) {
  ModuleBindings b;
  b.constants["TABLE"] = table(8193); // 65544 bytes
  auto mod = Module::fromString(sim(), kConstArrays, "const.py", {}, b);
  auto out = sim()->zeros(DType::F32, {1});
  EXPECT_THROW(mod->kernel("gather").launch(1, 1, {sim()->zeros(DType::I32, {1}), out}), CompileError);
}
