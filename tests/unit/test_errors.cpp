// Faults inside kernels and compile diagnostics: messages name the place, and the
// process keeps working afterwards.
#include "kernel_test_util.h"

#include <functional>

#include <pthread.h>

using namespace cutwin;
using namespace cutwin::test;
using ::testing::HasSubstr;

namespace {

const char *kOob = R"PY(from numba import cuda

@cuda.jit
def fill(out):
    i = cuda.grid(1)
    out[i] = i
)PY";

} // namespace

TEST(KernelErrors, OutOfBoundsNamesKernelLineThreadBlockIndexAndExtent) {
  auto mod = moduleFrom(kOob, "oob.py");
  auto out = sim()->zeros(DType::I64, {1000});
  KernelError e = expectKernelError([&] { mod->kernel("fill").launch(4, 256, {out}); });
  EXPECT_EQ(e.kind(), KernelErrorKind::IndexOutOfBounds);
  EXPECT_EQ(e.kernel(), "fill");
  EXPECT_EQ(e.loc().line, 6u);
  std::string msg = e.what();
  EXPECT_THAT(msg, HasSubstr("oob.py:6 in fill"));
  EXPECT_THAT(msg, HasSubstr("block (3,0,0)"));
  EXPECT_THAT(msg, HasSubstr("out of bounds for axis 0 with size 1000"));
  // The faulting thread is one of threads 232..255 of block 3 (indices 1000..1023).
  EXPECT_GE(e.thread()[0], 232u);
  EXPECT_EQ(e.block()[0], 3u);
  EXPECT_THAT(msg, HasSubstr("index " + std::to_string(3 * 256 + e.thread()[0])));
}

TEST(KernelErrors, ProcessKeepsWorkingAfterAFault) {
  auto mod = moduleFrom(kOob, "oob.py");
  auto small = sim()->zeros(DType::I64, {10});
  EXPECT_THROW(mod->kernel("fill").launch(1, 32, {small}), KernelError);
  auto ok = sim()->zeros(DType::I64, {64});
  mod->kernel("fill").launch(2, 32, {ok});
  auto v = ok.toVector<int64_t>();
  for (int64_t i = 0; i < 64; ++i)
    ASSERT_EQ(v[size_t(i)], i);
}

TEST(KernelErrors, NegativeIndexWrapsAndTooNegativeIsReported) {
  const char *src = R"PY(from numba import cuda

@cuda.jit
def k(out, j):
    out[j] = 7
)PY";
  auto mod = moduleFrom(src);
  auto out = sim()->zeros(DType::I32, {4});
  mod->kernel("k").launch(1, 1, {out, int64_t(-1)});
  EXPECT_EQ(out.toVector<int32_t>()[3], 7);
  KernelError e = expectKernelError([&] { mod->kernel("k").launch(1, 1, {out, int64_t(-5)}); });
  EXPECT_THAT(std::string(e.what()), HasSubstr("index -5 out of bounds for axis 0 with size 4"));
}

TEST(KernelErrors, SecondAxisIsReported) {
  const char *src = R"PY(from numba import cuda

@cuda.jit
def k(a):
    a[1, 9] = 1.0
)PY";
  auto a = sim()->zeros(DType::F64, {4, 5});
  KernelError e = expectKernelError([&] { moduleFrom(src)->kernel("k").launch(1, 1, {a}); });
  EXPECT_THAT(std::string(e.what()), HasSubstr("index 9 out of bounds for axis 1 with size 5"));
}

TEST(KernelErrors, FaultInDeviceFunctionNamesItAndTheKernel) {
  const char *src = R"PY(from numba import cuda

@cuda.jit(device=True)
def get(a, i):
    return a[i]

@cuda.jit
def k(a, out):
    out[0] = get(a, 10)
)PY";
  auto a = sim()->zeros(DType::F32, {4});
  auto out = sim()->zeros(DType::F32, {1});
  KernelError e = expectKernelError([&] { moduleFrom(src, "dev.py")->kernel("k").launch(1, 1, {a, out}); });
  EXPECT_THAT(std::string(e.what()), HasSubstr("dev.py:5 in get (called from kernel k)"));
}

// Since Volta a barrier waits only for the threads that have not exited: part of the block
// returning early (whole warps or single lanes) is correct, and so is a partial last block.
TEST(KernelErrors, ExitedThreadsLeaveTheBarrier) {
  const char *src = R"PY(from numba import cuda, float32

@cuda.jit
def k(x, out, n):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i >= n:
        return
    s[t] = x[i]
    cuda.syncthreads()
    out[i] = s[(t + 1) % 64] if (t + 1) % 64 < n - cuda.blockIdx.x * 64 else -1.0
)PY";
  for (uint32_t n : {70u, 100u, 77u, 128u}) { // 6, 36, 13 and 0 threads of the last block left
    std::vector<float> x(128);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i);
    auto in = sim()->toDevice(x);
    auto out = sim()->zeros(DType::F32, {128});
    moduleFrom(src, "early.py")->kernel("k").launch(2, 64, {in, out, int64_t(n)});
    std::vector<float> got = out.toVector<float>();
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t t = i % 64, next = (t + 1) % 64, base = i - t;
      float want = next < n - base ? float(base + next) : -1.0f;
      ASSERT_EQ(got[i], want) << "n " << n << " i " << i;
    }
  }
}

TEST(KernelErrors, ThreadsAtDifferentBarriersAreDivergence) {
  const char *src = R"PY(from numba import cuda

@cuda.jit
def k(out):
    t = cuda.threadIdx.x
    if t % 2 == 0:
        cuda.syncthreads()
    else:
        cuda.syncthreads()
    out[t] = t
)PY";
  auto out = sim()->zeros(DType::I32, {8});
  KernelError e = expectKernelError([&] { moduleFrom(src, "two.py")->kernel("k").launch(1, 8, {out}); });
  EXPECT_EQ(e.kind(), KernelErrorKind::BarrierDivergence);
  EXPECT_THAT(std::string(e.what()), HasSubstr("4 of the block's 8 running threads wait at this barrier"));
  EXPECT_THAT(std::string(e.what()), HasSubstr("waits at the barrier at two.py:9"));
}

// Exited threads do not count, the others still must meet at one barrier.
TEST(KernelErrors, DifferentBarriersAfterSomeThreadsExitedAreDivergence) {
  const char *src = R"PY(from numba import cuda

@cuda.jit
def k(out):
    t = cuda.threadIdx.x
    if t >= 6:
        return
    if t < 2:
        cuda.syncthreads()
    else:
        cuda.syncthreads()
    out[t] = t
)PY";
  auto out = sim()->zeros(DType::I32, {8});
  KernelError e = expectKernelError([&] { moduleFrom(src, "three.py")->kernel("k").launch(1, 8, {out}); });
  EXPECT_EQ(e.kind(), KernelErrorKind::BarrierDivergence);
  EXPECT_THAT(std::string(e.what()), HasSubstr("of the block's 6 running threads wait at this barrier"));
}

TEST(KernelErrors, BoundsChecksCanBeTurnedOff) {
  const char *src = R"PY(from numba import cuda

@cuda.jit
def k(a, out):
    out[0] = a.shape[0]
)PY";
  CompileOptions o;
  o.boundscheck = false;
  auto mod = Module::fromString(sim(), src, "k.py", o);
  auto a = sim()->zeros(DType::F32, {3});
  auto out = sim()->zeros(DType::I64, {1});
  mod->kernel("k").launch(1, 1, {a, out});
  EXPECT_EQ(out.toVector<int64_t>()[0], 3);
  EXPECT_EQ(mod->kernel("k").ir({a, out}).find("cutwin.error.raise"), std::string::npos);
}

TEST(KernelErrors, BoundscheckOptionOverridesTheDevicesDefault) {
  const char *src = R"PY(from numba import cuda

@cuda.jit(boundscheck=False)
def k(a):
    a[0] = 1.0
)PY";
  auto a = sim()->zeros(DType::F32, {1});
  EXPECT_EQ(moduleFrom(src)->kernel("k").ir({a}).find("cutwin.error.raise"), std::string::npos);
  std::string checked = src;
  checked.replace(checked.find("False"), 5, "True");
  EXPECT_NE(moduleFrom(checked)->kernel("k").ir({a}).find("cutwin.error.raise"), std::string::npos);
}

TEST(KernelErrors, AssertAndRaiseReportedWithDebug) {
  const char *src = R"PY(from numba import cuda

@cuda.jit(debug=True)
def k(a):
    i = cuda.grid(1)
    assert a[i] >= 0, "negative input"
    if a[i] > 100:
        raise ValueError("too big")
)PY";
  auto mod = moduleFrom(src, "dbg.py");
  auto a = sim()->toDevice(std::vector<float>{1, 2, -3, 4});
  KernelError e = expectKernelError([&] { mod->kernel("k").launch(1, 4, {a}); });
  EXPECT_EQ(e.kind(), KernelErrorKind::Assertion);
  EXPECT_THAT(std::string(e.what()),
              HasSubstr("dbg.py:6 in k, thread (2,0,0) block (0,0,0): AssertionError: negative input"));
  auto b = sim()->toDevice(std::vector<float>{1, 200, 3, 4});
  KernelError e2 = expectKernelError([&] { mod->kernel("k").launch(1, 4, {b}); });
  EXPECT_EQ(e2.kind(), KernelErrorKind::Exception);
  EXPECT_THAT(std::string(e2.what()), HasSubstr("thread (1,0,0) block (0,0,0): ValueError: too big"));
}

TEST(LaunchErrors, TooManyThreadsPerBlockIsRefusedLikeTheGpu) {
  auto mod = moduleFrom(kOob);
  auto out = sim()->zeros(DType::I64, {4096});
  try {
    mod->kernel("fill").launch(1, 2048, {out});
    FAIL() << "launch accepted";
  } catch (const LaunchError &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("exceeds the device limit of 1024"));
  }
  try {
    mod->kernel("fill").launch(1, Dim3(32, 32, 2), {out});
    FAIL() << "launch accepted";
  } catch (const LaunchError &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("2048 threads per block exceed"));
  }
}

TEST(LaunchErrors, TooMuchStaticSharedMemoryIsRefused) {
  const char *src = R"PY(from numba import cuda, float64

@cuda.jit
def k(out):
    s = cuda.shared.array(7000, float64)
    s[0] = 1.0
    out[0] = s[0]
)PY";
  auto out = sim()->zeros(DType::F64, {1});
  try {
    moduleFrom(src)->kernel("k").launch(1, 1, {out});
    FAIL() << "launch accepted";
  } catch (const LaunchError &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("56000 bytes of static shared memory"));
  }
}

TEST(CompileErrors, EveryUnsupportedConstructIsADiagnosticNotACrash) {
  // Each body is put into a kernel `k(a, n)` with a float32 array and an int64; every one
  // must produce a CompileError that points into the kernel with file:line:col.
  const std::vector<std::string> bodies = {
      "    x = cuda.grid()\n",
      "    x = cuda.grid(4)\n",
      "    x = a[]\n",
      "    x = [i for i in range(3)]\n",
      "    x = {1: 2}\n",
      "    x = lambda q: q\n",
      "    x = a[1.5:2]\n",
      "    x = a[1:2, 0, 0]\n",
      "    a[0:2] += 1\n",
      "    x = a.flat\n",
      "    with a:\n        pass\n",
      "    try:\n        pass\n    except Exception:\n        pass\n",
      "    def inner():\n        pass\n",
      "    import math\n",
      "    x = 1j // 2\n",
      "    x = 'text' + 1\n",
      "    x = cuda\n    if n:\n        x = 1\n    a[0] = x\n",
      "    if cuda.threadIdx:\n        pass\n",
      "    x = float32(1, 2)\n",
      "    x = range(1.5)\n",
      "    x = math.nosuch(1)\n",
      "    x = cuda.shared.array((2, 2))\n",
      "    x = cuda.shared.array((2, 2, 2, 2), float32)\n",
      "    x = cuda.local.array(-1, float32)\n",
      "    x = a < a\n",
      "    x = a is a\n",
      "    x = 3 in a\n",
      "    a[0] = a\n",
      "    a[0][0] = 1\n",
      "    x = n(1)\n",
      "    x = abs(a)\n",
      "    x = min(a, 1)\n",
      "    x = len(n)\n",
      "    x = a.shape[5]\n",
      "    x = (1, 2.0)\n    y = x[n]\n",
      "    x, y = 1\n",
      "    x, y = (1, 2, 3)\n",
      "    x = *a\n",
      "    global n\n    n = 1\n",
      "    x = a @ a\n",
      "    x = not a\n",
      "    return a\n",
      "    raise\n",
      "    assert n, n\n",
      "    x = cuda.syncthreads(1)\n",
      "    x = cuda.jit(n)\n",
      "    continue\n",
      "    x = unknown_module.thing\n",
      "    x = a.foo()\n",
      "    x = 1 if a else 2\n",
  };
  std::string hdr = "from numba import cuda, float32\nimport math\n\n@cuda.jit\ndef k(a, n):\n";
  for (auto &body : bodies) {
    std::string err;
    try {
      auto mod = moduleFrom(hdr + body, "bad.py");
      mod->kernel("k").ir({sim()->zeros(DType::F32, {4}), int64_t(1)});
    } catch (const CompileError &e) {
      err = e.what();
    } catch (const std::exception &e) {
      ADD_FAILURE() << "not a CompileError for:\n" << body << "\n" << e.what();
      continue;
    }
    EXPECT_THAT(err, ::testing::MatchesRegex("bad\\.py:[6-9]:[0-9]+: error: .*")) << "for:\n" << body;
  }
}

// Code nested deeper than CPython accepts gets CPython's error, with its place, instead of
// overflowing a stack: brackets (200), indentation (100 levels) and expressions (3000 deep,
// "maximum recursion depth exceeded during compilation"), whichever way they nest. Code
// just within the limits compiles, on a thread with a small stack too (the frontend runs
// on a stack of its own).
TEST(CompileErrors, NestingLimitsAreCPythonsErrorsNotCrashes) {
  auto compileBody = [](const std::string &expr) {
    std::string src = "from numba import cuda\n\n@cuda.jit\ndef k(a):\n    a[0] = " + expr + "\n";
    auto mod = moduleFrom(src, "deep.py");
    return mod->kernel("k").ir({sim()->zeros(DType::I64, {4})});
  };
  auto repeat = [](const std::string &s, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i)
      out += s;
    return out;
  };
  auto joined = [](const std::string &item, const std::string &sep, size_t n) {
    std::string out = item;
    for (size_t i = 1; i < n; ++i)
      out += sep + item;
    return out;
  };
  auto errorOf = [&](const std::string &expr) {
    try {
      compileBody(expr);
    } catch (const CompileError &e) {
      return std::string(e.what());
    }
    return std::string("compiled");
  };
  const std::string tooDeep = "maximum recursion depth exceeded during compilation";
  // brackets: 200 deep compile; the 201st is CPython's SyntaxError at its column
  EXPECT_NE(compileBody(repeat("(", 200) + "1" + repeat(")", 200)).size(), 0u);
  EXPECT_THAT(errorOf(repeat("(", 5000) + "1" + repeat(")", 5000)),
              HasSubstr("deep.py:5:212: error: too many nested parentheses"));
  EXPECT_THAT(errorOf(repeat("[", 201) + "1" + repeat("]", 201)), HasSubstr("too many nested parentheses"));
  // expressions built by recursion (unary operators, not, **) and by loops (chains)
  EXPECT_THAT(errorOf(repeat("-", 100000) + "1"), HasSubstr(tooDeep));
  EXPECT_THAT(errorOf(repeat("not ", 100000) + "1"), HasSubstr(tooDeep));
  EXPECT_THAT(errorOf(joined("a[1]", "+", 100000)), HasSubstr(tooDeep));
  EXPECT_THAT(errorOf(joined("a[1]", "+", 100000) + "; b = 1"),
              HasSubstr(tooDeep)); // (one line, two statements)
  EXPECT_THAT(errorOf(joined("1", "**", 5000)), HasSubstr(tooDeep));
  EXPECT_THAT(errorOf("abs" + repeat("(1)", 100000)), HasSubstr(tooDeep));
  EXPECT_THAT(errorOf("a" + repeat(".shape", 100000)), HasSubstr(tooDeep));
  EXPECT_THAT(errorOf(joined("1", " if a[0] else ", 5000)), HasSubstr(tooDeep));
  // within the limits: compiled, and from a thread whose own stack holds far less
  std::string deepest = joined("a[1]", "+", 2998), ifs = joined("a[1]", " if a[0] else ", 1490);
  std::string ir, ir2;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 << 10);
  struct Job {
    std::function<void()> f;
  } job{[&] {
    ir = compileBody(deepest);
    ir2 = compileBody(ifs);
  }};
  pthread_t t;
  ASSERT_EQ(pthread_create(
                &t, &attr, [](void *j) -> void * { return static_cast<Job *>(j)->f(), nullptr; }, &job),
            0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  EXPECT_THAT(ir, HasSubstr("define"));
  EXPECT_THAT(ir2, HasSubstr("define"));
}

TEST(CompileErrors, IndentationDeeperThanCPythonsLimitIsItsError) {
  auto source = [](int levels) {
    std::string src = "from numba import cuda\n\n@cuda.jit\ndef k(a):\n";
    for (int i = 1; i < levels; ++i)
      src += std::string(4 * i, ' ') + "if a[0] == 0:\n";
    return src + std::string(4 * levels, ' ') + "a[0] = 1\n";
  };
  EXPECT_NE(moduleFrom(source(99), "deep.py")->kernel("k").ir({sim()->zeros(DType::I64, {4})}).size(), 0u);
  try {
    moduleFrom(source(100), "deep.py")->kernel("k").ir({sim()->zeros(DType::I64, {4})});
    ADD_FAILURE() << "100 levels of indentation compiled";
  } catch (const CompileError &e) {
    EXPECT_THAT(e.what(), HasSubstr("deep.py:104:401: error: too many levels of indentation"));
  }
}

// A kernel the parser cannot read fails only itself: the file's other kernels compile and
// run; asking for it, or calling it from another kernel, names the construct's place.
TEST(CompileErrors, AnUnparsableKernelFailsOnlyItself) {
  const char *src = R"PY(from numba import cuda

@cuda.jit(device=True)
def helper(x):
    with x:
        return x

@cuda.jit
def bad(a):
    a[0] = [i for i in range(3)][0]

@cuda.jit
def uses(a):
    a[0] = helper(a[0])

@cuda.jit
def good(a):
    a[0] = 7
)PY";
  auto mod = moduleFrom(src, "mixed.py");
  auto a = sim()->zeros(DType::F32, {1});
  mod->kernel("good").launch(1, 1, {a});
  EXPECT_EQ(a.toVector<float>()[0], 7.0f);
  auto errorOf = [&](const char *kernel) {
    try {
      mod->kernel(kernel).ir({sim()->zeros(DType::F32, {1})});
    } catch (const CompileError &e) {
      return std::string(e.what());
    }
    return std::string("no CompileError");
  };
  EXPECT_THAT(errorOf("bad"), HasSubstr("mixed.py:10:15: error: list comprehensions are not supported"));
  EXPECT_THAT(errorOf("uses"),
              HasSubstr("mixed.py:14:12: error: 'helper' cannot be compiled: 'with' statements"));
  EXPECT_THAT(errorOf("uses"), HasSubstr("(mixed.py:5)"));
}

TEST(KernelErrors, WildAccessWithBoundsChecksOffIsReportedNotACrash) {
  // With bounds checks off an index far outside the array reaches unmapped memory; the
  // simulator turns the fault into a KernelError (as the GPU reports an illegal address)
  // and keeps working, in loop mode and in fiber mode.
  const char *src = R"PY(from numba import cuda

@cuda.jit
def wild(a, far):
    i = cuda.grid(1)
    a[i * far] = 1.0

@cuda.jit
def wild_sync(a, far):
    i = cuda.grid(1)
    cuda.syncthreads()
    a[i * far] = 1.0
)PY";
  CompileOptions o;
  o.boundscheck = false;
  auto mod = Module::fromString(sim(), src, "wild.py", o);
  auto a = sim()->zeros(DType::F32, {16});
  for (const char *k : {"wild", "wild_sync"}) {
    KernelError e = expectKernelError([&] { mod->kernel(k).launch(2, 32, {a, int64_t(1) << 40}); });
    EXPECT_EQ(e.kind(), KernelErrorKind::IllegalAddress);
    EXPECT_THAT(std::string(e.what()), HasSubstr(std::string("wild.py in ") + k + ", thread ("));
    // threads 32 and up index past 2^47: whichever thread faults first is reported
    EXPECT_THAT(std::string(e.what()), HasSubstr("illegal memory access "));
    // beyond 2^47 x86-64 reports no address: the message says so rather than "0x0"
    KernelError far = expectKernelError([&] { mod->kernel(k).launch(2, 32, {a, int64_t(1) << 46}); });
    EXPECT_THAT(std::string(far.what()), HasSubstr("illegal memory access outside the address space"));
    mod->kernel(k).launch(1, 16, {a, int64_t(1)}); // and the next launch works
  }
  EXPECT_EQ(a.toVector<float>()[15], 1.0f);
}

TEST(KernelErrors, FiberStackOverflowIsReported) {
  // A fiber stack forced too small (CUTWIN_SIM_STACK_KB) for a kernel's local array: the
  // stack probes hit the guard page, which is reported, and the process keeps working.
  // (A waiting loop keeps the kernel on fibers: split at its barriers, its local arrays
  // would be in the thread frames, off the stack.)
  const char *src = R"PY(from numba import cuda, float64

@cuda.jit
def big(out):
    buf = cuda.local.array(4096, float64)
    t = cuda.threadIdx.x
    for i in range(4096):
        buf[i] = t
    while cuda.atomic.add(out, 0, 0) < 0.0:
        pass
    cuda.syncthreads()
    out[t] = buf[4095]
)PY";
  setenv("CUTWIN_SIM_STACK_KB", "16", 1);
  auto small = Device::open("sim");
  unsetenv("CUTWIN_SIM_STACK_KB");
  auto out = small->zeros(DType::F64, {32});
  try {
    Module::fromString(small, src, "big.py")->kernel("big").launch(1, 32, {out});
    FAIL() << "no error";
  } catch (const KernelError &e) {
    EXPECT_EQ(e.kind(), KernelErrorKind::StackOverflow);
    EXPECT_THAT(std::string(e.what()),
                HasSubstr("stack overflow: the simulated thread used more than its 16 KiB"));
  }
  auto out2 = sim()->zeros(DType::F64, {32});
  Module::fromString(sim(), src, "big.py")->kernel("big").launch(1, 32, {out2});
  EXPECT_EQ(out2.toVector<double>()[31], 31.0);
  // Split at its barrier (no waiting loop), the kernel keeps its local array in the thread
  // frames: the small stacks are no limit.
  std::string split = src;
  std::string wait = "    while cuda.atomic.add(out, 0, 0) < 0.0:\n        pass\n";
  split.erase(split.find(wait), wait.size());
  auto out3 = small->zeros(DType::F64, {32});
  Module::fromString(small, split, "split.py")->kernel("big").launch(1, 32, {out3});
  EXPECT_EQ(out3.toVector<double>()[31], 31.0);
}

TEST(KernelErrors, ReportedAtLaunchOnTheSimulatorAndOnlyOnce) {
  // The simulator finishes a launch before returning, so its faults are thrown by launch;
  // a later synchronize has nothing left to report.
  auto mod = moduleFrom(kOob, "oob.py");
  auto small = sim()->zeros(DType::I64, {10});
  EXPECT_THROW(mod->kernel("fill").launch(1, 32, {small}), KernelError);
  EXPECT_NO_THROW(sim()->synchronize());
}
