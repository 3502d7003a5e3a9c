// numba.cuda.libdevice called directly: every function libdevice declares compiles and
// runs on the simulator (its code rewritten for the CPU) and compiles to PTX; signatures
// as numba-cuda's bindings give them; errors name the call. Values are checked by the
// libdevice_calls conformance case (against the GPU) and tests/python/test_libdevice.py.
#include "frontend/ir/libdevice_signatures.h"
#include "kernel_test_util.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace cutwin;
using cutwin::ir::LibdeviceType;

/// A kernel `k_<name>(xf, xd, xi, xl, out)` calling libdevice.<name> with inputs of its
/// parameter types and storing every result in out.
std::string callingKernel(const std::string &name, const ir::LibdeviceSignature &sig) {
  std::string args, outs;
  int results = sig.ret == LibdeviceType::Void ? 0 : 1;
  for (const ir::LibdeviceParam &p : sig.params) {
    if (p.output) {
      ++results;
      continue;
    }
    if (!args.empty())
      args += ", ";
    switch (p.type) {
    case LibdeviceType::F32: args += "xf[0]"; break;
    case LibdeviceType::F64: args += "xd[0]"; break;
    case LibdeviceType::I64: args += "xl[0]"; break;
    default: args += "xi[0]"; break;
    }
  }
  std::string src = "@cuda.jit\ndef k_" + name + "(xf, xd, xi, xl, out):\n";
  std::string call = "libdevice." + name + "(" + args + ")";
  if (results == 1)
    return src + "    out[0] = " + call + "\n\n\n";
  std::string vars;
  for (int r = 0; r < results; ++r)
    vars += (r ? ", v" : "v") + std::to_string(r);
  src += "    " + vars + " = " + call + "\n";
  for (int r = 0; r < results; ++r)
    src += "    out[" + std::to_string(r) + "] = v" + std::to_string(r) + "\n";
  return src + "\n\n";
}

TEST(LibdeviceCalls, EveryFunctionCompilesAndRunsOnTheSimulatorAndCompilesToPtx) {
  std::vector<std::string> names = ir::libdeviceFunctionNames();
  ASSERT_GT(names.size(), 300u); // libdevice.10.bc declares about 350
  std::string src = "from numba import cuda\nfrom numba.cuda import libdevice\n\n\n";
  for (const std::string &n : names)
    src += callingKernel(n, *ir::libdeviceSignature(n));
  auto mod = test::moduleFrom(src, "libdevice_all.py");
  auto dev = test::sim();
  std::vector<Arg> args = {dev->toDevice(std::vector<float>{0.75f}), dev->toDevice(std::vector<double>{0.75}),
                           dev->toDevice(std::vector<int32_t>{3}), dev->toDevice(std::vector<int64_t>{5}),
                           dev->zeros(DType::F64, {4})};
  for (const std::string &n : names) {
    SCOPED_TRACE(n);
    auto k = mod->kernel("k_" + n);
    ASSERT_NO_THROW(k.launch(1, 1, args));
    std::string ptx = k.ptx(args);
    EXPECT_NE(ptx.find(".entry"), std::string::npos);
    EXPECT_EQ(ptx.find("llvm."), std::string::npos) << "an intrinsic LLVM's NVPTX backend left as a call";
  }
}

TEST(LibdeviceCalls, SignaturesAreNumbaCudasBindings) {
  const ir::LibdeviceSignature *s = ir::libdeviceSignature("sincosf");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->ret, LibdeviceType::Void);
  ASSERT_EQ(s->params.size(), 3u);
  EXPECT_FALSE(s->params[0].output);
  EXPECT_TRUE(s->params[1].output && s->params[1].type == LibdeviceType::F32);
  const ir::LibdeviceSignature *r = ir::libdeviceSignature("remquo"); // value, then the quotient
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->ret, LibdeviceType::F64);
  EXPECT_TRUE(r->params[2].output && r->params[2].type == LibdeviceType::I32);
  EXPECT_EQ(ir::libdeviceSignature("float2half_rn")->ret, LibdeviceType::I16);
  EXPECT_EQ(ir::libdeviceSignature("nan"), nullptr); // reads a string through its pointer
  EXPECT_EQ(ir::libdeviceSignature("sinf_not_a_function"), nullptr);
}

TEST(LibdeviceCalls, ResultsAndConversions) {
  auto out =
      test::runOut<double>("from numba import cuda\nfrom numba.cuda import libdevice\n\n\n"
                           "@cuda.jit\n"
                           "def k(out):\n"
                           "    m, e = libdevice.frexp(-3.0)\n"
                           "    out[0] = m\n"
                           "    out[1] = e\n"
                           "    f, w = libdevice.modff(2.75)\n"
                           "    out[2] = f + w * 10\n"
                           "    out[3] = libdevice.popc(7)\n" // int64 literal -> int32
                           "    out[4] = libdevice.sinf(0.5) - libdevice.sin(0.5)\n", // float64 -> float32
                           "k", 5);
  EXPECT_EQ(out[0], -0.75);
  EXPECT_EQ(out[1], 2.0);
  EXPECT_EQ(out[2], 20.75);
  EXPECT_EQ(out[3], 3.0);
  EXPECT_NE(out[4], 0.0); // sinf is single precision
  EXPECT_LT(std::abs(out[4]), 1e-7);
}

TEST(LibdeviceCalls, ErrorsNameTheCall) {
  const std::string head =
      "from numba import cuda\nfrom numba.cuda import libdevice\n\n\n@cuda.jit\ndef k(out):\n";
  auto message = [&](const std::string &body) {
    try {
      test::runOut<double>(head + body, "k", 1);
    } catch (const CompileError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("    out[0] = libdevice.sinus(1.0)\n"),
              testing::HasSubstr("kernel.py:7:24: error: numba.cuda.libdevice has no function 'sinus'"));
  EXPECT_THAT(message("    out[0] = libdevice.sinf(1.0, 2.0)\n"),
              testing::HasSubstr("kernel.py:7:28: error: libdevice.sinf() takes 1 argument, 2 given"));
  EXPECT_THAT(message("    out[0] = libdevice.sinf(1j)\n"),
              testing::HasSubstr("libdevice.sinf() argument 1 must be float32, not complex128"));
}

} // namespace
