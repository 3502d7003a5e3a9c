// The kernel cache on disk (runtime/kernel_cache.h): a second module of the same inputs
// loads what the first compiled and computes the same results as a kernel compiled with
// the cache off; a changed source, binding, option or argument type misses (the backend's
// modes: tests/python/test_kernel_cache.py); a damaged entry or an image the backend cannot
// load is compiled again; debug and sanitized kernels are not kept; processes writing and
// reading at once all get whole entries.
#include "frontend/ir/kernel_info_bytes.h"
#include "kernel_test_util.h"
#include "runtime/kernel_cache.h"

#include <llvm/Support/BLAKE3.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace cutwin;
using namespace cutwin::test;
namespace fs = std::filesystem;

namespace {

// Kernels of each kind the simulator runs differently: a thread loop, barriers (split into
// regions), warp shuffles, a grid sync (fibers), local and constant arrays, an index error.
const char *kKernels = R"PY(
import numpy as np
from numba import cuda

TAPS = np.array([1.0, -2.0, 0.5], dtype=np.float32)

@cuda.jit
def scale(out, x, k):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * k + OFFSET

@cuda.jit
def block_reverse(out, x):
    s = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    out[cuda.grid(1)] = s[63 - t] * 2.0

@cuda.jit
def warp_sums(out, x):
    i = cuda.grid(1)
    v = x[i]
    for d in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xffffffff, v, d)
    if cuda.laneid == 0:
        out[i // 32] = v

@cuda.jit
def two_phases(out, x):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    out[i] = x[i] + 1.0
    g.sync()
    right = out[(i + 1) % out.size]
    g.sync()  # (every read done before any thread writes again: no race between runs)
    out[i] += right

@cuda.jit
def filtered(out, x):
    i = cuda.grid(1)
    taps = cuda.const.array_like(TAPS)
    window = cuda.local.array(3, np.float32)
    for j in range(3):
        window[j] = x[(i + j) % x.size]
    acc = np.float32(0)
    for j in range(3):
        acc += window[j] * taps[j]
    out[i] = acc

@cuda.jit
def reads_past(out, x):
    i = cuda.grid(1)
    out[i] = x[i + 1000 if i == 70 else i]
)PY";

/// A cache folder of the test's own, the cache at its default (on for the simulator).
class KernelCache : public ::testing::Test {
protected:
  void SetUp() override {
    if (const char *parent = std::getenv("CUTWIN_CACHE_TEST_CHILD")) { // the parent's folder
      dir_ = parent;
      return;
    }
    char dir[] = "/tmp/cutwin-cache-test-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
    ::setenv("CUTWIN_CACHE_DIR", dir, 1);
    ::unsetenv("CUTWIN_CACHE");
  }
  void TearDown() override {
    if (std::getenv("CUTWIN_CACHE_TEST_CHILD"))
      return;
    ::unsetenv("CUTWIN_CACHE_DIR");
    ::unsetenv("CUTWIN_CACHE");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto &e : fs::directory_iterator(dir_ / "kernels", ec))
      if (e.path().extension() == ".ck" || e.path().filename().string().find(".tmp.") != std::string::npos)
        out.push_back(e.path()); // (not the folder's .pruned)
    std::sort(out.begin(), out.end());
    return out;
  }

  static std::shared_ptr<Module> module(const std::string &source, double offset = 0.5,
                                        CompileOptions opts = {}) {
    ModuleBindings b;
    HostValue v;
    v.kind = HostValue::Kind::Float;
    v.f = offset;
    b.constants["OFFSET"] = v;
    return Module::fromString(sim(), source, "kernels.py", opts, b);
  }

  fs::path dir_;
};

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = float(i % 13) * 0.25f - 1.0f;
  return v;
}

/// `kernel`'s arguments: out, x (128 floats each) and scale's factor.
std::vector<Arg> argsOf(const std::string &kernel, const DeviceArray &out) {
  std::vector<Arg> args = {out, sim()->toDevice(ramp(128))};
  if (kernel == "scale")
    args.push_back(3.0f);
  return args;
}

/// Runs `kernel` of `m` in two blocks of 64 threads and returns what it wrote.
std::vector<float> run(Module &m, const std::string &kernel) {
  auto out = sim()->zeros(DType::F32, {128});
  m.kernel(kernel).launch(2, 64, argsOf(kernel, out));
  return out.toVector<float>();
}

void expectSameAttributes(Module &a, Module &b, const std::string &kernel) {
  auto out = sim()->zeros(DType::F32, {128});
  KernelAttributes x = a.kernel(kernel).attributes(argsOf(kernel, out)),
                   y = b.kernel(kernel).attributes(argsOf(kernel, out));
  EXPECT_EQ(x.sharedBytesPerBlock, y.sharedBytesPerBlock);
  EXPECT_EQ(x.localBytesPerThread, y.localBytesPerThread);
  EXPECT_EQ(x.constBytes, y.constBytes);
  EXPECT_EQ(x.cooperative, y.cooperative);
}

const char *const kEveryKernel[] = {"scale", "block_reverse", "warp_sums", "two_phases", "filtered"};

} // namespace

TEST_F(KernelCache, ASecondModuleLoadsWhatTheFirstCompiledWithTheSameResults) {
  CompileOptions off;
  off.cache = false;
  auto reference = module(kKernels, 0.5, off);
  auto first = module(kKernels);
  for (const char *k : kEveryKernel) {
    SCOPED_TRACE(k);
    std::vector<float> want = run(*reference, k);
    EXPECT_EQ(run(*first, k), want);
    EXPECT_TRUE(first->kernel(k).cachedSignatures().empty());
    auto second = module(kKernels); // a module of its own: nothing shared in memory
    EXPECT_EQ(run(*second, k), want);
    EXPECT_EQ(second->kernel(k).cachedSignatures().size(), 1u);
    EXPECT_EQ(second->kernel(k).compiledSignatures(), first->kernel(k).compiledSignatures());
    expectSameAttributes(*second, *reference, k);
  }
  EXPECT_EQ(entries().size(), std::size(kEveryKernel));
  EXPECT_TRUE(reference->cacheDirectory().empty());
  EXPECT_EQ(first->cacheDirectory(), (dir_ / "kernels").string());
}

TEST_F(KernelCache, ACachedKernelsFaultNamesTheSameLineAndThread) {
  auto message = [&] {
    auto m = module(kKernels);
    KernelError e = expectKernelError([&] { run(*m, "reads_past"); });
    return std::make_tuple(std::string(e.what()), e.loc().line, e.thread(), e.block(),
                           m->kernel("reads_past").cachedSignatures().size());
  };
  auto [compiledText, compiledLine, compiledThread, compiledBlock, compiledHits] = message();
  auto [cachedText, cachedLine, cachedThread, cachedBlock, cachedHits] = message();
  EXPECT_EQ(compiledHits, 0u);
  EXPECT_EQ(cachedHits, 1u);
  EXPECT_EQ(cachedText, compiledText);
  EXPECT_EQ(cachedLine, compiledLine);
  EXPECT_EQ(cachedThread, compiledThread);
  EXPECT_EQ(cachedBlock, compiledBlock);
  EXPECT_THAT(cachedText, ::testing::HasSubstr("kernels.py"));
  // (one thread faults: which of two faulting blocks records first is up to the workers)
  EXPECT_THAT(cachedText, ::testing::HasSubstr("thread (6,0,0) block (1,0,0): index 1070 out of bounds"));
}

TEST_F(KernelCache, AChangedSourceBindingOptionOrTypeMisses) {
  auto hits = [](Module &m) { return m.kernel("scale").cachedSignatures().size(); };
  auto base = module(kKernels);
  std::vector<float> want = run(*base, "scale");
  ASSERT_EQ(entries().size(), 1u);

  // The same inputs hit; each change below is a new entry, never the old code.
  auto same = module(kKernels);
  EXPECT_EQ(run(*same, "scale"), want);
  EXPECT_EQ(hits(*same), 1u);

  std::string edited = kKernels;
  edited.replace(edited.find("x[i] * k + OFFSET"), 17, "x[i] * k - OFFSET");
  auto source = module(edited);
  std::vector<float> got = run(*source, "scale");
  EXPECT_EQ(hits(*source), 0u);
  EXPECT_FLOAT_EQ(got[5], ramp(128)[5] * 3.0f - 0.5f);

  auto binding = module(kKernels, 2.0);
  got = run(*binding, "scale");
  EXPECT_EQ(hits(*binding), 0u);
  EXPECT_FLOAT_EQ(got[5], ramp(128)[5] * 3.0f + 2.0f);

  CompileOptions unchecked;
  unchecked.boundscheck = false;
  auto option = module(kKernels, 0.5, unchecked);
  EXPECT_EQ(run(*option, "scale"), want);
  EXPECT_EQ(hits(*option), 0u);

  auto types = module(kKernels);
  auto x64 = sim()->zeros(DType::F64, {64}), out = sim()->zeros(DType::F32, {64});
  types->kernel("scale").launch(1, 64, {out, x64, 3.0f});
  EXPECT_EQ(hits(*types), 0u);

  EXPECT_EQ(entries().size(), 5u);
}

TEST_F(KernelCache, ADamagedEntryIsCompiledAgainAndReplaced) {
  std::vector<float> want = run(*module(kKernels), "block_reverse");
  ASSERT_EQ(entries().size(), 1u);
  fs::path entry = entries()[0];
  std::string whole;
  {
    std::ifstream in(entry, std::ios::binary);
    whole.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::vector<std::string> damaged = {
      whole.substr(0, whole.size() / 2),                                         // cut short
      whole.substr(0, whole.size() / 2) + char(whole[whole.size() / 2] ^ 0x40) + // one bit flipped
          whole.substr(whole.size() / 2 + 1),
      "not an entry at all",
      std::string(whole.size(), '\0'),
  };
  for (const std::string &bytes : damaged) {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
    auto again = module(kKernels);
    EXPECT_EQ(run(*again, "block_reverse"), want);
    EXPECT_TRUE(again->kernel("block_reverse").cachedSignatures().empty());
    auto after = module(kKernels); // the entry was written again, whole
    EXPECT_EQ(run(*after, "block_reverse"), want);
    EXPECT_EQ(after->kernel("block_reverse").cachedSignatures().size(), 1u);
  }
  // Another key's entry under this key's name (a renamed file) is not this kernel.
  std::string otherSource = std::string(kKernels) + "\n# another module\n";
  run(*module(otherSource), "block_reverse");
  ASSERT_EQ(entries().size(), 2u);
  fs::path other = entries()[0] == entry ? entries()[1] : entries()[0];
  fs::copy_file(other, entry, fs::copy_options::overwrite_existing);
  auto renamed = module(kKernels);
  EXPECT_EQ(run(*renamed, "block_reverse"), want);
  EXPECT_TRUE(renamed->kernel("block_reverse").cachedSignatures().empty());
}

TEST_F(KernelCache, TheCacheIsOffWhereAModuleOrTheEnvironmentSaysSo) {
  CompileOptions off;
  off.cache = false;
  run(*module(kKernels, 0.5, off), "scale");
  EXPECT_TRUE(entries().empty());

  ::setenv("CUTWIN_CACHE", "0", 1);
  CompileOptions on;
  on.cache = true;
  auto m = module(kKernels, 0.5, on);
  run(*m, "scale");
  EXPECT_TRUE(entries().empty());
  EXPECT_TRUE(m->cacheDirectory().empty());

  ::setenv("CUTWIN_CACHE", "1", 1);
  run(*module(kKernels, 0.5, off), "scale");
  EXPECT_EQ(entries().size(), 1u);

  ::setenv("CUTWIN_CACHE", "yes", 1);
  EXPECT_THROW(module(kKernels), Error);
}

TEST_F(KernelCache, DebugAndSanitizedKernelsAreNotKept) {
  std::string debug = kKernels;
  debug.replace(debug.find("@cuda.jit\ndef scale"), 9, "@cuda.jit(debug=True, opt=False)");
  auto d = module(debug);
  run(*d, "scale");
  CompileOptions sanitized;
  sanitized.sanitize = "race";
  run(*module(kKernels, 0.5, sanitized), "block_reverse");
  EXPECT_TRUE(entries().empty());
  // The same kernels again compile again, as they must (a sanitized kernel's checks and a
  // debug kernel's stops are built with its code).
  auto again = module(debug);
  run(*again, "scale");
  EXPECT_TRUE(again->kernel("scale").cachedSignatures().empty());
}

TEST_F(KernelCache, PastItsSizeTheLeastRecentlyUsedEntriesGo) {
  fs::path dir = dir_ / "kernels";
  fs::create_directories(dir);
  auto old = fs::file_time_type::clock::now() - std::chrono::hours(3);
  std::vector<fs::path> olds; // oldest first
  for (int i = 0; i < 4; ++i) {
    fs::path p = dir / (std::string(64, char('a' + i)) + ".ck");
    std::ofstream(p, std::ios::binary) << std::string(20 * 1024, 'x');
    fs::last_write_time(p, old + std::chrono::minutes(i));
    olds.push_back(p);
  }
  fs::path stale = dir / (std::string(64, 'f') + ".ck.tmp.1.0");
  std::ofstream(stale) << "a writer that died";
  fs::last_write_time(stale, old);
  const uint64_t limit = 50 * 1024;                   // below the four old entries alone
  ::setenv("CUTWIN_CACHE_SIZE_MB", "0.048828125", 1); // 50 KiB
  run(*module(kKernels), "scale");                    // the process's first write prunes
  ::unsetenv("CUTWIN_CACHE_SIZE_MB");
  // The oldest go first, until a quarter of the limit is free; the new entry is the newest.
  // (The folder had not been pruned: no process pruned it in the last hour.)
  std::vector<fs::path> left = entries();
  fs::path added;
  for (const fs::path &p : left)
    if (std::find(olds.begin(), olds.end(), p) == olds.end())
      added = p;
  ASSERT_FALSE(added.empty());
  uint64_t total = 4 * 20 * 1024 + fs::file_size(added);
  std::vector<fs::path> want;
  for (const fs::path &p : olds)
    if (total > limit / 4 * 3)
      total -= 20 * 1024;
    else
      want.push_back(p);
  want.push_back(added);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(left, want);
  EXPECT_FALSE(fs::exists(stale));
  auto hit = module(kKernels);
  run(*hit, "scale");
  EXPECT_EQ(hit->kernel("scale").cachedSignatures().size(), 1u); // the new entry stayed
}

TEST_F(KernelCache, AnImageTheBackendCannotLoadIsCompiledAgain) {
  // A whole entry (its digest right) whose image is of another version.
  std::vector<float> want = run(*module(kKernels), "warp_sums");
  ASSERT_EQ(entries().size(), 1u);
  fs::path entry = entries()[0];
  std::string whole;
  {
    std::ifstream in(entry, std::ios::binary);
    whole.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t head = 8 + 64 + 8, tail = 32;
  std::string bytes = whole.substr(head, whole.size() - head - tail);
  ir::ByteReader payload(bytes);
  ir::KernelInfo info = ir::readKernelInfo(payload, {});
  std::string image = payload.str();
  image[0] = char(image[0] + 1); // the image's version
  ir::ByteWriter p;
  ir::writeKernelInfo(p, info);
  p.str(image);
  llvm::BLAKE3Result<32> digest = llvm::BLAKE3::hash(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(p.bytes().data()), p.bytes().size()));
  ir::ByteWriter size;
  size.pod(uint64_t(p.bytes().size()));
  std::ofstream(entry, std::ios::binary | std::ios::trunc)
      << whole.substr(0, 8 + 64) << size.bytes() << p.bytes() << std::string(digest.begin(), digest.end());
  auto again = module(kKernels);
  EXPECT_EQ(run(*again, "warp_sums"), want);
  EXPECT_TRUE(again->kernel("warp_sums").cachedSignatures().empty());
  auto after = module(kKernels); // compiled again, its entry replaced
  EXPECT_EQ(run(*after, "warp_sums"), want);
  EXPECT_EQ(after->kernel("warp_sums").cachedSignatures().size(), 1u);
}

TEST_F(KernelCache, ProcessesCompilingAtOnceAllGetWholeEntries) {
  // Each child is this test again in a fresh process (this binary, CUTWIN_CACHE_TEST_CHILD
  // set), compiling and checking every kernel three times while the others do.
  if (std::getenv("CUTWIN_CACHE_TEST_CHILD")) {
    ::setenv("CUTWIN_CACHE_DIR", std::getenv("CUTWIN_CACHE_TEST_CHILD"), 1);
    for (int round = 0; round < 3; ++round)
      for (const char *k : kEveryKernel) {
        CompileOptions off;
        off.cache = false;
        auto m = module(kKernels);
        EXPECT_EQ(run(*m, k), run(*module(kKernels, 0.5, off), k)) << k;
        if (round > 0) // its own entry of the first round, or another process's since
          EXPECT_EQ(m->kernel(k).cachedSignatures().size(), 1u) << k;
      }
    return;
  }
  std::vector<pid_t> children;
  for (int c = 0; c < 4; ++c) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::setenv("CUTWIN_CACHE_TEST_CHILD", dir_.c_str(), 1);
      ::execl("/proc/self/exe", "cutwin_tests",
              "--gtest_filter=KernelCache.ProcessesCompilingAtOnceAllGetWholeEntries",
              static_cast<char *>(nullptr));
      std::_Exit(127);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  std::vector<fs::path> left = entries(); // (no file a writer left)
  EXPECT_EQ(left.size(), std::size(kEveryKernel));
  for (const fs::path &p : left)
    EXPECT_EQ(p.extension(), ".ck") << p;
}

TEST_F(KernelCache, ItsUsageCountsTheEntriesAndClearingRemovesThemAlone) {
  run(*module(kKernels), "scale");
  run(*module(kKernels), "block_reverse");
  fs::path dir = dir_ / "kernels";
  std::ofstream(dir / "notes.txt") << "not the cache's";
  fs::path writing = dir / (std::string(64, 'e') + ".tmp.1.0");
  std::ofstream(writing) << "a writer's";
  KernelCacheUsage u = kernelCacheUsage();
  EXPECT_EQ(u.directory, dir.string());
  EXPECT_EQ(u.entries, 2u);
  uint64_t bytes = 0;
  for (const fs::path &p : entries())
    if (p.extension() == ".ck")
      bytes += fs::file_size(p);
  EXPECT_EQ(u.bytes, bytes);
  EXPECT_EQ(clearKernelCache(), 2u);
  EXPECT_TRUE(entries().empty());
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
  EXPECT_EQ(kernelCacheUsage().entries, 0u);
  auto again = module(kKernels); // compiled again
  run(*again, "scale");
  EXPECT_TRUE(again->kernel("scale").cachedSignatures().empty());
}

TEST_F(KernelCache, AFolderPrunedWithinTheHourIsNotReadAgainAtAProcesssFirstWrite) {
  fs::path dir = dir_ / "kernels";
  fs::create_directories(dir);
  std::ofstream(dir / ".pruned") << ""; // some process pruned it just now
  fs::path old = dir / (std::string(64, 'a') + ".ck");
  std::ofstream(old, std::ios::binary) << std::string(80 * 1024, 'x');
  fs::last_write_time(old, fs::file_time_type::clock::now() - std::chrono::hours(3));
  ::setenv("CUTWIN_CACHE_SIZE_MB", "0.048828125", 1); // 50 KiB: past it
  run(*module(kKernels), "scale");
  ::unsetenv("CUTWIN_CACHE_SIZE_MB");
  EXPECT_TRUE(fs::exists(old)); // left for the next pruning
  EXPECT_EQ(entries().size(), 2u);
}
