#include "kernel_test_util.h"

namespace cutwin::test {

std::shared_ptr<Device> sim() {
  static std::shared_ptr<Device> dev = Device::open("sim");
  return dev;
}

std::shared_ptr<Module> moduleFrom(const std::string &source, const std::string &name) {
  return Module::fromString(sim(), source, name);
}

std::string compileError(const std::string &source, const std::string &kernel, const std::vector<Arg> &args) {
  try {
    auto mod = moduleFrom(source);
    mod->kernel(kernel).ir(args);
  } catch (const CompileError &e) {
    return e.what();
  }
  return "";
}

} // namespace cutwin::test
