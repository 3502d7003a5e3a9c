// The kernel cache on disk: how long a fresh process takes to compile a kernel (create the
// module, compile for the launch's argument types) with the cache off, the first time with
// it on (compile and write the entry), and once the entry is there (the second process).
// Each measurement is a process of its own, forked before the parent touches cutwin.
// Prints a Markdown table (docs/performance.md "Kernel cache").
#include "cutwin/cutwin.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace cutwin;

namespace {

struct Case {
  const char *kernel;
  std::string file;
  const char *what;
};

/// Milliseconds to create `c`'s module and compile its kernel, in a child process (-1: it failed).
double compileInChild(const Case &c) {
  int fds[2];
  if (::pipe(fds) != 0)
    return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    double ms = -1;
    try {
      auto d = Device::open("sim");
      auto f32 = d->zeros(DType::F32, {256});
      std::vector<Arg> args;
      std::string k = c.kernel;
      if (k == "matmul_tiled") {
        auto sq = d->zeros(DType::F32, {16, 16});
        args = {sq, sq, sq};
      } else if (k == "vadd") {
        args = {f32, f32, f32};
      } else if (k == "histogram") {
        auto i32 = d->zeros(DType::I32, {256});
        args = {i32, i32};
      } else {
        args = {f32, f32};
      }
      auto t0 = std::chrono::steady_clock::now();
      auto m = Module::fromFile(d, c.file);
      m->kernel(c.kernel).attributes(args);
      ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "%s: %s\n", c.kernel, e.what());
    }
    if (::write(fds[1], &ms, sizeof ms) != sizeof ms)
      std::_Exit(1);
    std::_Exit(0);
  }
  ::close(fds[1]);
  double ms = -1;
  if (::read(fds[0], &ms, sizeof ms) != sizeof ms)
    ms = -1;
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return ms;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  std::string kernels = argc > 1 ? argv[1] : CUTWIN_BENCH_KERNELS;
  std::string cases = argc > 2 ? argv[2] : CUTWIN_CONFORMANCE_CASES;
  std::vector<Case> all = {
      {"vadd", cases + "/vadd/kernel.py", "no barrier"},
      {"matmul_tiled", cases + "/matmul_tiled/kernel.py", "barriers: split into regions"},
      {"block_sum", cases + "/block_sum/kernel.py", "barriers in a loop"},
      {"histogram", kernels + "/histogram.py", "shared-memory atomics"},
      {"warp_sum", kernels + "/warp_sum.py", "warp shuffles"},
      {"math_libdevice", kernels + "/math_libdevice.py", "libdevice math"},
  };
  char dirTemplate[] = "/tmp/cutwin-cache-bench-XXXXXX";
  if (!::mkdtemp(dirTemplate)) {
    std::perror("mkdtemp");
    return 1;
  }
  ::setenv("CUTWIN_CACHE_DIR", dirTemplate, 1);
  const int reps = 5;
  std::printf(
      "| kernel | what | cache off (ms) | first, writing the entry (ms) | cached (ms) | off / cached |\n");
  std::printf("|---|---|---|---|---|---|\n");
  int failed = 0;
  for (const Case &c : all) {
    std::vector<double> off, hit;
    ::setenv("CUTWIN_CACHE", "0", 1);
    for (int i = 0; i < reps; ++i)
      off.push_back(compileInChild(c));
    ::setenv("CUTWIN_CACHE", "1", 1);
    double first = compileInChild(c);
    for (int i = 0; i < reps; ++i)
      hit.push_back(compileInChild(c));
    if (std::min(*std::min_element(off.begin(), off.end()),
                 std::min(first, *std::min_element(hit.begin(), hit.end()))) < 0) {
      ++failed;
      continue;
    }
    double o = median(off), h = median(hit);
    std::printf("| %s | %s | %.1f | %.1f | %.2f | %.0fx |\n", c.kernel, c.what, o, first, h, o / h);
  }
  std::filesystem::remove_all(dirTemplate);
  return failed ? 1 : 0;
}
