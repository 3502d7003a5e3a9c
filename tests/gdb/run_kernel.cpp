// A program for the debugger test: runs kernel `scale` of the given file on the simulator.
#include "cutwin/cutwin.h"

#include <iostream>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: run_kernel FILE.py\n";
    return 2;
  }
  auto dev = cutwin::Device::open("sim");
  auto mod = cutwin::Module::fromFile(dev, argv[1]);
  auto a = dev->toDevice(std::vector<float>(64, 2.0f));
  mod->kernel("scale").launch(2, 32, {a, 3.0f});
  std::cout << "a[5] = " << a.toVector<float>()[5] << "\n";
  return 0;
}
