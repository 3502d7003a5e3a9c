// Grid synchronisation on the simulator: many co-resident blocks, the cooperative-launch
// limit, and a grid barrier that can never complete reported instead of hanging.
#include "kernel_test_util.h"

#include <unistd.h>

using namespace cutwin;
using namespace cutwin::test;

namespace {

const char *kGrid = R"PY(
from numba import cuda

@cuda.jit
def relax(a, b, steps):
    # Jacobi steps on a 1-D rod with fixed ends: every step reads neighbours that other
    # blocks wrote in the step before.
    i = cuda.grid(1)
    g = cuda.cg.this_grid()
    n = a.size
    for s in range(steps):
        if 0 < i < n - 1:
            b[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1])
        g.sync()
        if 0 < i < n - 1:
            a[i] = b[i]
        cuda.cg.this_grid().sync()

@cuda.jit
def early_exit(out):
    if cuda.blockIdx.x == 1:
        return
    cuda.cg.this_grid().sync()
    out[cuda.grid(1)] = 1
)PY";

} // namespace

TEST(GridSync, ManyBlocksSeeEachOthersWrites) {
  auto mod = moduleFrom(kGrid, "grid.py");
  const int64_t n = 64 * 96; // 64 blocks
  std::vector<double> a(n, 0.0);
  a[0] = 100.0, a[n - 1] = -50.0;
  for (int64_t i = n / 3; i < n / 2; ++i)
    a[size_t(i)] = double(i % 7);
  auto da = sim()->toDevice(a), db = sim()->toDevice(a);
  mod->kernel("relax").launch(64, 96, {da, db, int64_t(40)});
  // Reference: the same steps on the host.
  std::vector<double> b = a;
  for (int s = 0; s < 40; ++s) {
    for (int64_t i = 1; i < n - 1; ++i)
      b[size_t(i)] = 0.5 * a[size_t(i)] + 0.25 * (a[size_t(i - 1)] + a[size_t(i + 1)]);
    for (int64_t i = 1; i < n - 1; ++i)
      a[size_t(i)] = b[size_t(i)];
  }
  EXPECT_EQ(da.toVector<double>(), a);
}

TEST(GridSync, LaunchBeyondResidentBlocksIsRefused) {
  auto mod = moduleFrom(kGrid, "grid.py");
  auto a = sim()->zeros(DType::F64, {16});
  std::vector<Arg> args{a, a, int64_t(1)};
  // sm_90 limits: 2048 threads and 32 blocks per multiprocessor, 132 multiprocessors.
  EXPECT_EQ(mod->kernel("relax").maxCooperativeGridBlocks(args, 1024), 264u);
  EXPECT_EQ(mod->kernel("relax").maxCooperativeGridBlocks(args, 32), 132u * 32u);
  EXPECT_EQ(mod->kernel("relax").maxCooperativeGridBlocks(args, 100), 132u * 16u); // 4 warps each
  try {
    mod->kernel("relax").launch(265, 1024, args);
    FAIL() << "a cooperative launch larger than the device must be refused";
  } catch (const LaunchError &e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"));
  }
  mod->kernel("relax").launch(264, 32, args); // the largest grid of small blocks runs
}

TEST(GridSync, BlockExitingBeforeTheGridBarrierIsReportedNotHung) {
  auto mod = moduleFrom(kGrid, "grid.py");
  auto out = sim()->zeros(DType::I32, {4 * 32});
  try {
    mod->kernel("early_exit").launch(4, 32, {out});
    FAIL() << "expected a deadlock report";
  } catch (const KernelError &e) {
    EXPECT_EQ(e.kind(), KernelErrorKind::Deadlock);
    EXPECT_EQ(e.loc().line, 23u);
    EXPECT_THAT(e.what(), testing::HasSubstr("3 of 4 blocks wait"));
    EXPECT_THAT(e.what(), testing::HasSubstr("block (1,0,0)"));
  }
  // The device keeps working.
  auto a = sim()->zeros(DType::F64, {8});
  mod->kernel("relax").launch(1, 8, {a, a, int64_t(2)});
}

TEST(GridSync, ACooperativeLaunchWhoseResidentLocalArraysExceedTheBudgetIsRefused) {
  // Every thread of a cooperative launch keeps its stack until the end: 270,336 threads
  // with 256 KiB of local arrays each would be 66 GiB. The simulator gives a launch's
  // stacks a quarter of the machine's memory and refuses more before running anything.
  const char *src = R"PY(
from numba import cuda, float32

@cuda.jit
def wide(out, n):
    a = cuda.local.array(65536, float32)
    for k in range(n):
        a[k] = k
    cuda.cg.this_grid().sync()
    out[cuda.grid(1) % out.size] = a[n - 1]
)PY";
  auto mod = moduleFrom(src, "wide.py");
  auto out = sim()->zeros(DType::F32, {64});
  std::vector<Arg> args{out, int64_t(10)};
  uint64_t blocks = mod->kernel("wide").maxCooperativeGridBlocks(args, 1024);
  uint64_t locals = blocks * 1024 * 65536 * 4;
  uint64_t quarter = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE)) / 4;
  if (locals > quarter) {
    try {
      mod->kernel("wide").launch(blocks, 1024, args);
      FAIL() << "a launch whose stacks exceed a quarter of the machine's memory must be refused";
    } catch (const LaunchError &e) {
      EXPECT_THAT(e.what(),
                  testing::HasSubstr("threads stay resident with 262144 bytes of local arrays each"));
    }
  }
  mod->kernel("wide").launch(2, 32, args); // a small grid runs
  EXPECT_EQ(out.toVector<float>()[0], 9.0f);
}
