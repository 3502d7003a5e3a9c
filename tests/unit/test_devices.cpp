// Several simulated devices (runtime/device_list.cpp): each its own memory, streams and
// events; arrays bound to their device unless peer access is enabled; peer copies; IPC
// handles refused inside the exporting process.
#include "kernel_test_util.h"

#include <numeric>

using namespace cutwin;
using namespace cutwin::test;
using ::testing::HasSubstr;

namespace {

const char *kScale = R"PY(from numba import cuda

@cuda.jit
def scale(out, a, k):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * k
)PY";

/// Three simulated devices for the test's duration, then as many as before.
struct ThreeDevices : ::testing::Test {
  void SetUp() override {
    before = Device::count("sim");
    Device::setSimulatedDevices(3);
  }
  void TearDown() override { Device::setSimulatedDevices(before); }
  int before = 1;
};

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}

} // namespace

TEST_F(ThreeDevices, SpecsOrdinalsAndCounts) {
  EXPECT_EQ(Device::count("sim"), 3);
  for (int n = 0; n < 3; ++n) {
    auto d = Device::open("sim:" + std::to_string(n));
    EXPECT_EQ(d->ordinal(), n);
    EXPECT_EQ(d->spec(), "sim:" + std::to_string(n));
    EXPECT_EQ(d->attribute("PCI_BUS_ID"), n); // distinct devices, as a GPU's bus ids are
  }
  EXPECT_EQ(Device::open("sim")->spec(), "sim:0");
  try {
    Device::open("sim:3");
    FAIL() << "opened a fourth device";
  } catch (const DeviceError &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("no simulated device 3: 3 simulated device(s)"));
  }
  EXPECT_THROW(Device::open("sim:x"), DeviceError);
  EXPECT_THROW(Device::setSimulatedDevices(0), DeviceError);
  EXPECT_THROW(Device::count("tpu"), DeviceError);
}

TEST_F(ThreeDevices, EachDeviceAccountsForItsOwnMemory) {
  auto d0 = Device::open("sim:0"), d1 = Device::open("sim:1");
  MemoryInfo before0 = d0->memoryInfo(), before1 = d1->memoryInfo();
  {
    DeviceArray a = d1->empty(DType::U8, {64 << 20});
    EXPECT_EQ(d1->memoryInfo().free, before1.free - (64 << 20));
    EXPECT_EQ(d0->memoryInfo().free, before0.free);
    EXPECT_EQ(d1->memoryInfo().total, before1.total);
  }
  EXPECT_EQ(d1->memoryInfo().free, before1.free);
  // More than the device has fails as cuMemAlloc does, and the device goes on working.
  try {
    d1->empty(DType::U8, {int64_t(before1.total) + 1});
    FAIL() << "allocated more than the device has";
  } catch (const DeviceError &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("CUDA_ERROR_OUT_OF_MEMORY"));
  }
  EXPECT_EQ(d1->memoryInfo().free, before1.free);
}

TEST_F(ThreeDevices, AnArrayOfAnotherDeviceNeedsPeerAccess) {
  auto d0 = Device::open("sim:0"), d1 = Device::open("sim:1");
  auto mod = Module::fromString(d1, kScale, "scale.py");
  DeviceArray a = d0->toDevice(iota(100)), out = d1->zeros(DType::F32, {100});
  try {
    mod->kernel("scale").launch(1, 128, {out, a, 2.0f});
    FAIL() << "launched with an array of another device";
  } catch (const LaunchError &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("argument 2 of kernel 'scale' is an array on sim:0"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("kernel runs on sim:1"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("CUDA_ERROR_ILLEGAL_ADDRESS"));
  }
  EXPECT_THAT(out.toVector<float>(), ::testing::Each(0.0f)); // nothing ran
  ASSERT_TRUE(d1->canAccessPeer(*d0));
  EXPECT_FALSE(d1->canAccessPeer(*d1));
  EXPECT_FALSE(d1->peerAccessEnabled(*d0));
  d1->enablePeerAccess(*d0);
  EXPECT_TRUE(d1->peerAccessEnabled(*d0));
  EXPECT_FALSE(d0->peerAccessEnabled(*d1)); // one direction only, as cuCtxEnablePeerAccess
  mod->kernel("scale").launch(1, 128, {out, a, 2.0f});
  std::vector<float> want = iota(100);
  for (float &v : want)
    v *= 2.0f;
  EXPECT_EQ(out.toVector<float>(), want);
  d1->disablePeerAccess(*d0);
  EXPECT_THROW(mod->kernel("scale").launch(1, 128, {out, a, 2.0f}), LaunchError);
  EXPECT_THROW(d1->enablePeerAccess(*d1), DeviceError);
}

TEST_F(ThreeDevices, StreamsAndEventsBelongToTheirDevice) {
  auto d0 = Device::open("sim:0"), d2 = Device::open("sim:2");
  auto mod = Module::fromString(d2, kScale, "scale.py");
  DeviceArray a = d2->toDevice(iota(10)), out = d2->zeros(DType::F32, {10});
  Stream s0 = d0->createStream(), s2 = d2->createStream();
  EXPECT_EQ(&s0.device(), d0.get());
  try {
    mod->kernel("scale").launch(1, 32, {out, a, 3.0f}, LaunchOptions{0, &s0});
    FAIL() << "launched on a stream of another device";
  } catch (const LaunchError &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("its stream is one of sim:0"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("CUDA_ERROR_INVALID_HANDLE"));
  }
  mod->kernel("scale").launch(1, 32, {out, a, 3.0f}, LaunchOptions{0, &s2});
  EXPECT_EQ(out.toVector<float>()[9], 30.0f);
  Event e0 = d0->createEvent(), f0 = d0->createEvent(), e2 = d2->createEvent();
  EXPECT_THROW(e0.record(&s2), DeviceError);
  e0.record(&s0);
  f0.record(&s0);
  e2.record(&s2);
  EXPECT_GE(f0.elapsedMilliseconds(e0), 0.0f);
  EXPECT_THROW(e2.elapsedMilliseconds(e0), DeviceError);
}

TEST_F(ThreeDevices, PeerCopiesMoveDataBetweenDevices) {
  auto d0 = Device::open("sim:0"), d1 = Device::open("sim:1"), d2 = Device::open("sim:2");
  DeviceArray a = d0->toDevice(iota(1000)), b = d1->zeros(DType::F32, {1000}),
              c = d2->zeros(DType::F32, {1000});
  b.copyFrom(a); // no peer access needed for copies
  c.copyFrom(b);
  EXPECT_EQ(c.toVector<float>(), iota(1000));
  DeviceArray wrong = d2->zeros(DType::F64, {1000});
  EXPECT_THROW(wrong.copyFrom(a), Error);
}

TEST_F(ThreeDevices, OneModuleEachDeviceRunsTheSameKernel) {
  // A reduction split across the three devices: each scales its third, the host adds
  // the parts in a fixed order, and the sum is the one computed on one device.
  std::vector<float> host = iota(3000);
  double whole = 0, split = 0;
  for (float v : host)
    whole += double(v) * 0.5;
  for (int n = 0; n < 3; ++n) {
    auto d = Device::open("sim:" + std::to_string(n));
    auto mod = Module::fromString(d, kScale, "scale.py");
    std::vector<float> part(host.begin() + n * 1000, host.begin() + (n + 1) * 1000);
    DeviceArray a = d->toDevice(part), out = d->zeros(DType::F32, {1000});
    mod->kernel("scale").launch(8, 128, {out, a, 0.5f});
    for (float v : out.toVector<float>())
      split += double(v);
  }
  EXPECT_EQ(split, whole);
}

TEST_F(ThreeDevices, AnIpcHandleDoesNotOpenInTheProcessThatMadeIt) {
  auto d1 = Device::open("sim:1");
  DeviceArray a = d1->toDevice(iota(64));
  IpcMemHandle h = d1->ipcHandle(static_cast<char *>(a.data()) + 16);
  EXPECT_EQ(h.bytes.size(), 64u);
  EXPECT_EQ(h.base, a.data());
  EXPECT_EQ(h.size, 256u);
  EXPECT_EQ(d1->ipcHandle(a.data()).bytes, h.bytes); // the same handle each time
  EXPECT_EQ(a.toVector<float>(), iota(64));          // contents kept when the pages moved
  try {
    d1->ipcOpen(h.bytes);
    FAIL() << "opened its own handle";
  } catch (const DeviceError &e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("cannot open an IPC handle it exported itself"));
  }
  std::vector<uint8_t> garbage(64, 7);
  EXPECT_THROW(d1->ipcOpen(garbage), DeviceError);
  EXPECT_THROW(d1->ipcHandle(&garbage), DeviceError); // not device memory
}
