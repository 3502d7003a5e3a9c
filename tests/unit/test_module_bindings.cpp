// Host bindings (ModuleBindings): what the Python package tells a module about its names
// wins over the source, so kernels see the live values of host-computed globals and
// functions jitted without a decorator.
#include "kernel_test_util.h"

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
