// Which devices there are: opening one by its spec ("sim:N", "gpu:N"), how many of each
// kind, and peer access between them.
#include "cutwin/cutwin.h"
#include "runtime/backend.h"
#include "runtime/launch_tracker.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string_view>

namespace cutwin {

namespace {

constexpr int kMaxSimulatedDevices = 64;

/// How many simulated devices there are: setSimulatedDevices, else CUTWIN_SIM_DEVICES.
std::atomic<int> &simulatedDevices() {
  static std::atomic<int> n = [] {
    const char *env = std::getenv("CUTWIN_SIM_DEVICES");
    if (!env || !*env)
      return 1;
    char *end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (*end || v < 1 || v > kMaxSimulatedDevices)
      throw DeviceError(std::string("CUTWIN_SIM_DEVICES is '") + env + "': a number of devices from 1 to " +
                        std::to_string(kMaxSimulatedDevices));
    return int(v);
  }();
  return n;
}

/// N of "kind:N" ("kind" alone: 0); -1 if `spec` is not of that kind.
int ordinalIn(std::string_view spec, std::string_view kind) {
  if (spec == kind)
    return 0;
  if (spec.size() <= kind.size() + 1 || spec.substr(0, kind.size()) != kind || spec[kind.size()] != ':')
    return -1;
  int n = 0;
  for (char c : spec.substr(kind.size() + 1)) {
    if (c < '0' || c > '9' || n > 1000000)
      return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

} // namespace

std::shared_ptr<Device> Device::open(const std::string &spec) {
  if (int n = ordinalIn(spec, "sim"); n >= 0) {
    int count = simulatedDevices();
    if (n >= count)
      throw DeviceError("no simulated device " + std::to_string(n) + ": " + std::to_string(count) +
                        " simulated device(s) (CUTWIN_SIM_DEVICES)");
    return std::shared_ptr<Device>(new Device(rt::createSimBackend(n)));
  }
  if (spec == "auto") {
    try {
      return std::shared_ptr<Device>(new Device(rt::createGpuBackend(0)));
    } catch (const DeviceError &) {
      return std::shared_ptr<Device>(new Device(rt::createSimBackend(0)));
    }
  }
  if (int n = ordinalIn(spec, "gpu"); n >= 0)
    return std::shared_ptr<Device>(new Device(rt::createGpuBackend(n)));
  throw DeviceError("unknown device '" + spec + "' (expected sim, sim:N, gpu, gpu:N or auto)");
}

int Device::count(const std::string &kind) {
  if (kind == "sim")
    return simulatedDevices();
  if (kind == "gpu")
    return rt::gpuDeviceCount();
  throw DeviceError("unknown kind of device '" + kind + "' (expected sim or gpu)");
}

void Device::setSimulatedDevices(int n) {
  if (n < 1 || n > kMaxSimulatedDevices)
    throw DeviceError("setSimulatedDevices(" + std::to_string(n) + "): a number of devices from 1 to " +
                      std::to_string(kMaxSimulatedDevices));
  simulatedDevices() = n;
}

int Device::ordinal() const { return backend_->ordinal(); }

std::string Device::spec() const { return (isSimulator() ? "sim:" : "gpu:") + std::to_string(ordinal()); }

bool Device::canAccessPeer(const Device &peer) const { return backend_->canAccessPeer(*peer.backend_); }

void Device::enablePeerAccess(const Device &peer) {
  if (!canAccessPeer(peer))
    throw DeviceError(spec() + " cannot access the memory of " + peer.spec() +
                      (&peer == this || peer.spec() == spec() ? " (the same device)" : ""));
  backend_->setPeerAccess(*peer.backend_, true);
  std::lock_guard<std::mutex> lock(peersMu_);
  if (std::find(peers_.begin(), peers_.end(), peer.spec()) == peers_.end())
    peers_.push_back(peer.spec());
}

void Device::disablePeerAccess(const Device &peer) {
  std::lock_guard<std::mutex> lock(peersMu_);
  auto it = std::find(peers_.begin(), peers_.end(), peer.spec());
  if (it == peers_.end())
    return;
  backend_->setPeerAccess(*peer.backend_, false);
  peers_.erase(it);
}

bool Device::peerAccessEnabled(const Device &peer) const {
  std::lock_guard<std::mutex> lock(peersMu_);
  return std::find(peers_.begin(), peers_.end(), peer.spec()) != peers_.end();
}

} // namespace cutwin
