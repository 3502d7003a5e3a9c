// The simulator's sanitizer through the C++ API (docs/sanitizers.md): CompileOptions::sanitize
// for a module, the decorator's sanitize= for one kernel, the kinds and messages of its
// errors, and device memory a host copy wrote. The planted-bug corpus runs in
// tests/python/test_sanitizer.py.
#include "tests/unit/kernel_test_util.h"

#include "cutwin/errors.h"

#include <gtest/gtest.h>

using ::testing::HasSubstr;

namespace {

const char *kRacy = R"PY(from numba import cuda, float32

@cuda.jit
def shift(a, out):
    sm = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]
    out[t] = sm[(t + 1) % 32]

@cuda.jit(sanitize="init")
def uninit(out):
    sm = cuda.shared.array(32, float32)
    out[cuda.threadIdx.x] = sm[cuda.threadIdx.x]
)PY";

} // namespace

TEST(Sanitizer, ModuleOptionReportsBothAccessesOfARace) {
  cutwin::CompileOptions opts;
  opts.sanitize = "race";
  auto mod = cutwin::Module::fromString(cutwin::test::sim(), kRacy, "racy.py", opts);
  auto dev = cutwin::test::sim();
  auto a = dev->toDevice(std::vector<float>(32, 1.0f));
  auto out = dev->zeros(cutwin::DType::F32, {32});
  cutwin::KernelError e = cutwin::test::expectKernelError([&] {
    mod->kernel("shift").launch(1, 32, {a, out});
  });
  EXPECT_EQ(e.kind(), cutwin::KernelErrorKind::DataRace);
  EXPECT_EQ(e.file(), "racy.py");
  EXPECT_EQ(e.loc().line, 7u); // thread (1,0,0) writes what thread (0,0,0) read at line 8
  EXPECT_THAT(e.what(),
              HasSubstr("racy.py:7 in shift, thread (1,0,0) block (0,0,0): data race (write after read) "
                        "on shared memory: element [1] of the shared array of line 5:"));
  EXPECT_THAT(e.what(), HasSubstr("read by thread (0,0,0) block (0,0,0) at racy.py:8"));
  // the kernel's own sanitize="init" wins over the module's "race"; the process keeps working
  cutwin::KernelError u =
      cutwin::test::expectKernelError([&] { mod->kernel("uninit").launch(1, 32, {out}); });
  EXPECT_EQ(u.kind(), cutwin::KernelErrorKind::UninitializedRead);
  EXPECT_THAT(u.detail(), HasSubstr("read of uninitialised memory: shared memory: element [0]"));
}

TEST(Sanitizer, OffByDefaultAndBadNamesAreErrors) {
  auto dev = cutwin::test::sim();
  auto mod = cutwin::Module::fromString(dev, kRacy, "racy.py");
  auto a = dev->toDevice(std::vector<float>(32, 1.0f));
  auto out = dev->zeros(cutwin::DType::F32, {32});
  if (!std::getenv("CUTWIN_SANITIZE"))
    mod->kernel("shift").launch(1, 32, {a, out}); // the race goes unreported without the checks
  cutwin::CompileOptions bad;
  bad.sanitize = "races";
  try {
    cutwin::Module::fromString(dev, kRacy, "racy.py", bad)->kernel("shift").launch(1, 32, {a, out});
    ADD_FAILURE() << "no error for an unknown check";
  } catch (const cutwin::Error &e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown sanitizer check 'races'"));
  }
}

TEST(Sanitizer, DeviceMemoryIsUnwrittenUntilACopyOrAKernelWritesIt) {
  cutwin::CompileOptions opts;
  opts.sanitize = "all";
  auto dev = cutwin::test::sim();
  auto mod = cutwin::Module::fromString(dev, R"PY(from numba import cuda

@cuda.jit
def copy(src, dst):
    i = cuda.grid(1)
    dst[i] = src[i]
)PY",
                                        "copy.py", opts);
  auto fresh = dev->empty(cutwin::DType::F32, {64});
  auto out = dev->empty(cutwin::DType::F32, {64});
  cutwin::KernelError e = cutwin::test::expectKernelError([&] {
    mod->kernel("copy").launch(2, 32, {fresh, out});
  });
  EXPECT_EQ(e.kind(), cutwin::KernelErrorKind::UninitializedRead);
  EXPECT_THAT(e.detail(), HasSubstr("global memory: src[0] (4 bytes) was never written"));
  std::vector<float> host(64, 2.0f);
  fresh.copyFromHost(host.data(), host.size() * sizeof(float));
  mod->kernel("copy").launch(2, 32, {fresh, out}); // written by the copy
  mod->kernel("copy").launch(2, 32, {out, fresh}); // and `out` by the kernel
  EXPECT_EQ(fresh.toVector<float>(), host);
}
