// Foreign device functions without a GPU: the .cu file compiles with NVRTC to PTX that
// ptxas accepts as relocatable code, and the C++ API runs a kernel calling it on the
// simulator (the same source compiled for the CPU).
#include "backend_gpu/nvrtc.h"
#include "cutwin/cutwin.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace cutwin;

namespace {

const std::string kFunctions = std::string(CUTWIN_SOURCE_DIR) + "/tests/python/foreign/functions.cu";

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Foreign, NvrtcCompilesTheLinkedSourceToRelocatablePtx) {
  std::string why;
  if (!gpu::nvrtcAvailable(&why))
    GTEST_SKIP() << why; // a toolkit without NVRTC: the GPU run covers it
  std::string ptx = gpu::compileCudaToPtx(readFile(kFunctions), kFunctions, "sm_90");
  EXPECT_NE(ptx.find("(.param .b32 func_retval0) mul_f32_f32(\n\t.param .b64 mul_f32_f32_param_0"),
            std::string::npos)
      << ptx;
  EXPECT_NE(ptx.find("collatz_steps"), std::string::npos);
  EXPECT_EQ(ptx.find("fma.rn.f32"), std::string::npos); // -fmad=false: no contraction
  auto file = std::filesystem::temp_directory_path() / "cutwin-test-foreign.ptx";
  std::ofstream(file) << ptx;
  std::string cmd = "ptxas -arch=sm_90 --compile-only -o /dev/null " + file.string() + " 2>&1";
  int rc = std::system(cmd.c_str());
  std::filesystem::remove(file);
  EXPECT_EQ(rc, 0);
}

TEST(Foreign, NvrtcErrorsNameTheFile) {
  std::string why;
  if (!gpu::nvrtcAvailable(&why))
    GTEST_SKIP() << why; // a toolkit without NVRTC: the GPU run covers it
  try {
    gpu::compileCudaToPtx("extern \"C\" __device__ int f(int *r) { *r = undefined_name; return 0; }\n",
                          "broken.cu", "sm_90");
    FAIL() << "expected a compile error";
  } catch (const CompileError &e) {
    EXPECT_NE(std::string(e.what()).find("broken.cu"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("undefined_name"), std::string::npos) << e.what();
  }
}

TEST(Foreign, SimulatorRunsTheCpuVersionThroughTheCppApi) {
  auto dev = Device::open("sim");
  std::string src = "from numba import cuda\n"
                    "mul = cuda.declare_device('mul_f32_f32', 'float32(float32, float32)')\n"
                    "@cuda.jit(link=['" +
                    kFunctions +
                    "'])\n"
                    "def k(r, x):\n"
                    "    i = cuda.grid(1)\n"
                    "    if i < r.size:\n"
                    "        r[i] = mul(x[i], x[i])\n";
  auto mod = Module::fromString(dev, src, "foreign_test.py");
  std::vector<float> x(100);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.37f * float(i) - 11.0f;
  auto a = dev->toDevice(x);
  auto r = dev->zeros(DType::F32, {100});
  mod->kernel("k").launch(1, 128, {r, a});
  auto out = r.toVector<float>();
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(out[i], x[i] * x[i]) << i;
}

} // namespace

TEST(Foreign, NvrtcFindsTheToolkitHeadersCurandNeeds) {
  std::string why;
  if (!gpu::nvrtcAvailable(&why))
    GTEST_SKIP() << why; // a toolkit without NVRTC: the GPU run covers it
  // curand_kernel.h includes <cuda/std/type_traits>, which CUDA 13 keeps in include/cccl.
  std::string ptx = gpu::compileCudaToPtx("#include <curand_kernel.h>\n"
                                          "extern \"C\" __device__ int random_number(unsigned *out, "
                                          "unsigned long long seed) {\n"
                                          "  curandStateXORWOW_t s; curand_init(seed, 1, 0, &s);\n"
                                          "  *out = curand(&s); return 0;\n}\n",
                                          "rng.cu", "sm_90");
  EXPECT_NE(ptx.find("random_number"), std::string::npos) << ptx;
}
