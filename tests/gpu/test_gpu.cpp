// Tests that need a GPU; built always, registered in CTest only when a GPU is present at
// configure time, and run on the GPU machine by ci/gpu/run_on_gpu.sh.
#include "cutwin/cutwin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace cutwin;
using ::testing::HasSubstr;

namespace {
std::shared_ptr<Device> gpu() {
  static std::shared_ptr<Device> dev = Device::open("gpu");
  return dev;
}

const char *kFill = R"PY(from numba import cuda, float64

@cuda.jit
def fill(a, v):
    i = cuda.grid(1)
    a[i] = v

@cuda.jit
def big_shared(a):
    s = cuda.shared.array(40000, float64)
    t = cuda.threadIdx.x
    s[t * 200] = a[t]
    cuda.syncthreads()
    a[t] = s[(t + 1) % 32 * 200]
)PY";
} // namespace

TEST(Gpu, DeviceNameAndArchitecture) {
  EXPECT_THAT(gpu()->name(), HasSubstr("(sm_"));
  EXPECT_FALSE(gpu()->isSimulator());
}

TEST(Gpu, BoundsErrorThroughTheErrorChannelAndTheContextSurvives) {
  CompileOptions o;
  o.boundscheck = true;
  auto mod = Module::fromString(gpu(), kFill, "fill.py", o);
  auto a = gpu()->zeros(DType::F32, {1000});
  mod->kernel("fill").launch(4, 256, {a, 2.0f});
  try {
    gpu()->synchronize();
    FAIL() << "no error";
  } catch (const KernelError &e) {
    EXPECT_EQ(e.kind(), KernelErrorKind::IndexOutOfBounds);
    EXPECT_THAT(std::string(e.what()), HasSubstr("fill.py:6 in fill, thread ("));
    EXPECT_THAT(std::string(e.what()), HasSubstr("block (3,0,0): index 10"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("out of bounds for axis 0 with size 1000"));
  }
  auto b = gpu()->zeros(DType::F32, {1024});
  mod->kernel("fill").launch(4, 256, {b, 3.0f});
  EXPECT_EQ(b.toVector<float>()[1023], 3.0f);
}

TEST(Gpu, InvalidConfigurationNamesTheKernel) {
  auto mod = Module::fromString(gpu(), kFill, "fill.py");
  auto a = gpu()->zeros(DType::F32, {4096});
  try {
    mod->kernel("fill").launch(1, 2048, {a, 1.0f});
    FAIL() << "launch accepted";
  } catch (const LaunchError &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("invalid launch of 'fill'"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("CUDA_ERROR_INVALID_VALUE"));
  }
  gpu()->synchronize();
}

TEST(Gpu, TooMuchSharedMemoryIsRejectedWithTheJitLog) {
  // 320 KB of static shared memory: more than any GPU has per block (the H200's driver
  // accepts a 56 KB static array that ptxas alone rejects).
  auto mod = Module::fromString(gpu(), kFill, "fill.py");
  auto a = gpu()->zeros(DType::F64, {32});
  try {
    mod->kernel("big_shared").launch(1, 32, {a});
    gpu()->synchronize();
    FAIL() << "accepted";
  } catch (const Error &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("big_shared"));
  }
}

TEST(Gpu, TooManyResourcesNamesTheKernel) {
  // 48 float64 values live at once need far more than the 64 registers a thread may use
  // in a 1024-thread block.
  std::string src = "from numba import cuda\n\n@cuda.jit\ndef heavy(a, out):\n    i = cuda.grid(1)\n";
  for (int k = 0; k < 48; ++k)
    src += "    v" + std::to_string(k) + " = a[(i + " + std::to_string(k) + ") % a.size]\n";
  src += "    acc = 0.0\n";
  for (int k = 0; k < 48; ++k)
    src += "    acc = acc * v" + std::to_string(k) + " + v" + std::to_string(47 - k) + "\n";
  src += "    out[i % out.size] = acc\n";
  auto mod = Module::fromString(gpu(), src, "heavy.py");
  auto a = gpu()->zeros(DType::F64, {1024});
  auto out = gpu()->zeros(DType::F64, {1024});
  try {
    mod->kernel("heavy").launch(1, 1024, {a, out});
    gpu()->synchronize();
    FAIL() << "launch accepted";
  } catch (const LaunchError &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("invalid launch of 'heavy'"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"));
  }
  mod->kernel("heavy").launch(1, 128, {a, out}); // fewer threads fit
  gpu()->synchronize();
}

// Last: an illegal address makes the CUDA context unusable for the rest of the process.
TEST(GpuFatal, IllegalAddressIsReportedNamingTheKernel) {
  CompileOptions o;
  o.boundscheck = false;
  auto mod = Module::fromString(gpu(), kFill, "fill.py", o);
  auto a = gpu()->zeros(DType::F32, {16});
  mod->kernel("fill").launch(4, 256, {a, 1.0f}); // without checks: writes far past the array
  auto wild = gpu()->zeros(DType::F32, {1});
  try {
    // An index of 2^40 elements is far outside any allocation.
    auto m2 = Module::fromString(
        gpu(), "from numba import cuda\n\n@cuda.jit\ndef wild(a, far):\n    a[far] = 1.0\n", "wild.py", o);
    m2->kernel("wild").launch(1, 1, {wild, int64_t(1) << 40});
    gpu()->synchronize();
    FAIL() << "no error";
  } catch (const DeviceError &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("CUDA_ERROR_ILLEGAL_ADDRESS"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("'wild'"));
  }
}

TEST(Gpu, StreamsOrderLaunchesAndEventsTimeThem) {
  const char *src = R"PY(from numba import cuda

@cuda.jit
def inc(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1
)PY";
  auto k = Module::fromString(gpu(), src, "inc.py")->kernel("inc");
  auto a = gpu()->zeros(DType::I32, {1 << 20});
  Stream s = gpu()->createStream();
  Event start = gpu()->createEvent(), end = gpu()->createEvent();
  start.record(&s);
  for (int i = 0; i < 10; ++i)
    k.launch((1 << 20) / 256, 256, {a}, 0, &s);
  end.record(&s);
  s.synchronize();
  EXPECT_GT(end.elapsedMilliseconds(start), 0.0f);
  auto v = a.toVector<int32_t>();
  EXPECT_EQ(v.front(), 10);
  EXPECT_EQ(v.back(), 10);
}
