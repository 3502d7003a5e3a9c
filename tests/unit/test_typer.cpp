// Typing with numba's rules, and typing diagnostics.
#include "frontend/builtins/builtin.h"
#include "frontend/sema/typer.h"
#include "frontend/syntax/parser.h"
#include "kernel_test_util.h"

#include <map>
#include <set>

using namespace cutwin;
using namespace cutwin::fe;
using ::testing::HasSubstr;

namespace {

struct Typed {
  std::shared_ptr<SourceFile> file;
  std::shared_ptr<fe::Module> ast;
  std::unique_ptr<Program> program;
  std::unique_ptr<Typer> typer;
  const FunctionSpec *spec = nullptr;
  std::string type(const std::string &var) const { return spec->locals.at(var).str(); }
};

std::unique_ptr<Typed> typeKernel(const std::string &src, const std::vector<Type> &args,
                                  const std::string &k = "k") {
  auto t = std::make_unique<Typed>();
  t->file = std::make_shared<SourceFile>("t.py", src);
  t->ast = std::make_shared<fe::Module>(parseModule(*t->file));
  t->program = std::make_unique<Program>(std::make_unique<ModuleScope>(t->file, t->ast));
  t->typer = std::make_unique<Typer>(*t->program);
  t->spec = &t->typer->typeKernel(k, args);
  return t;
}

std::string typeError(const std::string &src, const std::vector<Type> &args) {
  try {
    typeKernel(src, args);
  } catch (const CompileError &e) {
    return e.what();
  }
  return "";
}

Type f32a1() { return Type::array(Scalar::F32, 1, Layout::C); }
Type sc(Scalar s) { return Type::scalarOf(s); }

} // namespace

TEST(Typer, LiteralsAndArithmeticFollowNumba) {
  auto t = typeKernel(R"PY(
from numba import cuda
@cuda.jit
def k(a, n, m, u):
    i = 1
    f = 1.5
    x = a[0] * 2
    y = a[0] * 2.0
    q = n / m
    r = n // m
    s = n + m
    v = u + u
    w = u + n
    z = a[0] + n
    b = n > 3
    neg = -m
)PY",
                      {f32a1(), sc(Scalar::I32), sc(Scalar::I32), sc(Scalar::U32)});
  EXPECT_EQ(t->type("i"), "int64");
  EXPECT_EQ(t->type("f"), "float64");
  EXPECT_EQ(t->type("x"), "float64"); // float32 * int64 -> float64 (int64 is unsafe in float32)
  EXPECT_EQ(t->type("y"), "float64");
  EXPECT_EQ(t->type("q"), "float64");
  EXPECT_EQ(t->type("r"), "int64"); // int32 // int32 -> int64 (machine-int rule)
  EXPECT_EQ(t->type("s"), "int64");
  EXPECT_EQ(t->type("v"), "uint64");
  EXPECT_EQ(t->type("w"), "int64");
  EXPECT_EQ(t->type("z"), "float64"); // float32 + int32 -> float64
  EXPECT_EQ(t->type("b"), "bool");
  EXPECT_EQ(t->type("neg"), "int64");
}

TEST(Typer, UnificationOfAssignments) {
  auto t = typeKernel(R"PY(
from numba import cuda, float32
@cuda.jit
def k(a):
    t = 0.
    s = 0
    c = float32(0)
    for i in range(a.size):
        t += a[i]
        s += a[i]
        c += a[i]
    x = 1
    if t > 0:
        x = 2.5
    a[0] = x
)PY",
                      {f32a1()});
  EXPECT_EQ(t->type("t"), "float64");
  EXPECT_EQ(t->type("s"), "float64"); // int64 unified with float64
  EXPECT_EQ(t->type("c"), "float32");
  EXPECT_EQ(t->type("i"), "int64");
  EXPECT_EQ(t->type("x"), "float64");
}

TEST(Typer, VersionsOfAVariableWhoseAssignmentsNeverMeet) {
  // numba's SSA versions: assignments meeting at a read unify, others are separate variables
  auto t = typeKernel(R"PY(
from numba import cuda
@cuda.jit
def k(a):
    v = 1
    a[0] = v
    v = 2.5
    a[1] = v
    w = 1
    if a[0] > 0:
        w = 2.5
    a[2] = w
    for i in range(3):
        a[i] = i
    for i in range(2):
        a[i] += 0.5
    u = (1, 2)
    while a[0] < 3:
        a[0] += u[0]
        u = (3, 4)
)PY",
                      {f32a1()});
  EXPECT_EQ(t->type("v"), "int64");
  EXPECT_EQ(t->type("v$1"), "float64");
  EXPECT_EQ(t->type("w"), "float64");
  EXPECT_EQ(t->type("i"), "int64");
  EXPECT_EQ(t->type("i$1"), "int64");
  EXPECT_EQ(t->type("u"), "UniTuple(int64 x 2)");
}

TEST(Typer, CudaBuiltins) {
  auto t = typeKernel(R"PY(
from numba import cuda, int16
import numpy as np
@cuda.jit
def k(a):
    i = cuda.grid(1)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    bd = cuda.blockDim.y
    sh = cuda.shared.array((4, 4), np.float64)
    lo = cuda.local.array(8, dtype=int16)
    n = a.shape[0]
    sz = a.size
    for j in range(tx):
        pass
)PY",
                      {f32a1()});
  EXPECT_EQ(t->type("i"), "int64");
  EXPECT_EQ(t->type("x"), "int64");
  EXPECT_EQ(t->type("tx"), "int32");
  EXPECT_EQ(t->type("bd"), "int32");
  EXPECT_EQ(t->type("sh"), "array(float64, 2d, C, shared)");
  EXPECT_EQ(t->type("lo"), "array(int16, 1d, C, local)");
  EXPECT_EQ(t->type("n"), "int64");
  EXPECT_EQ(t->type("sz"), "int64");
  EXPECT_EQ(t->type("j"), "int32"); // range over int32 yields int32
}

TEST(Typer, MathOnTheCudaTarget) {
  auto t = typeKernel(R"PY(
from numba import cuda
import math
@cuda.jit
def k(a, n):
    s = math.sin(a[0])
    d = math.sin(n)
    f = math.floor(a[0])
    p = math.pow(a[0], a[0])
    q = math.sqrt(2)
    b = math.isnan(a[0])
)PY",
                      {f32a1(), sc(Scalar::I32)});
  EXPECT_EQ(t->type("s"), "float32");
  EXPECT_EQ(t->type("d"), "float64");
  EXPECT_EQ(t->type("f"), "float32"); // CUDA target: floor keeps the float type
  EXPECT_EQ(t->type("p"), "float32");
  EXPECT_EQ(t->type("q"), "float64");
  EXPECT_EQ(t->type("b"), "bool");
}

TEST(Typer, DeviceFunctionsSpecialisePerArgumentTypes) {
  auto t = typeKernel(R"PY(
from numba import cuda
@cuda.jit(device=True)
def twice(x):
    return x * 2
@cuda.jit
def k(a, n):
    p = twice(a[0])
    q = twice(n)
)PY",
                      {f32a1(), sc(Scalar::I32)});
  EXPECT_EQ(t->type("p"), "float64");
  EXPECT_EQ(t->type("q"), "int64");
  int devSpecs = 0;
  for (auto &s : t->typer->specs())
    devSpecs += !s->isKernel;
  EXPECT_EQ(devSpecs, 2);
}

TEST(Typer, ExplicitSignaturesInBothForms) {
  std::string src = R"PY(
from numba import cuda, void, float32, int32
@cuda.jit("void(float32[:, ::1], int32)")
def k1(a, n):
    pass
@cuda.jit(void(float32[:], int32))
def k2(a, n):
    pass
@cuda.jit("float32(float32, float32)", device=True)
def add(x, y):
    return x + y
@cuda.jit
def k(out):
    out[0] = add(1, 2)
)PY";
  auto file = std::make_shared<SourceFile>("t.py", src);
  auto ast = std::make_shared<fe::Module>(parseModule(*file));
  ModuleScope scope(file, ast);
  Signature s1 = scope.parseSignature(scope.jitFunction("k1")->options.signatures[0]);
  EXPECT_EQ(s1.args[0].str(), "array(float32, 2d, C)");
  EXPECT_EQ(s1.args[1].str(), "int32");
  Signature s2 = scope.parseSignature(scope.jitFunction("k2")->options.signatures[0]);
  EXPECT_EQ(s2.args[0].str(), "array(float32, 1d, A)");
  auto t = typeKernel(src, {Type::array(Scalar::F64, 1, Layout::C)});
  for (auto &s : t->typer->specs()) {
    if (!s->isKernel) {
      EXPECT_EQ(s->returnType.str(), "float32");
    }
  }
}

TEST(Typer, CutwinExportsNumbaTypeNames) {
  const char *src = R"PY(
from cutwin import cuda, float32, int16, void, types
import cutwin.types as ct
@cuda.jit(void(float32[:], types.int64, ct.uint8))
def k(a, n, m):
    x = int16(n)
    a[0] = x + m
)PY";
  auto file = std::make_shared<SourceFile>("t.py", src);
  auto ast = std::make_shared<fe::Module>(parseModule(*file));
  ModuleScope scope(file, ast);
  Signature sig = scope.parseSignature(scope.jitFunction("k")->options.signatures[0]);
  ASSERT_EQ(sig.args.size(), 3u);
  EXPECT_EQ(sig.args[0].str(), "array(float32, 1d, A)");
  EXPECT_EQ(sig.args[1].str(), "int64");
  EXPECT_EQ(sig.args[2].str(), "uint8");
  auto t = typeKernel(src, sig.args);
  EXPECT_EQ(t->spec->locals.at("x").str(), "int16");
}

TEST(Typer, ModuleConstantsFold) {
  auto t = typeKernel(R"PY(
from numba import cuda, float32
TPB = 16
N = TPB * 2 + 1
SHAPE = (N, TPB // 4)
SCALE = 0.5
@cuda.jit
def k(a):
    s = cuda.shared.array(SHAPE, float32)
    v = SCALE * N
)PY",
                      {f32a1()});
  EXPECT_EQ(t->type("s"), "array(float32, 2d, C, shared)");
  EXPECT_EQ(t->type("v"), "float64");
}

TEST(Typer, DiagnosticsNamePlaceAndProblem) {
  std::string hdr = "from numba import cuda\nimport numpy as np\n@cuda.jit\ndef k(a, n):\n";
  auto err = [&](const std::string &body) { return typeError(hdr + body, {f32a1(), sc(Scalar::I32)}); };
  EXPECT_THAT(err("    x = y + 1\n"), HasSubstr("t.py:5:9: error: name 'y' is not defined"));
  EXPECT_THAT(err("    x = a[1.5]\n"),
              HasSubstr("t.py:5:11: error: array index must be an integer, not float64"));
  EXPECT_THAT(err("    x = a + a\n"), HasSubstr("whole-array arithmetic"));
  EXPECT_THAT(err("    x = a\n    if n:\n        x = 1\n    a[0] = x[0]\n"),
              HasSubstr("variable 'x' is assigned both array(float32, 1d, C) and int64"));
  EXPECT_THAT(err("    return 1\n"), HasSubstr("kernels cannot return a value"));
  EXPECT_THAT(err("    s = cuda.shared.array(n, np.float32)\n"),
              HasSubstr("t.py:5:27: error: cuda.shared.array() shape must be a constant"));
  EXPECT_THAT(err("    x = np.zeros(3)\n"), HasSubstr("module 'numpy' has no attribute 'zeros'"));
  EXPECT_THAT(err("    open(n)\n"), HasSubstr("name 'open' is not defined"));
  EXPECT_THAT(err("    print(a)\n"),
              HasSubstr("t.py:5:11: error: print() in a kernel takes strings, integers, floats, booleans"));
  EXPECT_THAT(err("    x = a[0, 1]\n"), HasSubstr("too many indices"));
  EXPECT_THAT(err("    a.foo = 1\n"), HasSubstr("cannot assign to attribute 'foo'"));
  EXPECT_THAT(err("    x = 1.5 & 2\n"), HasSubstr("unsupported operand types for &: 'float64' and 'int64'"));
  EXPECT_THAT(err("    for v in n:\n        pass\n"), HasSubstr("cannot iterate over int32 in a kernel"));
  EXPECT_THAT(err("    x = z\n    z = 1\n"), HasSubstr("local variable 'z' is used before it is assigned"));
  EXPECT_THAT(err("    break\n"), HasSubstr("'break' outside a loop"));
}

TEST(Typer, HostOnlyGlobalsAreExplained) {
  std::string src = R"PY(
from numba import cuda
import numpy as np
import time
table = np.arange(10)
def helper(x):
    return x
@cuda.jit
def k(a, n):
    a[0] = table[0]
)PY";
  EXPECT_THAT(typeError(src, {f32a1(), sc(Scalar::I32)}),
              HasSubstr("t.py:10:12: error: global 'table' is not a compile-time constant"));
  std::string src2 = src;
  src2.replace(src2.find("table[0]"), 8, "helper(1)");
  EXPECT_THAT(typeError(src2, {f32a1(), sc(Scalar::I32)}),
              HasSubstr("'helper' is a plain Python function; decorate it with @cuda.jit(device=True)"));
  src2 = src;
  src2.replace(src2.find("table[0]"), 8, "time.time()");
  EXPECT_THAT(typeError(src2, {f32a1(), sc(Scalar::I32)}),
              HasSubstr("module 'time' is not available in kernels"));
}

/// Each device function's return type (numba's spelling) when kernel `k` of `src` is typed.
static std::map<std::string, std::string> deviceFunctionReturns(const std::string &src,
                                                                const std::vector<Type> &args) {
  auto t = typeKernel(src, args);
  std::map<std::string, std::string> returns;
  for (auto &s : t->typer->specs())
    if (!s->isKernel)
      returns[s->def->name] = s->returnType.str();
  return returns;
}

TEST(Typer, RecursionTakesItsTypeFromTheReturnsThatDoNotRecurse) {
  std::string src = R"PY(
from numba import cuda
@cuda.jit(device=True)
def f(x):
    if x <= 0:
        return 0.5
    return f(x - 1) * 2
@cuda.jit(device=True)
def even(n):
    if n == 0:
        return True
    return odd(n - 1)
@cuda.jit(device=True)
def odd(n):
    if n == 0:
        return False
    return even(n - 1)
@cuda.jit
def k(a, n):
    a[0] = f(n) + even(n)
)PY";
  auto returns = deviceFunctionReturns(src, {f32a1(), sc(Scalar::I32)});
  EXPECT_EQ(returns["f"], "float64");
  EXPECT_EQ(returns["even"], "bool");
  EXPECT_EQ(returns["odd"], "bool");
}

TEST(Typer, RunawayRecursionIsReported) {
  std::string src = R"PY(
from numba import cuda
@cuda.jit(device=True)
def f(x):
    return f(x - 1)
@cuda.jit
def k(a, n):
    a[0] = f(n)
)PY";
  std::string err = typeError(src, {f32a1(), sc(Scalar::I32)});
  EXPECT_THAT(err, HasSubstr("t.py:5:"));
  EXPECT_THAT(err, HasSubstr("cannot type infer runaway recursion"));
}

TEST(Typer, ANoneOnSomePathsMakesTheResultOptional) {
  std::string src = R"PY(
from numba import cuda
@cuda.jit(device=True)
def falls_off(a, i):
    if a[i] > 0:
        return a[i]
@cuda.jit(device=True)
def bare(x):
    if x < 0:
        return
    return x + 1
@cuda.jit(device=True)
def none_or_pair(x):
    if x > 1:
        return x, x
    return None
@cuda.jit(device=True)
def forwards(a, i):
    r = falls_off(a, i)
    return r
@cuda.jit(device=True)
def always(x):
    if x > 0:
        return 1.0
    else:
        return 2.0
@cuda.jit
def k(a, n):
    r = forwards(a, n)
    if r is not None:
        a[0] = r + bare(n) + always(n)
    p = none_or_pair(n)
    if p is None:
        a[1] = falls_off(a, n)
)PY";
  auto returns = deviceFunctionReturns(src, {f32a1(), sc(Scalar::I32)});
  EXPECT_EQ(returns["falls_off"], "OptionalType(float32)");
  EXPECT_EQ(returns["bare"], "OptionalType(int64)");
  EXPECT_EQ(returns["none_or_pair"], "OptionalType(UniTuple(int32 x 2))");
  EXPECT_EQ(returns["forwards"], "OptionalType(float32)");
  EXPECT_EQ(returns["always"], "float64");
}

TEST(Typer, RecursionThatMayReturnNoneDoesNotConverge) {
  std::string src = R"PY(
from numba import cuda
@cuda.jit(device=True)
def f(x):
    if x > 0:
        return f(x - 1) + 1
    elif x == 0:
        return 0
@cuda.jit
def k(a, n):
    a[0] = f(n)
)PY";
  std::string err = typeError(src, {f32a1(), sc(Scalar::I32)});
  EXPECT_THAT(err, HasSubstr("t.py:4:"));
  EXPECT_THAT(err, HasSubstr("Return type of recursive function does not converge"));
}

TEST(BuiltinRegistry, EveryRowIsFoundByItsNameAndNamesAreUnique) {
  std::set<std::string> names;
  size_t withoutLowering = 0;
  for (const BuiltinFamily &family : builtinFamilies())
    for (const Builtin &b : family.rows()) {
      EXPECT_TRUE(names.insert(b.name).second) << b.name << " is in two rows";
      EXPECT_EQ(findBuiltin(b.name), &b) << b.name;
      EXPECT_NE(b.type, nullptr) << b.name;
      withoutLowering += b.lower == nullptr;
    }
  // range, enumerate, zip (read by their for loop) and cuda.const.array_like (a constant)
  EXPECT_EQ(withoutLowering, 4u);
  EXPECT_GE(names.size(), 240u);
  for (const char *name :
       {"math.sin", "numpy.arctan2", "cmath.polar", "operator.iadd", "cuda.atomic.cas", "cuda.shfl_down_sync",
        "cuda.random.xoroshiro128p_normal_float64", "builtins.print", "builtins.range", "cuda.shared.array"})
    EXPECT_TRUE(names.count(name)) << name;
  EXPECT_EQ(findBuiltin("cuda.syncthread"), nullptr);
  EXPECT_EQ(findBuiltin("math.sinus"), nullptr);
}

TEST(BuiltinRegistry, LibdeviceRowsAreMadeOnFirstUseOncePerName) {
  const Builtin *a = findBuiltin("cuda.libdevice.sincosf");
  ASSERT_NE(a, nullptr);
  EXPECT_STREQ(a->name, "cuda.libdevice.sincosf");
  EXPECT_EQ(findBuiltin("cuda.libdevice.sincosf"), a);
  EXPECT_NE(findBuiltin("cuda.libdevice.cosf"), a);
  EXPECT_EQ(a->type, findBuiltin("cuda.libdevice.cosf")->type);
}

TEST(BuiltinRegistry, TheTyperHandsTheLowererTheRowNotAString) {
  auto t = typeKernel(R"PY(
from numba import cuda
@cuda.jit
def k(a):
    n = cuda.popc(cuda.grid(1))
    cuda.syncthreads()
    m = max(n, 3)
)PY",
                      {f32a1()});
  std::set<std::string> seen;
  for (auto &[expr, info] : t->spec->exprs)
    if (info.function)
      seen.insert(info.function->name);
  EXPECT_EQ(seen, (std::set<std::string>{"cuda.popc", "cuda.grid", "cuda.syncthreads", "builtins.max"}));
}

TEST(BuiltinRegistry, EveryFamilyIsCalledThroughItsRow) {
  auto t = typeKernel(R"PY(
import math, cmath, operator
import numpy as np
from numba import cuda
@cuda.jit
def k(a):
    i = cuda.grid(1)
    x = math.sin(a[i]) + np.add(a[i], 1.0) + operator.mul(a[i], 2.0)
    m, e = math.frexp(a[i])
    z = cmath.sqrt(complex(x, 1.0))
    cuda.atomic.add(a, 0, float(e))
    v = cuda.shfl_down_sync(0xffffffff, x, 1)
    s = cuda.shared.array(4, np.float32)
    for j in range(2):
        s[j] = v
    print(z.real)
)PY",
                      {f32a1()});
  std::set<std::string> seen;
  for (auto &[expr, info] : t->spec->exprs)
    if (info.function)
      seen.insert(info.function->name);
  // math.frexp's rule hands the call to libdevice's frexpf (float32 argument)
  EXPECT_EQ(seen, (std::set<std::string>{"cuda.grid", "math.sin", "numpy.add", "operator.mul",
                                         "cuda.libdevice.frexpf", "cmath.sqrt", "builtins.complex",
                                         "cuda.atomic.add", "builtins.float", "cuda.shfl_down_sync",
                                         "cuda.shared.array", "builtins.range", "builtins.print"}));
}
