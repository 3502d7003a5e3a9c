// The simulator JIT's object files: what load() hands back links again, in a JITDylib of its
// own, against the externals given then (what a kernel cache on disk needs: the code is
// relocatable, its host symbols resolved anew at each link).
#include "backend_sim/jit.h"

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

TEST(JitObjects, AnObjectThatIsNoneIsAnError) {
  EXPECT_THROW(cutwin::sim::Jit::get().loadObject("not an object", {"f"}), std::exception);
}

} // namespace
