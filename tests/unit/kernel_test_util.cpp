#include "kernel_test_util.h"

namespace cutwin::test {

std::shared_ptr<Device> sim() {
  static std::shared_ptr<Device> dev = Device::open("sim");
  return dev;
}

std::shared_ptr<Module> moduleFrom(const std::string &source, const std::string &name) {
  return Module::fromString(sim(), source, name);
}

} // namespace cutwin::test
