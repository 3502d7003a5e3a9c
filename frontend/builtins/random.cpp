// numba.cuda.random's device functions: xoroshiro128+ on a state record of two uint64
// words, with numba's seeding, jump, uniform and normal conversions, bit for bit.
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

#include <llvm/IR/Intrinsics.h>

#include <cmath>

namespace cutwin {

namespace ir {
llvm::Value *lowerRandomBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {
enum class RandomOp : unsigned { Next, Jump, Init, UniformF32, UniformF64, NormalF32, NormalF64 };
}

namespace fe {

ExprInfo typeRandomBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                           const Builtin &b);

std::span<const Builtin> randomBuiltins() {
  auto row = [](const char *name, RandomOp op) {
    return Builtin{name, unsigned(op), &typeRandomBuiltin, &ir::lowerRandomBuiltin};
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

Value *lowerRandomBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  RandomOp op = RandomOp(ci.function->op);
  auto *i64 = llvm::Type::getInt64Ty(cx.context());
  const Type &st = cx.info(*c.args[0]).type;
  Value *states = cx.lowerExpr(*c.args[0]);
  Value *index = cx.lowerAs(*c.args[1], Type::scalarOf(ci.operandTypes[0]));
  cx.setLoc(c.loc);
  Value *rec = cx.elementAddress(states, st, {index}, {ci.operandTypes[0]}, c.loc);
  Value *p0 = rec, *p1 = irb.CreateConstInBoundsGEP1_64(i64, rec, 1);

  if (op == RandomOp::Init) {
    // splitmix64 once; both words get the same value.
    Value *z = irb.CreateAdd(cx.lowerAs(*c.args[2], Type::scalarOf(Scalar::U64)),
                             irb.getInt64(0x9E3779B97F4A7C15ull));
    z = irb.CreateMul(irb.CreateXor(z, irb.CreateLShr(z, 30)), irb.getInt64(0xBF58476D1CE4E5B9ull));
    z = irb.CreateMul(irb.CreateXor(z, irb.CreateLShr(z, 27)), irb.getInt64(0x94D049BB133111EBull));
    z = irb.CreateXor(z, irb.CreateLShr(z, 31));
    irb.CreateStore(z, p0);
    irb.CreateStore(z, p1);
    return nullptr;
  }
  Value *s0 = irb.CreateLoad(i64, p0), *s1 = irb.CreateLoad(i64, p1);

  if (op == RandomOp::Jump) {
    // 128 steps; the state becomes the xor of the states at the jump polynomial's bits.
    BasicBlock *pre = irb.GetInsertBlock();
    BasicBlock *loop = BasicBlock::Create(cx.context(), "rng.jump", &cx.function());
    BasicBlock *done = BasicBlock::Create(cx.context(), "rng.jump.done", &cx.function());
    irb.CreateBr(loop);
    irb.SetInsertPoint(loop);
    PHINode *i = irb.CreatePHI(i64, 2), *a0 = irb.CreatePHI(i64, 2), *a1 = irb.CreatePHI(i64, 2);
    PHINode *t0 = irb.CreatePHI(i64, 2), *t1 = irb.CreatePHI(i64, 2);
    Value *word = irb.CreateSelect(irb.CreateICmpULT(i, irb.getInt64(64)), irb.getInt64(kJump[0]),
                                   irb.getInt64(kJump[1]));
    Value *bit = irb.CreateTrunc(irb.CreateLShr(word, irb.CreateAnd(i, 63)), irb.getInt1Ty());
    Value *n0 = irb.CreateSelect(bit, irb.CreateXor(t0, a0), t0);
    Value *n1 = irb.CreateSelect(bit, irb.CreateXor(t1, a1), t1);
    Value *x0 = a0, *x1 = a1;
    nextStep(irb, x0, x1);
    Value *inext = irb.CreateAdd(i, irb.getInt64(1));
    BasicBlock *latch = irb.GetInsertBlock();
    irb.CreateCondBr(irb.CreateICmpEQ(inext, irb.getInt64(128)), done, loop);
    i->addIncoming(irb.getInt64(0), pre);
    i->addIncoming(inext, latch);
    a0->addIncoming(s0, pre);
    a0->addIncoming(x0, latch);
    a1->addIncoming(s1, pre);
    a1->addIncoming(x1, latch);
    t0->addIncoming(irb.getInt64(0), pre);
    t0->addIncoming(n0, latch);
    t1->addIncoming(irb.getInt64(0), pre);
    t1->addIncoming(n1, latch);
    irb.SetInsertPoint(done);
    irb.CreateStore(n0, p0);
    irb.CreateStore(n1, p1);
    return nullptr;
  }

  // Every other function draws one or two outputs, then stores the state back.
  auto *f32 = irb.getFloatTy(), *f64 = irb.getDoubleTy();
  auto unit64 = [&](Value *x) { // (x >> 11) * 2^-53: exact
    return irb.CreateFMul(irb.CreateUIToFP(irb.CreateLShr(x, 11), f64),
                          ConstantFP::get(f64, std::ldexp(1.0, -53)));
  };
  auto unit32 = [&](Value *x) { return irb.CreateFPTrunc(unit64(x), f32); };
  Value *result;
  if (op == RandomOp::Next) {
    result = nextStep(irb, s0, s1);
  } else if (op == RandomOp::UniformF64) {
    result = unit64(nextStep(irb, s0, s1));
  } else if (op == RandomOp::UniformF32) {
    result = unit32(nextStep(irb, s0, s1));
  } else {
    // Box-Muller on two float32 uniforms; the second normal is discarded, as in numba.
    Value *u1 = unit32(nextStep(irb, s0, s1));
    Value *u2 = unit32(nextStep(irb, s0, s1));
    Value *logu1 = cx.libdeviceCall("log", Scalar::F32, {u1});
    if (op == RandomOp::NormalF32) {
      Value *r = cx.fsqrt(irb.CreateFMul(ConstantFP::get(f32, -2.0), logu1));
      Value *angle = irb.CreateFMul(ConstantFP::get(f32, double(float(2 * M_PI))), u2);
      result = irb.CreateFMul(r, cx.libdeviceCall("cos", Scalar::F32, {angle}));
    } else {
      Value *r = cx.fsqrt(irb.CreateFMul(ConstantFP::get(f64, -2.0), irb.CreateFPExt(logu1, f64)));
      Value *angle = irb.CreateFMul(ConstantFP::get(f64, 2 * M_PI), irb.CreateFPExt(u2, f64));
      result = irb.CreateFMul(r, cx.libdeviceCall("cos", Scalar::F64, {angle}));
    }
  }
  irb.CreateStore(s0, p0);
  irb.CreateStore(s1, p1);
  return result;
}

} // namespace ir
} // namespace cutwin
