// The simulator's device memory is apart from the host heap (backend_sim/device_arena.h):
// a kernel that runs past an array's end or writes to released memory faults as an
// illegal address, and the host's own data stays intact.
#include "kernel_test_util.h"

#include "runtime/backend.h"

#include <cstring>
#include <functional>

using namespace cutwin;
using namespace cutwin::test;
using ::testing::HasSubstr;

namespace {

const char *kStore = R"PY(from numba import cuda

@cuda.jit
def store(a, k, v):
    if cuda.grid(1) == 0:
        a[k] = v
)PY";

std::shared_ptr<Module> unchecked() {
  CompileOptions o;
  o.boundscheck = false;
  return Module::fromString(sim(), kStore, "store.py", o);
}

} // namespace

TEST(DeviceMemory, AnUncheckedOverrunFaultsAtTheArraysEndInsteadOfCorruptingTheHost) {
  auto mod = unchecked();
  std::vector<std::string> host(100, "host data that a heap overrun would have overwritten");
  for (int64_t n : {100, 1000, 4096}) {
    DeviceArray a = sim()->zeros(DType::F32, {n});
    DeviceArray b = sim()->zeros(DType::F32, {n}); // what might lie after a on a heap
    // Up to the 256-byte boundary after the end is the allocation's own slack.
    int64_t slack = ((n * 4 + 255) / 256 * 256) / 4;
    if (slack > n)
      mod->kernel("store").launch(1, 1, {a, slack - 1, 1.0f});
    KernelError e = expectKernelError([&] { mod->kernel("store").launch(1, 1, {a, n + 64, 2.0f}); });
    EXPECT_EQ(e.kind(), KernelErrorKind::IllegalAddress);
    EXPECT_THAT(std::string(e.what()),
                HasSubstr("store.py in store, thread (0,0,0) block (0,0,0): illegal memory "));
    EXPECT_THAT(b.toVector<float>(), ::testing::Each(0.0f));
    auto av = a.toVector<float>();
    EXPECT_EQ(std::count(av.begin(), av.end(), 0.0f), n);
  }
  for (const std::string &s : host)
    EXPECT_EQ(s, "host data that a heap overrun would have overwritten");
}

TEST(DeviceMemory, AKernelWritingToReleasedMemoryFaults) {
  auto mod = unchecked();
  void *stale = nullptr;
  {
    DeviceArray a = sim()->zeros(DType::F64, {512});
    stale = a.data();
  } // released: before the next launch its pages become guard pages
  DeviceArray view = sim()->wrap(stale, DType::F64, {512}, {8}, nullptr);
  KernelError e = expectKernelError([&] { mod->kernel("store").launch(1, 1, {view, int64_t(3), 1.0}); });
  EXPECT_EQ(e.kind(), KernelErrorKind::IllegalAddress);
  DeviceArray fresh = sim()->zeros(DType::F64, {512}); // and the device keeps working
  mod->kernel("store").launch(1, 1, {fresh, int64_t(3), 1.0});
  EXPECT_EQ(fresh.toVector<double>()[3], 1.0);
}

TEST(DeviceMemory, ReleasingMemoryTheDeviceDidNotAllocateIsAnError) {
  double x = 0;
  EXPECT_THROW(sim()->backend().memory().release(&x), DeviceError);
}

TEST(DeviceMemory, ManyAllocationsOfMixedSizesStayUsableAndZeroed) {
  // Regions released and taken again, guarded in between (a launch between the rounds).
  auto mod = unchecked();
  for (int round = 0; round < 4; ++round) {
    std::vector<DeviceArray> arrays;
    for (int64_t i = 0; i < 300; ++i)
      arrays.push_back(sim()->zeros(DType::I64, {1 + (i * 37) % 3000}));
    for (size_t i = 0; i < arrays.size(); ++i)
      mod->kernel("store").launch(1, 1, {arrays[i], arrays[i].shape()[0] - 1, int64_t(i)});
    for (size_t i = 0; i < arrays.size(); ++i) {
      auto v = arrays[i].toVector<int64_t>();
      EXPECT_EQ(v.back(), int64_t(i));
      EXPECT_EQ(std::count(v.begin(), v.end(), 0), int64_t(v.size()) - (i == 0 ? 0 : 1));
    }
  }
}
