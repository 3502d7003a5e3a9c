// The simulator JIT's object files: what load() hands back links again, in a JITDylib of its
// own, against the externals given then (what a kernel cache on disk needs: the code is
// relocatable, its host symbols resolved anew at each link).
#include "backend_sim/jit.h"
#include "backend_sim/scheduler.h"
#include "backend_sim/sim_pipeline.h"
#include "backend_sim/thread_context.h"
#include "frontend/diagnostics.h"
#include "frontend/ir/error_record.h"
#include "frontend/ir/step_runner.h"
#include "kernel_test_util.h"
#include "runtime/marshal.h"
#include "runtime/pipeline.h"

#include <gtest/gtest.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <cstring>

namespace {

using namespace llvm;

extern "C" int64_t cutwin_test_ten() { return 10; }
extern "C" int64_t cutwin_test_twenty() { return 20; }

/// f(x) = 3x + offset() + the number of earlier calls of f (a global of the module's own).
orc::ThreadSafeModule module() {
  auto ctx = std::make_unique<LLVMContext>();
  auto m = std::make_unique<Module>("objects", *ctx);
  IRBuilder<> b(*ctx);
  auto *i64 = b.getInt64Ty();
  auto *calls = new GlobalVariable(*m, i64, false, GlobalValue::InternalLinkage, b.getInt64(0), "calls");
  FunctionCallee offset = m->getOrInsertFunction("offset", i64);
  auto *f = Function::Create(FunctionType::get(i64, {i64}, false), Function::ExternalLinkage, "f", *m);
  b.SetInsertPoint(BasicBlock::Create(*ctx, "", f));
  Value *before = b.CreateLoad(i64, calls);
  b.CreateStore(b.CreateAdd(before, b.getInt64(1)), calls);
  Value *tripled = b.CreateMul(f->getArg(0), b.getInt64(3));
  Value *shifted = b.CreateAdd(tripled, b.CreateCall(offset));
  b.CreateRet(b.CreateAdd(shifted, before));
  m->setDataLayout(cutwin::sim::Jit::get().dataLayout());
  return orc::ThreadSafeModule(std::move(m), std::move(ctx));
}

TEST(JitObjects, AnObjectLoadHandsBackLinksAgainAgainstOtherExternals) {
  auto &jit = cutwin::sim::Jit::get();
  std::string object;
  auto first = jit.load(module(), {"f"}, {{"offset", reinterpret_cast<uint64_t>(&cutwin_test_ten)}}, &object);
  ASSERT_NE(first[0], 0u);
  ASSERT_GT(object.size(), 4u);
  EXPECT_EQ(std::memcmp(object.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  auto f1 = reinterpret_cast<int64_t (*)(int64_t)>(first[0]);
  EXPECT_EQ(f1(2), 16); // 3 * 2 + 10 + 0
  EXPECT_EQ(f1(2), 17); // its own counter

  auto again = jit.loadObject(object, {"f"}, {{"offset", reinterpret_cast<uint64_t>(&cutwin_test_twenty)}});
  ASSERT_NE(again[0], 0u);
  EXPECT_NE(again[0], first[0]);
  auto f2 = reinterpret_cast<int64_t (*)(int64_t)>(again[0]);
  EXPECT_EQ(f2(2), 26); // the other external, a counter of its own from 0
  EXPECT_EQ(f1(2), 18); // the first copy unchanged
  EXPECT_EQ(jit.loadObject(object, {"g"}, {{"offset", reinterpret_cast<uint64_t>(&cutwin_test_ten)}})[0], 0u);
}

/// Runs kernel `name` of `source` on a launch of `grid` x `block` threads from its object
/// file linked again, as the simulator's steps made it; `args` as for a launch.
void runFromObject(const std::string &source, const std::string &name, cutwin::sim::Dim3 grid,
                   cutwin::sim::Dim3 block, const std::vector<cutwin::Arg> &args) {
  using namespace cutwin;
  ir::PipelineOptions opts;
  auto file = std::make_shared<const fe::SourceFile>("objects.py", source);
  auto parsed = rt::parseKernelModule(file, opts);
  std::vector<fe::Type> types;
  for (const Arg &a : args)
    types.push_back(rt::argumentType(a));
  ir::KernelIR kernel = rt::buildKernelIR(*parsed, name, types, opts);
  ir::ArgLayout layout = kernel.info.layout;
  ir::StepRunner steps(opts);
  std::string object;
  sim::SimProgram p = sim::compileSimProgram(std::move(kernel), {}, opts, steps, &object);
  ASSERT_FALSE(object.empty());
  std::vector<std::string> entries{p.fibers ? sim::kThreadEntry : sim::kBlockEntry};
  if (p.regionsEntry) // split at its barriers
    entries.push_back(sim::kRegionsEntry);
  auto addrs = sim::Jit::get().loadObject(object, entries);
  uint64_t entry = addrs[0];
  ASSERT_NE(entry, 0u);
  ASSERT_NE(entry, p.entry);
  sim::SimKernel k;
  k.name = name;
  (p.fibers ? k.threadEntry : k.blockEntry) = reinterpret_cast<sim::EntryFn>(entry);
  if (p.regionsEntry) {
    ASSERT_NE(addrs[1], 0u);
    k.regionsEntry = reinterpret_cast<sim::RegionsEntryFn>(addrs[1]);
    k.frameBytes = p.frameBytes;
    k.regionSites = p.regionSites;
    k.regionWarp = p.regionWarp;
  }
  k.staticSharedBytes = p.staticSharedBytes;
  k.stackBytes = std::max<size_t>(p.stackBytes, 64 * 1024);
  k.localBytes = p.localBytes;
  ir::ErrorRecord err{};
  std::vector<uint64_t> packed = rt::packArguments(layout, args, &err);
  sim::runGrid(k, grid, block, 0, packed.data(), &err, sim::SchedulerOptions{});
  EXPECT_EQ(err.flag, 0u);
}

// A kernel's object (math from libdevice, a barrier and shared memory: regions, a value
// kept in the thread frames across the barrier; host callbacks) linked again computes
// what the kernel launched as usual does, bit for bit.
TEST(JitObjects, AKernelsObjectLinkedAgainComputesWhatItsLaunchDoes) {
  using namespace cutwin;
  const std::string source = "import math\n"
                             "from numba import cuda, float32\n\n\n"
                             "@cuda.jit\n"
                             "def k(a, out):\n"
                             "    sm = cuda.shared.array(64, float32)\n"
                             "    t = cuda.threadIdx.x\n"
                             "    i = cuda.grid(1)\n"
                             "    v = math.sin(a[i])\n"
                             "    sm[t] = math.sqrt(a[i]) * 2.5 + v\n"
                             "    cuda.syncthreads()\n"
                             "    out[i] = sm[63 - t] - v\n";
  std::vector<float> values(256);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = float(i) * 0.37f;
  DeviceArray a = test::sim()->toDevice(values);
  DeviceArray expected = test::sim()->zeros(DType::F32, {256});
  test::moduleFrom(source, "objects.py")->kernel("k").launch(4, 64, {a, expected});
  DeviceArray out = test::sim()->zeros(DType::F32, {256});
  runFromObject(source, "k", {4, 1, 1}, {64, 1, 1}, {a, out});
  std::vector<float> want = expected.toVector<float>(), got = out.toVector<float>();
  ASSERT_NE(want[200], 0.0f); // (the launch wrote them)
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(std::memcmp(&want[i], &got[i], 4), 0) << i << ": " << want[i] << " vs " << got[i];
}

TEST(JitObjects, AnObjectThatIsNoneIsAnError) {
  EXPECT_THROW(cutwin::sim::Jit::get().loadObject("not an object", {"f"}), std::exception);
}

} // namespace
