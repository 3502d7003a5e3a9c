// Ctrl-C during a wait on a device (runtime/interrupt_scope.h): the GPU backend's
// synchronisations poll through rt::waitInterruptibly, tested here with a wait that never
// ends by itself; and a launch's own watchdog through the C++ API. (Ctrl-C during
// simulator launches: tests/python/test_interrupts.py.)
#include "runtime/interrupt_scope.h"
#include "tests/unit/kernel_test_util.h"

#include "cutwin/errors.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>
#include <unistd.h>

using namespace std::chrono_literals;

namespace {

/// Sends the process SIGINT `after` the wait has begun polling (inside its scope, where
/// SIGINT only sets the flag).
std::thread pressCtrlC(std::atomic<bool> &polling, std::chrono::milliseconds after) {
  return std::thread([&polling, after] {
    while (!polling.load())
      std::this_thread::yield();
    std::this_thread::sleep_for(after);
    kill(getpid(), SIGINT);
  });
}

} // namespace

TEST(Interrupts, CtrlCEndsAWaitThatWouldNotEnd) {
  std::atomic<bool> polling{false};
  std::thread press = pressCtrlC(polling, 20ms);
  auto start = std::chrono::steady_clock::now();
  bool thrown = false;
  try {
    cutwin::rt::waitInterruptibly(
        [&] {
          polling = true;
          return false;
        },
        [] { return std::string("interrupted while waiting for nothing"); });
  } catch (const cutwin::Interrupted &e) {
    thrown = true;
    EXPECT_STREQ(e.what(), "interrupted while waiting for nothing");
    EXPECT_EQ(e.kind(), cutwin::KernelErrorKind::Interrupted);
  }
  press.join();
  EXPECT_TRUE(thrown);
  // The signal came 20 ms in; the wait polls at least every 50 us once past its first millisecond.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);

  // The next wait is not interrupted by the Ctrl-C already reported: it runs to its end.
  int polls = 0;
  cutwin::rt::waitInterruptibly([&] { return ++polls == 1000; },
                                [] { return std::string("no Ctrl-C here"); });
  EXPECT_EQ(polls, 1000);
}

TEST(Interrupts, AWaitEndsWhenItsWorkIsDone) {
  auto done = std::chrono::steady_clock::now() + 5ms; // past the first millisecond of spinning
  cutwin::rt::waitInterruptibly([&] { return std::chrono::steady_clock::now() >= done; },
                                [] { return std::string("no Ctrl-C here"); });
  EXPECT_GE(std::chrono::steady_clock::now(), done);
}

TEST(Interrupts, ALaunchSetsItsOwnWatchdogAndLearnsWhereItsThreadsWere) {
  const char *src = R"PY(
from numba import cuda

@cuda.jit
def k(out):
    if cuda.threadIdx.x == 1:
        x = 1
        while x > 0:
            x = (x * 5 + 1) % 999979 + 1
        out[0] = x
    cuda.syncthreads()
)PY";
  auto mod = cutwin::test::moduleFrom(src, "watched.py");
  auto out = cutwin::test::sim()->zeros(cutwin::DType::I64, {1});
  cutwin::LaunchOptions opts;
  opts.timeoutSeconds = 0.1;
  cutwin::KernelError e =
      cutwin::test::expectKernelError([&] { mod->kernel("k").launch(1, 4, {out}, opts); });
  EXPECT_EQ(e.kind(), cutwin::KernelErrorKind::Timeout);
  EXPECT_EQ(e.loc().line, 8u); // the loop
  EXPECT_THAT(e.what(), ::testing::HasSubstr("after 0.1 s"));
  const char *where =
      "\n  where: 0 of 1 blocks had finished; threads of block (0,0,0): 1 at the barrier at "
      "line 11 (thread (0,0,0)), 1 stopped in the loop at line 8 (thread (1,0,0)), 2 ready to run";
  EXPECT_THAT(e.what(), ::testing::HasSubstr(where));
  // the same on fibers (the kernel above ran split at its barrier)
  setenv("CUTWIN_SIM_THREADS", "fibers", 1);
  auto fibers = cutwin::Device::open("sim");
  unsetenv("CUTWIN_SIM_THREADS");
  auto onFibers = cutwin::Module::fromString(fibers, src, "watched.py");
  auto fibersOut = fibers->zeros(cutwin::DType::I64, {1});
  cutwin::KernelError f =
      cutwin::test::expectKernelError([&] { onFibers->kernel("k").launch(1, 4, {fibersOut}, opts); });
  EXPECT_THAT(f.what(), ::testing::HasSubstr(where));
  // the limit was that launch's: the next one, without, runs to its end
  auto fine = cutwin::test::moduleFrom("from numba import cuda\n\n@cuda.jit\ndef k(out):\n    out[0] = 7\n");
  fine->kernel("k").launch(1, 1, {out});
  EXPECT_EQ(out.toVector<int64_t>()[0], 7);
}
