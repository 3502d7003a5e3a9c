// Helpers for tests that compile and run kernels on the simulator.
#pragma once

#include "cutwin/cutwin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace cutwin::test {

/// The shared simulator device of the test process.
std::shared_ptr<Device> sim();

/// The KernelError `f` throws (a test failure if it throws none).
KernelError expectKernelError(const std::function<void()> &f);

/// A module from source text; `name` shows up in diagnostics.
std::shared_ptr<Module> moduleFrom(const std::string &source, const std::string &name = "kernel.py");

/// Runs a one-thread kernel `k(out, ...)` and returns out[0] (an array of `T` of length n).
template <class T>
std::vector<T> runOut(const std::string &source, const std::string &kernel, size_t n,
                      std::vector<Arg> extra = {}, Dim3 grid = 1, Dim3 block = 1) {
  auto mod = moduleFrom(source);
  DeviceArray out = sim()->zeros(dtypeOf<T>(), {int64_t(n)});
  std::vector<Arg> args{out};
  args.insert(args.end(), extra.begin(), extra.end());
  mod->kernel(kernel).launch(grid, block, args);
  return out.toVector<T>();
}

} // namespace cutwin::test
