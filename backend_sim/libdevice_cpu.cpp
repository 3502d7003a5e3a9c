#include "backend_sim/libdevice_cpu.h"

#include "backend_sim/approx_inline.h" // modelSymbols
#include "backend_sim/approx_ops.h"
#include "backend_sim/approx_tables.h"
#include "backend_sim/directed_rounding.h"
#include "backend_sim/host_callbacks.h"

#include "cutwin/errors.h"
#include "frontend/ir/libdevice_link.h"
#include "frontend/ir/passes.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <cfloat>
#include <set>

namespace cutwin::sim {

using namespace llvm;
using cutwin::sim::ApproxF32;
using cutwin::sim::ApproxF64;

namespace {
template <class F> void *hostAddress(F *function) { return reinterpret_cast<void *>(function); }
void *hostAddress(std::nullptr_t) { return nullptr; }
} // namespace

#define CUTWIN_APPROX_UNIT_ADDRESSES(unit, symbol, function, lanes)                                          \
  symbols.emplace_back(symbol, hostAddress(function));                                                       \
  if (void *forLanes = hostAddress(lanes))                                                                   \
    symbols.emplace_back(std::string(symbol) + kLanesSuffix, forLanes);

std::vector<std::pair<std::string, void *>> libdeviceHostSymbols() {
  std::vector<std::pair<std::string, void *>> symbols; // (the helpers: host_callbacks.h)
  // the bare units, and the forms over lanes of those that have one (approx_ops.h)
  CUTWIN_SIM_APPROX_UNITS(CUTWIN_APPROX_UNIT_ADDRESSES)
  for (auto &array : modelSymbols()) // data the inlined units read
    symbols.push_back(array);
  return symbols;
}
#undef CUTWIN_APPROX_UNIT_ADDRESSES

namespace {

/// Rewrites one function's NVVM intrinsics and inline PTX for the CPU.
class CpuRewriter {
public:
  explicit CpuRewriter(Module &m) : m_(m), c_(m.getContext()) {}

  void run(Function &f) {
    std::vector<CallInst *> calls;
    for (BasicBlock &bb : f)
      for (Instruction &i : bb)
        if (auto *ci = dyn_cast<CallInst>(&i)) {
          if (ci->isInlineAsm())
            calls.push_back(ci);
          else if (Function *callee = ci->getCalledFunction();
                   callee && callee->getName().startswith("llvm.nvvm."))
            calls.push_back(ci);
        }
    for (CallInst *ci : calls) {
      IRBuilder<> b(ci);
      Value *r = ci->isInlineAsm() ? rewriteAsm(b, ci, f) : rewriteIntrinsic(b, ci, f);
      if (!ci->getType()->isVoidTy())
        ci->replaceAllUsesWith(r);
      ci->eraseFromParent();
    }
  }

private:
  [[noreturn]] void unsupported(const Function &f, const std::string &what) {
    throw Error("the simulator cannot run libdevice function " + f.getName().str() + ": it uses " + what +
                ", which has no CPU equivalent yet");
  }

  Value *flush(IRBuilder<> &b, Value *x, bool ftz) {
    if (!ftz || !x->getType()->isFloatTy())
      return x;
    Value *ax = b.CreateUnaryIntrinsic(Intrinsic::fabs, x);
    Value *sub = b.CreateFCmpOLT(ax, ConstantFP::get(x->getType(), FLT_MIN));
    Value *zero = b.CreateBinaryIntrinsic(Intrinsic::copysign, ConstantFP::get(x->getType(), 0.0), x);
    return b.CreateSelect(sub, zero, x);
  }

  Function *helper(HostCallback id) { return declareHostCallback(m_, id); }

  /// An approximation unit's own function (approxUnitSymbol): `t` of `t`.
  FunctionCallee unitFunction(const char *symbol, Type *t) {
    FunctionCallee fc = m_.getOrInsertFunction(symbol, FunctionType::get(t, {t}, false));
    if (auto *fn = dyn_cast<Function>(fc.getCallee()))
      fn->setDoesNotThrow();
    return fc;
  }

  /// add/mul/div/fma/sqrt/rcp/sub in rounding mode `mode` (0 rn, 1 rm, 2 rp, 3 rz).
  Value *arith(IRBuilder<> &b, int op, int mode, std::vector<Value *> a, bool ftz) {
    Type *t = a[0]->getType();
    for (auto &v : a)
      v = flush(b, v, ftz);
    Value *r;
    if (mode == 0) {
      switch (op) {
      case 0: r = b.CreateFAdd(a[0], a[1]); break;
      case 1: r = b.CreateFMul(a[0], a[1]); break;
      case 2: r = b.CreateFDiv(a[0], a[1]); break;
      case 3: r = b.CreateIntrinsic(Intrinsic::fma, {t}, {a[0], a[1], a[2]}); break;
      case 4: r = b.CreateUnaryIntrinsic(Intrinsic::sqrt, a[0]); break;
      case 5: r = b.CreateFDiv(ConstantFP::get(t, 1.0), a[0]); break;
      default: r = b.CreateFSub(a[0], a[1]); break;
      }
    } else if (t->isFloatTy() && hasDirectedF32(op)) {
      r = emitDirectedF32(b, op, mode, a[0], a[1], a.size() > 2 ? a[2] : nullptr);
    } else {
      bool f32 = t->isFloatTy();
      Function *h = helper(f32 ? HostCallback::F32Op : HostCallback::F64Op);
      Value *zero = ConstantFP::get(t, 0.0);
      r = b.CreateCall(h, {b.getInt32(op), b.getInt32(mode), a[0], a.size() > 1 ? a[1] : zero,
                           a.size() > 2 ? a[2] : zero});
    }
    return flush(b, r, ftz);
  }

  /// The instruction `op` whole (its ftz form flushes as the GPU does): approx_ops.h. A
  /// bare unit is called directly (approxUnitSymbol), the sequences through the helper.
  Value *approxF32(IRBuilder<> &b, ApproxF32 op, Value *x, Value *y = nullptr) {
    Type *f32 = b.getFloatTy();
    if (const char *unit = approxUnitSymbol(op))
      return b.CreateCall(unitFunction(unit, f32), {x});
    Function *h = helper(HostCallback::ApproxSequenceF32);
    return b.CreateCall(h, {b.getInt32(int(op)), x, y ? y : ConstantFP::get(f32, 0.0)});
  }

  Value *approxF64(IRBuilder<> &b, ApproxF64 op, Value *x) {
    if (const char *unit = approxUnitSymbol(op))
      return b.CreateCall(unitFunction(unit, b.getDoubleTy()), {x});
    Function *h = helper(HostCallback::ApproxSequenceF64);
    return b.CreateCall(h, {b.getInt32(int(op)), x});
  }

  static int roundingMode(const SmallVectorImpl<StringRef> &tok) {
    for (StringRef t : tok) {
      if (t == "rn")
        return 0;
      if (t == "rm")
        return 1;
      if (t == "rp")
        return 2;
      if (t == "rz")
        return 3;
    }
    return 0;
  }

  Value *rewriteIntrinsic(IRBuilder<> &b, CallInst *ci, Function &f) {
    StringRef name = ci->getCalledFunction()->getName().drop_front(strlen("llvm.nvvm."));
    SmallVector<StringRef, 4> tok;
    name.split(tok, '.');
    StringRef op = tok[0];
    bool ftz = is_contained(tok, "ftz");
    int mode = roundingMode(tok);
    std::vector<Value *> a(ci->arg_begin(), ci->arg_end());
    Type *rt = ci->getType();
    bool approx = is_contained(tok, "approx");

    static const std::pair<const char *, int> arithOps[] = {{"add", 0}, {"mul", 1},  {"div", 2},
                                                            {"fma", 3}, {"sqrt", 4}, {"rcp", 5}};
    if (!approx)
      for (auto &[n, code] : arithOps)
        if (op == n) // includes sqrt.f, whose result the correctly rounded sqrt stands in for
          return arith(b, code, mode, a, ftz);
    if (approx) {
      if (rt->isDoubleTy()) {
        if (op == "rsqrt")
          return approxF64(b, ftz ? ApproxF64::RsqrtFtz : ApproxF64::Rsqrt, a[0]);
        if (op == "rcp" && ftz)
          return approxF64(b, ApproxF64::RcpFtz, a[0]);
      } else {
        static const struct {
          const char *name;
          ApproxF32 ftz, full;
        } units[] = {
            {"ex2", ApproxF32::Ex2Ftz, ApproxF32::Ex2},       {"lg2", ApproxF32::Lg2Ftz, ApproxF32::Lg2},
            {"sin", ApproxF32::Sin, ApproxF32::Sin},          {"cos", ApproxF32::Cos, ApproxF32::Cos},
            {"rsqrt", ApproxF32::RsqrtFtz, ApproxF32::Rsqrt}, {"sqrt", ApproxF32::SqrtFtz, ApproxF32::Sqrt},
            {"rcp", ApproxF32::RcpFtz, ApproxF32::Rcp},       {"tanh", ApproxF32::Tanh, ApproxF32::Tanh},
            {"div", ApproxF32::DivFtz, ApproxF32::Div}};
        for (auto &u : units)
          if (op == u.name)
            return approxF32(b, ftz ? u.ftz : u.full, a[0], a.size() > 1 ? a[1] : nullptr);
      }
    }
    static const std::pair<const char *, Intrinsic::ID> unary[] = {{"fabs", Intrinsic::fabs},
                                                                   {"floor", Intrinsic::floor},
                                                                   {"ceil", Intrinsic::ceil},
                                                                   {"trunc", Intrinsic::trunc}};
    for (auto &[n, id] : unary)
      if (op == n)
        return flush(b, b.CreateUnaryIntrinsic(id, flush(b, a[0], ftz)), ftz);
    if (op == "fmin" || op == "fmax")
      return flush(b,
                   b.CreateBinaryIntrinsic(op == "fmin" ? Intrinsic::minnum : Intrinsic::maxnum,
                                           flush(b, a[0], ftz), flush(b, a[1], ftz)),
                   ftz);
    if (op == "saturate") {
      Value *x = flush(b, a[0], ftz);
      Value *zero = ConstantFP::get(rt, 0.0), *one = ConstantFP::get(rt, 1.0);
      Value *lo = b.CreateSelect(b.CreateFCmpOGT(x, zero), x, zero); // NaN -> 0
      return b.CreateSelect(b.CreateFCmpOLT(lo, one), lo, one);
    }
    if (op == "d2i" && (tok[1] == "hi" || tok[1] == "lo")) {
      Value *bits = b.CreateBitCast(a[0], b.getInt64Ty());
      if (tok[1] == "hi")
        bits = b.CreateLShr(bits, 32);
      return b.CreateTrunc(bits, b.getInt32Ty());
    }
    if (op == "lohi" && tok.size() > 1 && tok[1] == "i2d") {
      Value *lo = b.CreateZExt(a[0], b.getInt64Ty());
      Value *hi = b.CreateShl(b.CreateZExt(a[1], b.getInt64Ty()), 32);
      return b.CreateBitCast(b.CreateOr(lo, hi), b.getDoubleTy());
    }
    // Float to integer: round in the requested mode, then convert with saturation
    // (NaN -> 0), as PTX's cvt does.
    if ((op.startswith("f2") || op.startswith("d2")) && op != "d2f" && rt->isIntegerTy() && op != "f2h") {
      Value *x = flush(b, a[0], ftz);
      static const Intrinsic::ID byMode[] = {Intrinsic::rint, Intrinsic::floor, Intrinsic::ceil,
                                             Intrinsic::trunc};
      x = b.CreateUnaryIntrinsic(byMode[mode], x);
      bool sgn = !op.drop_front(2).startswith("u");
      return b.CreateIntrinsic(sgn ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat, {rt, x->getType()}, {x});
    }
    if (op == "d2f") {
      if (mode == 0)
        return flush(b, b.CreateFPTrunc(a[0], b.getFloatTy()), ftz);
      Function *h = helper(HostCallback::ToF32);
      return flush(
          b, b.CreateCall(h, {b.getInt32(0), b.getInt32(mode), b.CreateBitCast(a[0], b.getInt64Ty())}), ftz);
    }
    if (op == "f2h") { // cvt.rn.f16.f32: every NaN becomes the canonical 0x7fff (measured on the H200)
      Value *x = flush(b, a[0], ftz);
      Value *h = b.CreateBitCast(b.CreateFPTrunc(x, b.getHalfTy()), b.getInt16Ty());
      return b.CreateSelect(b.CreateFCmpUNO(x, x), b.getInt16(0x7fff), h);
    }
    // Integer to float.
    if (op == "i2f" || op == "ui2f" || op == "ll2f" || op == "ull2f" || op == "i2d" || op == "ui2d" ||
        op == "ll2d" || op == "ull2d") {
      bool sgn = !op.startswith("u");
      if (mode == 0)
        return sgn ? b.CreateSIToFP(a[0], rt) : b.CreateUIToFP(a[0], rt);
      int kind = op.startswith("ll") || op.startswith("ull") ? (sgn ? 3 : 4) : (sgn ? 1 : 2);
      Value *bits = sgn ? b.CreateSExt(a[0], b.getInt64Ty()) : b.CreateZExt(a[0], b.getInt64Ty());
      bool toF32 = rt->isFloatTy();
      Function *h = helper(toF32 ? HostCallback::ToF32 : HostCallback::ToF64);
      return b.CreateCall(h, {b.getInt32(kind), b.getInt32(mode), bits});
    }
    if (op == "mulhi") {
      bool sgn = tok[1] == "i" || tok[1] == "ll";
      unsigned w = rt->getIntegerBitWidth();
      Type *wide = b.getIntNTy(2 * w);
      Value *x = sgn ? b.CreateSExt(a[0], wide) : b.CreateZExt(a[0], wide);
      Value *y = sgn ? b.CreateSExt(a[1], wide) : b.CreateZExt(a[1], wide);
      return b.CreateTrunc(b.CreateLShr(b.CreateMul(x, y), w), rt);
    }
    if (op == "sad") {
      bool sgn = tok[1] == "i";
      Value *gt = sgn ? b.CreateICmpSGT(a[0], a[1]) : b.CreateICmpUGT(a[0], a[1]);
      Value *d = b.CreateSelect(gt, b.CreateSub(a[0], a[1]), b.CreateSub(a[1], a[0]));
      return b.CreateAdd(d, a[2]);
    }
    if (op == "prmt") {
      Value *r = b.getInt32(0);
      Value *both =
          b.CreateOr(b.CreateZExt(a[0], b.getInt64Ty()), b.CreateShl(b.CreateZExt(a[1], b.getInt64Ty()), 32));
      for (unsigned i = 0; i < 4; ++i) {
        Value *sel = b.CreateAnd(b.CreateLShr(a[2], 4 * i), 7);
        Value *byte = b.CreateAnd(
            b.CreateLShr(both, b.CreateZExt(b.CreateMul(sel, b.getInt32(8)), b.getInt64Ty())), 0xff);
        r = b.CreateOr(r, b.CreateShl(b.CreateTrunc(byte, b.getInt32Ty()), 8 * i));
      }
      return r;
    }
    unsupported(f, "llvm.nvvm." + name.str());
  }

  static std::string squeeze(StringRef s) {
    std::string out;
    for (char ch : s)
      if (!isspace((unsigned char)ch))
        out += ch;
    return out;
  }

  Value *rewriteAsm(IRBuilder<> &b, CallInst *ci, Function &f) {
    auto *ia = cast<InlineAsm>(ci->getCalledOperand());
    std::string s = squeeze(ia->getAsmString());
    std::vector<Value *> a(ci->arg_begin(), ci->arg_end());
    Type *rt = ci->getType();
    auto pair = [&](Value *lo, Value *hi) {
      Value *agg = UndefValue::get(rt);
      agg = b.CreateInsertValue(agg, lo, {0});
      return b.CreateInsertValue(agg, hi, {1});
    };
    if (s == "rcp.approx.ftz.f32$0,$1;")
      return approxF32(b, ApproxF32::RcpFtz, a[0]);
    if (s == "rsqrt.approx.ftz.f64$0,$1;")
      return approxF64(b, ApproxF64::RsqrtFtz, a[0]);
    if (StringRef(s).startswith("sub.") && StringRef(s).endswith("$0,$1,$2;")) {
      SmallVector<StringRef, 4> tok;
      StringRef(s).split(tok, '.');
      return arith(b, 6, roundingMode(tok), {a[0], a[1]}, s.find(".ftz") != std::string::npos);
    }
    if (s.find("setp.equ.f64") != std::string::npos)
      return b.CreateSelect(b.CreateFCmpUEQ(a[0], a[1]), a[2], a[3]);
    if (s == "bfind.shiftamt.u32$0,$1;") {
      Value *clz = b.CreateBinaryIntrinsic(Intrinsic::ctlz, a[0], b.getTrue());
      return b.CreateSelect(b.CreateICmpEQ(a[0], b.getInt32(0)), b.getInt32(0xffffffff), clz);
    }
    if (s == "{mad.lo.cc.u32$0,$2,$3,$4;madc.hi.u32$1,$2,$3,0;}") {
      Value *full =
          b.CreateAdd(b.CreateMul(b.CreateZExt(a[0], b.getInt64Ty()), b.CreateZExt(a[1], b.getInt64Ty())),
                      b.CreateZExt(a[2], b.getInt64Ty()));
      return pair(b.CreateTrunc(full, b.getInt32Ty()), b.CreateTrunc(b.CreateLShr(full, 32), b.getInt32Ty()));
    }
    Type *i128 = b.getInt128Ty();
    auto join = [&](Value *lo, Value *hi) {
      return b.CreateOr(b.CreateZExt(lo, i128), b.CreateShl(b.CreateZExt(hi, i128), 64));
    };
    auto split = [&](Value *v) {
      return pair(b.CreateTrunc(v, b.getInt64Ty()), b.CreateTrunc(b.CreateLShr(v, 64), b.getInt64Ty()));
    };
    if (s.find("add.cc.u32") != std::string::npos && a.size() == 4)
      return split(b.CreateAdd(join(a[0], a[1]), join(a[2], a[3])));
    if (s.find("sub.cc.u32") != std::string::npos && a.size() == 4)
      return split(b.CreateSub(join(a[0], a[1]), join(a[2], a[3])));
    if (s.find("mad.lo.cc.u32r0,alo,blo,clo") != std::string::npos && a.size() == 3)
      return split(b.CreateAdd(b.CreateMul(b.CreateZExt(a[0], i128), b.CreateZExt(a[1], i128)),
                               b.CreateZExt(a[2], i128)));
    if (s.find("mul.lo.u32r0,alo,blo") != std::string::npos && a.size() == 2)
      return split(b.CreateMul(b.CreateZExt(a[0], i128), b.CreateZExt(a[1], i128)));
    unsupported(f, "inline PTX \"" + ia->getAsmString() + "\"");
  }

  Module &m_;
  LLVMContext &c_;
};

} // namespace

void linkLibdeviceForCpu(Module &m, const LibdeviceOptions &opts) {
  std::set<std::string> added = ir::linkLibdevice(m, opts);
  if (added.empty())
    return;
  CpuRewriter rewriter(m);
  for (const std::string &name : added) {
    Function &f = *m.getFunction(name);
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
    ir::simplifyFunction(f);
    rewriter.run(f);
  }
  std::vector<Function *> dead;
  for (Function &f : m)
    if (f.isDeclaration() && f.use_empty() &&
        (f.getName().startswith("llvm.nvvm.") || f.getName() == "__nvvm_reflect"))
      dead.push_back(&f);
  for (Function *f : dead)
    f->eraseFromParent();
}

} // namespace cutwin::sim
