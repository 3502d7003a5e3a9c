// numba.cuda.random's device functions: xoroshiro128+ on a state record of two uint64
// words, with numba's seeding, jump, uniform and normal conversions, bit for bit.
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowerer.h"
#include "frontend/sema/typing_context.h"

#include <llvm/IR/Intrinsics.h>

#include <cmath>

namespace cutwin {

namespace {
enum class RandomOp : unsigned { Next, Jump, Init, UniformF32, UniformF64, NormalF32, NormalF64 };
}

namespace fe {

ExprInfo typeRandomBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                           const Builtin &b);

std::span<const Builtin> randomBuiltins() {
  auto row = [](const char *name, RandomOp op) {
    return Builtin{name, unsigned(op), &typeRandomBuiltin, &ir::Lowerer::lowerRandomBuiltin};
  };
  static const Builtin table[] = {
      row("cuda.random.xoroshiro128p_next", RandomOp::Next),
      row("cuda.random.xoroshiro128p_jump", RandomOp::Jump),
      row("cuda.random.init_xoroshiro128p_state", RandomOp::Init),
      row("cuda.random.xoroshiro128p_uniform_float32", RandomOp::UniformF32),
      row("cuda.random.xoroshiro128p_uniform_float64", RandomOp::UniformF64),
      row("cuda.random.xoroshiro128p_normal_float32", RandomOp::NormalF32),
      row("cuda.random.xoroshiro128p_normal_float64", RandomOp::NormalF64),
  };
  return table;
}

ExprInfo typeRandomBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                           const Builtin &b) {
  // (states, index[, seed]): states a 1-D RNG state array, index and seed integers.
  RandomOp op = RandomOp(b.op);
  std::string name = std::string(b.name).substr(12);
  bool init = op == RandomOp::Init;
  cx.checkArity(c, b.name, args.size(), init ? 3 : 2, init ? 3 : 2);
  ExprInfo info;
  const Type &st = args[0].type;
  if (!st.isRecordArray() || st.ndim != 1)
    cx.error(c.args[0]->loc,
             name + "() needs a 1-D array of RNG states (create_xoroshiro128p_states), got " + st.str());
  for (size_t i = 1; i < args.size(); ++i)
    if (!args[i].type.isInt())
      cx.error(c.args[i]->loc,
               name + "() " + (i == 1 ? "index" : "seed") + " must be an integer, not " + args[i].type.str());
  for (size_t i = 1; i < args.size(); ++i)
    info.operandTypes.push_back(args[i].type.scalar);
  switch (op) {
  case RandomOp::Next: info.type = Type::scalarOf(Scalar::U64); break;
  case RandomOp::UniformF32:
  case RandomOp::NormalF32: info.type = Type::scalarOf(Scalar::F32); break;
  case RandomOp::UniformF64:
  case RandomOp::NormalF64: info.type = Type::scalarOf(Scalar::F64); break;
  case RandomOp::Init:
  case RandomOp::Jump: info.type = Type::none(); break;
  }
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

namespace {

constexpr uint64_t kJump[2] = {0xBEAC0467EBA5FACBull, 0xD86B048B86AA9922ull};

/// One xoroshiro128+ step on (s0, s1): returns the output, updates the pair.
Value *nextStep(IRBuilder<> &b, Value *&s0, Value *&s1) {
  auto *i64 = b.getInt64Ty();
  auto rotl = [&](Value *x, uint64_t k) {
    return b.CreateIntrinsic(Intrinsic::fshl, {i64}, {x, x, ConstantInt::get(i64, k)});
  };
  Value *r = b.CreateAdd(s0, s1);
  Value *x = b.CreateXor(s1, s0);
  s0 = b.CreateXor(b.CreateXor(rotl(s0, 55), x), b.CreateShl(x, 14));
  s1 = rotl(x, 36);
  return r;
}

} // namespace

Value *Lowerer::lowerRandomBuiltin(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  RandomOp op = RandomOp(ci.function->op);
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  const Type &st = info(*c.args[0]).type;
  Value *states = lowerExpr(*c.args[0]);
  Value *index = lowerAs(*c.args[1], Type::scalarOf(ci.operandTypes[0]));
  setLoc(c.loc);
  Value *rec = elementAddress(states, st, {index}, {ci.operandTypes[0]}, c.loc);
  Value *p0 = rec, *p1 = b_.CreateConstInBoundsGEP1_64(i64, rec, 1);

  if (op == RandomOp::Init) {
    // splitmix64 once; both words get the same value.
    Value *z =
        b_.CreateAdd(lowerAs(*c.args[2], Type::scalarOf(Scalar::U64)), b_.getInt64(0x9E3779B97F4A7C15ull));
    z = b_.CreateMul(b_.CreateXor(z, b_.CreateLShr(z, 30)), b_.getInt64(0xBF58476D1CE4E5B9ull));
    z = b_.CreateMul(b_.CreateXor(z, b_.CreateLShr(z, 27)), b_.getInt64(0x94D049BB133111EBull));
    z = b_.CreateXor(z, b_.CreateLShr(z, 31));
    b_.CreateStore(z, p0);
    b_.CreateStore(z, p1);
    return nullptr;
  }
  Value *s0 = b_.CreateLoad(i64, p0), *s1 = b_.CreateLoad(i64, p1);

  if (op == RandomOp::Jump) {
    // 128 steps; the state becomes the xor of the states at the jump polynomial's bits.
    BasicBlock *pre = b_.GetInsertBlock();
    BasicBlock *loop = BasicBlock::Create(ctx_, "rng.jump", fn_);
    BasicBlock *done = BasicBlock::Create(ctx_, "rng.jump.done", fn_);
    b_.CreateBr(loop);
    b_.SetInsertPoint(loop);
    PHINode *i = b_.CreatePHI(i64, 2), *a0 = b_.CreatePHI(i64, 2), *a1 = b_.CreatePHI(i64, 2);
    PHINode *t0 = b_.CreatePHI(i64, 2), *t1 = b_.CreatePHI(i64, 2);
    Value *word =
        b_.CreateSelect(b_.CreateICmpULT(i, b_.getInt64(64)), b_.getInt64(kJump[0]), b_.getInt64(kJump[1]));
    Value *bit = b_.CreateTrunc(b_.CreateLShr(word, b_.CreateAnd(i, 63)), b_.getInt1Ty());
    Value *n0 = b_.CreateSelect(bit, b_.CreateXor(t0, a0), t0);
    Value *n1 = b_.CreateSelect(bit, b_.CreateXor(t1, a1), t1);
    Value *x0 = a0, *x1 = a1;
    nextStep(b_, x0, x1);
    Value *inext = b_.CreateAdd(i, b_.getInt64(1));
    BasicBlock *latch = b_.GetInsertBlock();
    b_.CreateCondBr(b_.CreateICmpEQ(inext, b_.getInt64(128)), done, loop);
    i->addIncoming(b_.getInt64(0), pre);
    i->addIncoming(inext, latch);
    a0->addIncoming(s0, pre);
    a0->addIncoming(x0, latch);
    a1->addIncoming(s1, pre);
    a1->addIncoming(x1, latch);
    t0->addIncoming(b_.getInt64(0), pre);
    t0->addIncoming(n0, latch);
    t1->addIncoming(b_.getInt64(0), pre);
    t1->addIncoming(n1, latch);
    b_.SetInsertPoint(done);
    b_.CreateStore(n0, p0);
    b_.CreateStore(n1, p1);
    return nullptr;
  }

  // Every other function draws one or two outputs, then stores the state back.
  auto *f32 = b_.getFloatTy(), *f64 = b_.getDoubleTy();
  auto unit64 = [&](Value *x) { // (x >> 11) * 2^-53: exact
    return b_.CreateFMul(b_.CreateUIToFP(b_.CreateLShr(x, 11), f64),
                         ConstantFP::get(f64, std::ldexp(1.0, -53)));
  };
  auto unit32 = [&](Value *x) { return b_.CreateFPTrunc(unit64(x), f32); };
  Value *result;
  if (op == RandomOp::Next) {
    result = nextStep(b_, s0, s1);
  } else if (op == RandomOp::UniformF64) {
    result = unit64(nextStep(b_, s0, s1));
  } else if (op == RandomOp::UniformF32) {
    result = unit32(nextStep(b_, s0, s1));
  } else {
    // Box-Muller on two float32 uniforms; the second normal is discarded, as in numba.
    Value *u1 = unit32(nextStep(b_, s0, s1));
    Value *u2 = unit32(nextStep(b_, s0, s1));
    Value *logu1 = libdeviceCall("log", Scalar::F32, {u1});
    if (op == RandomOp::NormalF32) {
      Value *r = fsqrt(b_.CreateFMul(ConstantFP::get(f32, -2.0), logu1));
      Value *angle = b_.CreateFMul(ConstantFP::get(f32, double(float(2 * M_PI))), u2);
      result = b_.CreateFMul(r, libdeviceCall("cos", Scalar::F32, {angle}));
    } else {
      Value *r = fsqrt(b_.CreateFMul(ConstantFP::get(f64, -2.0), b_.CreateFPExt(logu1, f64)));
      Value *angle = b_.CreateFMul(ConstantFP::get(f64, 2 * M_PI), b_.CreateFPExt(u2, f64));
      result = b_.CreateFMul(r, libdeviceCall("cos", Scalar::F64, {angle}));
    }
  }
  b_.CreateStore(s0, p0);
  b_.CreateStore(s1, p1);
  return result;
}

} // namespace ir
} // namespace cutwin
