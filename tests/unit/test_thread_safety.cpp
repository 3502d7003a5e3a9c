// Launches, compiles and copies from many host threads through the C++ API: each launch's
// result is its own and each fault is reported on the launch that made it. The kernels are
// tests/python/test_thread_safety.py's.
#include "kernel_test_util.h"

#include <atomic>
#include <mutex>
#include <random>
#include <thread>

using namespace cutwin;
using namespace cutwin::test;

TEST(ThreadSafety, EightThreadsThousandLaunchesMixedFaultsEachReportedOnItsOwnLaunch) {
  const std::string file = CUTWIN_SOURCE_DIR "/tests/python/test_thread_safety.py";
  std::shared_ptr<Module> shared = Module::fromFile(sim(), file);
  std::mutex mu;
  std::vector<std::string> problems;
  std::atomic<int> launches{0};
  auto problem = [&](std::string what) {
    std::lock_guard<std::mutex> lock(mu);
    problems.push_back(std::move(what));
  };
  auto work = [&](int t) {
    // Half the threads compile a module of their own; the others share one.
    std::shared_ptr<Module> mod = t % 2 ? Module::fromFile(sim(), file) : shared;
    std::mt19937 rng(t);
    DType dtype = t % 4 < 2 ? DType::F64 : DType::I64;
    for (int j = 0; j < 125; ++j) {
      int64_t tag = t * 1000 + j;
      std::string where = "thread " + std::to_string(t) + " launch " + std::to_string(j) + ": ";
      try {
        switch (rng() % 5) {
        case 0: {
          auto out = sim()->zeros(dtype, {64});
          mod->kernel("fill_shifted").launch(2, 32, {out, tag});
          auto got = dtype == DType::F64 ? out.toVector<double>() : std::vector<double>();
          auto goti = dtype == DType::I64 ? out.toVector<int64_t>() : std::vector<int64_t>();
          for (int64_t i = 0; i < 64; ++i)
            if ((dtype == DType::F64 ? got[size_t(i)] : double(goti[size_t(i)])) != double(tag + i)) {
              problem(where + "wrong fill");
              break;
            }
          break;
        }
        case 1: {
          std::vector<double> x(256);
          for (size_t i = 0; i < x.size(); ++i)
            x[i] = double(i) * double(tag);
          auto out = sim()->zeros(DType::F64, {4});
          mod->kernel("block_sum").launch(4, 64, {sim()->toDevice(x), out});
          auto got = out.toVector<double>();
          for (size_t b = 0; b < 4; ++b) {
            double want = 0;
            for (size_t i = 0; i < 64; ++i)
              want += x[b * 64 + i];
            if (got[b] != want)
              problem(where + "wrong sum");
          }
          break;
        }
        case 2:
          try {
            mod->kernel("store_at").launch(1, 32, {sim()->zeros(dtype, {8}), 100 + tag});
            problem(where + "index fault not reported");
          } catch (const KernelError &e) {
            if (e.kernel() != "store_at" || std::string(e.what()).find("index " + std::to_string(100 + tag) +
                                                                       " out of bounds") == std::string::npos)
              problem(where + "misattributed: " + e.what());
          }
          break;
        case 3:
          try {
            mod->kernel("two_barriers").launch(1, 32, {sim()->zeros(DType::F64, {1}), tag});
            problem(where + "divergence not reported");
          } catch (const KernelError &e) {
            if (e.kind() != KernelErrorKind::BarrierDivergence || e.kernel() != "two_barriers")
              problem(where + "misattributed: " + e.what());
          }
          break;
        case 4:
          try {
            mod->kernel("store_far").launch(1, 32, {sim()->zeros(DType::F64, {8}), int64_t(1) << 44});
            problem(where + "illegal address not reported");
          } catch (const KernelError &e) {
            if (e.kind() != KernelErrorKind::IllegalAddress || e.kernel() != "store_far")
              problem(where + "misattributed: " + e.what());
          }
          break;
        }
        ++launches;
      } catch (const std::exception &e) {
        problem(where + "unexpected " + e.what());
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back(work, t);
  for (auto &th : threads)
    th.join();
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems, the first: " << problems.front();
  EXPECT_EQ(launches.load(), 1000);
}
