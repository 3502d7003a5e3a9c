#include "kernel_test_util.h"

#include <stdexcept>

namespace cutwin::test {

std::shared_ptr<Device> sim() {
  static std::shared_ptr<Device> dev = Device::open("sim");
  return dev;
}

std::shared_ptr<Module> moduleFrom(const std::string &source, const std::string &name) {
  return Module::fromString(sim(), source, name);
}

KernelError expectKernelError(const std::function<void()> &f) {
  try {
    f();
  } catch (const KernelError &e) {
    return e;
  }
  ADD_FAILURE() << "no KernelError raised";
  throw std::runtime_error("no KernelError");
}

} // namespace cutwin::test
