#include "backend_gpu/nvvm_printer.h"

#include "cutwin/errors.h"
#include "frontend/ir/passes.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

namespace cutwin::gpu {

using namespace llvm;

// ---- preparation -------------------------------------------------------------------------------

namespace {

Value *expandIntrinsic(IntrinsicInst *ii) {
  IRBuilder<> b(ii);
  Intrinsic::ID id = ii->getIntrinsicID();
  auto arg = [&](unsigned i) { return ii->getArgOperand(i); };
  switch (id) {
  case Intrinsic::fptosi_sat:
  case Intrinsic::fptoui_sat: {
    // Saturate to the integer range, NaN -> 0, then convert.
    Type *it = ii->getType();
    Value *x = arg(0);
    if (x->getType()->isHalfTy()) // exactly, so that the range's limits are representable
      x = b.CreateFPExt(x, b.getFloatTy());
    unsigned w = it->getIntegerBitWidth();
    bool sgn = id == Intrinsic::fptosi_sat;
    APInt lo = sgn ? APInt::getSignedMinValue(w) : APInt::getMinValue(w);
    APInt hi = sgn ? APInt::getSignedMaxValue(w) : APInt::getMaxValue(w);
    Value *flo = sgn ? b.CreateSIToFP(ConstantInt::get(it, lo), x->getType())
                     : b.CreateUIToFP(ConstantInt::get(it, lo), x->getType());
    Value *conv = sgn ? b.CreateFPToSI(x, it) : b.CreateFPToUI(x, it);
    Value *r = b.CreateSelect(b.CreateFCmpOLE(x, flo), ConstantInt::get(it, lo), conv);
    // Values at or above 2^(w-1) (or 2^w) saturate: compare against the first float
    // beyond the range, which is exact.
    APFloat limit(x->getType()->isFloatTy() ? APFloat::IEEEsingle() : APFloat::IEEEdouble());
    limit.convertFromAPInt(sgn ? APInt::getOneBitSet(w + 1, w - 1) : APInt::getOneBitSet(w + 1, w), false,
                           APFloat::rmNearestTiesToEven);
    r = b.CreateSelect(b.CreateFCmpOGE(x, ConstantFP::get(x->getType(), limit)), ConstantInt::get(it, hi), r);
    return b.CreateSelect(b.CreateFCmpUNO(x, x), ConstantInt::get(it, 0), r);
  }
  case Intrinsic::fshl:
  case Intrinsic::fshr: {
    // Funnel shifts (rotates) as two shifts; a shift by 0 modulo the width is the identity.
    Type *t = ii->getType();
    unsigned w = t->getIntegerBitWidth();
    Value *amt = b.CreateURem(arg(2), ConstantInt::get(t, w));
    Value *inv = b.CreateSub(ConstantInt::get(t, w), amt);
    bool left = id == Intrinsic::fshl;
    Value *r = b.CreateOr(b.CreateShl(arg(0), left ? amt : inv), b.CreateLShr(arg(1), left ? inv : amt));
    return b.CreateSelect(b.CreateICmpEQ(amt, ConstantInt::get(t, 0)), arg(left ? 0 : 1), r);
  }
  case Intrinsic::smin: return b.CreateSelect(b.CreateICmpSLT(arg(0), arg(1)), arg(0), arg(1));
  case Intrinsic::smax: return b.CreateSelect(b.CreateICmpSGT(arg(0), arg(1)), arg(0), arg(1));
  case Intrinsic::umin: return b.CreateSelect(b.CreateICmpULT(arg(0), arg(1)), arg(0), arg(1));
  case Intrinsic::umax: return b.CreateSelect(b.CreateICmpUGT(arg(0), arg(1)), arg(0), arg(1));
  case Intrinsic::abs: {
    Value *neg = b.CreateNeg(arg(0));
    return b.CreateSelect(b.CreateICmpSLT(arg(0), ConstantInt::get(arg(0)->getType(), 0)), neg, arg(0));
  }
  default: return nullptr;
  }
}

} // namespace

namespace {

/// Atomics the LLVM 7 dialect cannot say: float add becomes NVVM's intrinsic, float
/// exchange an integer one, and wrapping increment/decrement a compare-and-swap loop.
void rewriteAtomicsForNvvm(Module &m) {
  std::vector<AtomicRMWInst *> atomics;
  for (Function &f : m)
    for (BasicBlock &bb : f)
      for (Instruction &i : bb)
        if (auto *a = dyn_cast<AtomicRMWInst>(&i))
          atomics.push_back(a);
  LLVMContext &c = m.getContext();
  for (AtomicRMWInst *a : atomics) {
    IRBuilder<> b(a);
    Value *p = a->getPointerOperand(), *v = a->getValOperand();
    Type *t = v->getType();
    unsigned as = a->getPointerAddressSpace();
    Value *r = nullptr;
    switch (a->getOperation()) {
    case AtomicRMWInst::FAdd: {
      std::string ty = t->isFloatTy() ? "f32" : "f64";
      std::string name = "llvm.nvvm.atomic.load.add." + ty + ".p" + std::to_string(as) + ty;
      FunctionCallee fn = m.getOrInsertFunction(name, FunctionType::get(t, {p->getType(), t}, false));
      r = b.CreateCall(fn, {p, v});
      break;
    }
    case AtomicRMWInst::Xchg:
      if (!t->isFloatingPointTy())
        continue;
      r = b.CreateBitCast(b.CreateAtomicRMW(AtomicRMWInst::Xchg, p,
                                            b.CreateBitCast(v, b.getIntNTy(t->getPrimitiveSizeInBits())),
                                            a->getAlign(), a->getOrdering()),
                          t);
      break;
    case AtomicRMWInst::UIncWrap:
    case AtomicRMWInst::UDecWrap: {
      BasicBlock *before = a->getParent();
      BasicBlock *done = before->splitBasicBlock(a, "atomic.done");
      BasicBlock *loop = BasicBlock::Create(c, "atomic.loop", before->getParent(), done);
      before->getTerminator()->eraseFromParent();
      IRBuilder<> eb(before);
      LoadInst *first = eb.CreateAlignedLoad(t, p, a->getAlign(), true, "atomic.first");
      eb.CreateBr(loop);
      IRBuilder<> lb(loop);
      PHINode *old = lb.CreatePHI(t, 2, "atomic.old");
      old->addIncoming(first, before);
      Value *next;
      if (a->getOperation() == AtomicRMWInst::UIncWrap)
        next = lb.CreateSelect(lb.CreateICmpUGE(old, v), ConstantInt::get(t, 0),
                               lb.CreateAdd(old, ConstantInt::get(t, 1)));
      else
        next = lb.CreateSelect(
            lb.CreateOr(lb.CreateICmpEQ(old, ConstantInt::get(t, 0)), lb.CreateICmpUGT(old, v)), v,
            lb.CreateSub(old, ConstantInt::get(t, 1)));
      Value *pair = lb.CreateAtomicCmpXchg(p, old, next, a->getAlign(), a->getOrdering(), a->getOrdering());
      Value *seen = lb.CreateExtractValue(pair, {0});
      old->addIncoming(seen, loop);
      lb.CreateCondBr(lb.CreateExtractValue(pair, {1}), done, loop);
      r = old;
      break;
    }
    default: continue;
    }
    a->replaceAllUsesWith(r);
    a->eraseFromParent();
  }
}

/// Intrinsics newer than LLVM 7 as the ones it has: roundeven (LLVM 11) is rint, which
/// rounds to nearest even in the default rounding mode, the only one kernels run in
/// (libNVVM lowers it to cvt.rni, as NVPTX lowers roundeven).
void rewriteNewIntrinsicsForNvvm(Module &m) {
  std::vector<Function *> roundevens;
  for (Function &f : m)
    if (f.getIntrinsicID() == Intrinsic::roundeven)
      roundevens.push_back(&f);
  for (Function *f : roundevens) {
    f->replaceAllUsesWith(Intrinsic::getDeclaration(&m, Intrinsic::rint, {f->getReturnType()}));
    f->eraseFromParent();
  }
}

} // namespace

void prepareForNvvm(Module &m) {
  rewriteAtomicsForNvvm(m);
  rewriteNewIntrinsicsForNvvm(m);
  for (GlobalVariable &g : m.globals())
    ir::expandConstantUsers(&g);
  for (Function &f : m)
    ir::expandConstantUsers(&f);
  std::vector<Instruction *> dead;
  for (Function &f : m) {
    f.setAttributes(AttributeList());
    for (BasicBlock &bb : f)
      for (Instruction &i : bb) {
        if (auto *call = dyn_cast<CallBase>(&i))
          call->setAttributes(AttributeList());
        if (auto *ii = dyn_cast<IntrinsicInst>(&i)) {
          Intrinsic::ID id = ii->getIntrinsicID();
          if (isa<DbgInfoIntrinsic>(ii) || id == Intrinsic::lifetime_start || id == Intrinsic::lifetime_end ||
              id == Intrinsic::assume || id == Intrinsic::experimental_noalias_scope_decl) {
            dead.push_back(ii);
            continue;
          }
          if (Value *r = expandIntrinsic(ii)) {
            ii->replaceAllUsesWith(r);
            dead.push_back(ii);
          }
          continue;
        }
        if (auto *fr = dyn_cast<FreezeInst>(&i)) {
          fr->replaceAllUsesWith(fr->getOperand(0));
          dead.push_back(fr);
          continue;
        }
        if (i.getOpcode() == Instruction::FNeg) {
          IRBuilder<> b(&i);
          Value *r = b.CreateFSub(ConstantFP::getNegativeZero(i.getType()), i.getOperand(0));
          i.replaceAllUsesWith(r);
          dead.push_back(&i);
        }
      }
  }
  for (Instruction *i : dead)
    i->eraseFromParent();
  std::vector<Function *> unused;
  for (Function &f : m)
    if (f.isDeclaration() && f.use_empty())
      unused.push_back(&f);
  for (Function *f : unused)
    f->eraseFromParent();
}

// ---- printing ----------------------------------------------------------------------------------

namespace {

class Printer {
public:
  explicit Printer(const Module &m) : m_(m) {}

  std::string run() {
    os_ << "; NVVM IR (LLVM 7.0 dialect) printed by cutwin\n";
    os_ << "target datalayout = \"e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-"
           "f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64\"\n";
    os_ << "target triple = \"nvptx64-nvidia-cuda\"\n\n";
    for (const GlobalVariable &g : m_.globals())
      printGlobal(g);
    for (const Function &f : m_)
      if (f.isDeclaration() && !f.getName().startswith("llvm.dbg"))
        printDeclaration(f);
    for (const Function &f : m_)
      if (!f.isDeclaration())
        printFunction(f);
    printMetadata();
    return os_.str();
  }

private:
  // -- types
  std::string type(Type *t) {
    if (t->isVoidTy())
      return "void";
    if (t->isIntegerTy())
      return "i" + std::to_string(t->getIntegerBitWidth());
    if (t->isHalfTy())
      return "half";
    if (t->isFloatTy())
      return "float";
    if (t->isDoubleTy())
      return "double";
    if (t->isPointerTy())
      return ptrType(Type::getInt8Ty(t->getContext()), t->getPointerAddressSpace());
    if (auto *a = dyn_cast<ArrayType>(t))
      return "[" + std::to_string(a->getNumElements()) + " x " + type(a->getElementType()) + "]";
    if (auto *s = dyn_cast<StructType>(t)) {
      std::string r = s->isPacked() ? "<{ " : "{ ";
      for (unsigned i = 0; i < s->getNumElements(); ++i)
        r += (i ? ", " : "") + type(s->getElementType(i));
      return r + (s->isPacked() ? " }>" : " }");
    }
    if (auto *v = dyn_cast<FixedVectorType>(t))
      return "<" + std::to_string(v->getNumElements()) + " x " + type(v->getElementType()) + ">";
    if (auto *f = dyn_cast<FunctionType>(t)) {
      std::string r = type(f->getReturnType()) + " (";
      for (unsigned i = 0; i < f->getNumParams(); ++i)
        r += (i ? ", " : "") + type(f->getParamType(i));
      return r + ")";
    }
    throw Error("NVVM printer: unsupported type");
  }
  std::string ptrType(Type *elem, unsigned as) {
    return type(elem) + (as ? " addrspace(" + std::to_string(as) + ")" : "") + "*";
  }

  static std::string quote(StringRef name) { return "\"" + name.str() + "\""; }

  // -- constants and operands
  std::string constant(const Constant *c) {
    Type *t = c->getType();
    if (auto *ci = dyn_cast<ConstantInt>(c))
      return t->isIntegerTy(1) ? (ci->isZero() ? "false" : "true") : std::to_string(ci->getSExtValue());
    if (auto *cf = dyn_cast<ConstantFP>(c)) {
      if (t->isHalfTy()) { // LLVM's textual form of a half: 0xH and its 16 bits
        char buf[16];
        std::snprintf(buf, sizeof buf, "0xH%04X",
                      unsigned(cf->getValueAPF().bitcastToAPInt().getZExtValue()));
        return buf;
      }
      double d;
      bool lossy = false;
      APFloat v = cf->getValueAPF();
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lossy);
      d = v.convertToDouble();
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%016" PRIX64, bits);
      return buf;
    }
    if (isa<UndefValue>(c))
      return "undef"; // poison too
    if (isa<ConstantPointerNull>(c))
      return "null";
    if (isa<ConstantAggregateZero>(c))
      return "zeroinitializer";
    if (auto *g = dyn_cast<GlobalValue>(c)) {
      unsigned as = g->getAddressSpace();
      return "bitcast (" + ptrType(g->getValueType(), as) + " @" + quote(g->getName()) + " to " +
             type(g->getType()) + ")";
    }
    if (auto *cds = dyn_cast<ConstantDataSequential>(c)) {
      bool arr = t->isArrayTy();
      std::string r = arr ? "[" : "<";
      for (unsigned i = 0; i < cds->getNumElements(); ++i)
        r += (i ? ", " : "") + type(cds->getElementType()) + " " + constant(cds->getElementAsConstant(i));
      return r + (arr ? "]" : ">");
    }
    if (auto *agg = dyn_cast<ConstantAggregate>(c)) {
      bool arr = t->isArrayTy(), st = t->isStructTy();
      std::string r = arr ? "[" : st ? "{ " : "<";
      for (unsigned i = 0; i < agg->getNumOperands(); ++i)
        r += (i ? ", " : "") + type(agg->getOperand(i)->getType()) + " " + constant(agg->getOperand(i));
      return r + (arr ? "]" : st ? " }" : ">");
    }
    throw Error("NVVM printer: unsupported constant");
  }

  std::string operand(const Value *v) {
    if (auto *c = dyn_cast<Constant>(v))
      return constant(c);
    auto it = names_.find(v);
    if (it == names_.end())
      throw Error("NVVM printer: value used before it was named");
    return it->second;
  }
  std::string typed(const Value *v) { return type(v->getType()) + " " + operand(v); }

  std::string fresh() { return "%t" + std::to_string(temp_++); }
  std::string nameOf(const Value *v) {
    std::string n = "%v" + std::to_string(counter_++);
    names_[v] = n;
    return n;
  }

  /// `p` viewed as a pointer to `elem`: a bitcast line, or the global itself.
  std::string typedPointer(const Value *p, Type *elem) {
    unsigned as = p->getType()->getPointerAddressSpace();
    if (auto *g = dyn_cast<GlobalValue>(p); g && g->getValueType() == elem)
      return "@" + quote(g->getName());
    std::string t = fresh();
    line(t + " = bitcast " + typed(p) + " to " + ptrType(elem, as));
    return t;
  }

  void line(const std::string &s) { os_ << "  " << s << dbg_ << "\n"; }

  // -- module parts
  void printGlobal(const GlobalVariable &g) {
    os_ << "@" << quote(g.getName()) << " = ";
    os_ << (g.isDeclaration()                                 ? "external "
            : g.hasInternalLinkage() || g.hasPrivateLinkage() ? "internal "
                                                              : "");
    if (g.getAddressSpace())
      os_ << "addrspace(" << g.getAddressSpace() << ") ";
    os_ << (g.isConstant() ? "constant " : "global ") << type(g.getValueType());
    if (!g.isDeclaration())
      os_ << " " << (g.hasInitializer() ? constant(g.getInitializer()) : "undef");
    if (g.getAlign())
      os_ << ", align " << g.getAlign()->value();
    os_ << "\n";
  }

  void printDeclaration(const Function &f) {
    if (f.isIntrinsic() && !f.getName().startswith("llvm.nvvm.") && !f.getName().startswith("llvm.fma") &&
        !f.getName().startswith("llvm.sqrt") && !f.getName().startswith("llvm.fabs") &&
        !f.getName().startswith("llvm.floor") && !f.getName().startswith("llvm.ceil") &&
        !f.getName().startswith("llvm.trunc") && !f.getName().startswith("llvm.rint") &&
        !f.getName().startswith("llvm.copysign") && !f.getName().startswith("llvm.memcpy") &&
        !f.getName().startswith("llvm.memset") && !f.getName().startswith("llvm.ctpop") &&
        !f.getName().startswith("llvm.ctlz") && !f.getName().startswith("llvm.cttz") &&
        !f.getName().startswith("llvm.bitreverse") && !f.getName().startswith("llvm.bswap") &&
        !f.getName().startswith("llvm.minnum") && !f.getName().startswith("llvm.maxnum"))
      throw Error("NVVM printer: intrinsic " + f.getName().str() + " has no LLVM 7 equivalent");
    FunctionType *ft = f.getFunctionType();
    os_ << "declare " << type(ft->getReturnType()) << " @" << quote(f.getName()) << "(";
    for (unsigned i = 0; i < ft->getNumParams(); ++i)
      os_ << (i ? ", " : "") << type(ft->getParamType(i));
    os_ << ")\n";
  }

  void printFunction(const Function &f) {
    names_.clear();
    counter_ = 0;
    os_ << "\ndefine " << (f.hasInternalLinkage() || f.hasPrivateLinkage() ? "internal " : "")
        << type(f.getReturnType()) << " @" << quote(f.getName()) << "(";
    for (unsigned i = 0; i < f.arg_size(); ++i) {
      const Argument *a = f.getArg(i);
      os_ << (i ? ", " : "") << type(a->getType()) << " " << nameOf(a);
    }
    os_ << ")";
    if (const DISubprogram *sp = f.getSubprogram(); sp && hasLineInfo())
      os_ << " !dbg !" << md(sp);
    os_ << " {\n";
    unsigned bb = 0;
    for (const BasicBlock &b : f)
      blocks_[&b] = "bb" + std::to_string(bb++);
    // Name every instruction result first: phis refer to values defined later.
    for (const BasicBlock &b : f)
      for (const Instruction &i : b)
        if (!i.getType()->isVoidTy())
          nameOf(&i);
    for (const BasicBlock &b : f) {
      os_ << blocks_[&b] << ":\n";
      for (const Instruction &i : b) {
        const DILocation *loc = hasLineInfo() && f.getSubprogram() ? i.getDebugLoc().get() : nullptr;
        dbg_ = loc ? ", !dbg !" + std::to_string(md(loc)) : "";
        instruction(i);
      }
    }
    dbg_.clear();
    os_ << "}\n";
  }

  std::string label(const BasicBlock *b) { return "label %" + blocks_.at(b); }

  static std::string alignOf(MaybeAlign a) { return a ? ", align " + std::to_string(a->value()) : ""; }

  void instruction(const Instruction &i) {
    std::string res = i.getType()->isVoidTy() ? "" : names_.at(&i);
    auto assign = [&](const std::string &rhs) { line(res + " = " + rhs); };
    switch (i.getOpcode()) {
    case Instruction::Alloca: {
      auto &a = cast<AllocaInst>(i);
      std::string t = fresh();
      line(t + " = alloca " + type(a.getAllocatedType()) + alignOf(a.getAlign()));
      assign("bitcast " + ptrType(a.getAllocatedType(), 0) + " " + t + " to " + type(a.getType()));
      return;
    }
    case Instruction::Load: {
      auto &l = cast<LoadInst>(i);
      std::string p = typedPointer(l.getPointerOperand(), l.getType());
      assign(std::string("load ") + (l.isVolatile() ? "volatile " : "") + type(l.getType()) + ", " +
             ptrType(l.getType(), l.getPointerAddressSpace()) + " " + p + alignOf(l.getAlign()));
      return;
    }
    case Instruction::Store: {
      auto &s = cast<StoreInst>(i);
      Type *vt = s.getValueOperand()->getType();
      std::string p = typedPointer(s.getPointerOperand(), vt);
      line(std::string("store ") + (s.isVolatile() ? "volatile " : "") + typed(s.getValueOperand()) + ", " +
           ptrType(vt, s.getPointerAddressSpace()) + " " + p + alignOf(s.getAlign()));
      return;
    }
    case Instruction::GetElementPtr: {
      auto &g = cast<GetElementPtrInst>(i);
      Type *src = g.getSourceElementType();
      unsigned as = g.getPointerAddressSpace();
      std::string p = typedPointer(g.getPointerOperand(), src);
      std::string t = fresh();
      std::string s = t + " = getelementptr " + (g.isInBounds() ? "inbounds " : "") + type(src) + ", " +
                      ptrType(src, as) + " " + p;
      for (auto idx = g.idx_begin(); idx != g.idx_end(); ++idx)
        s += ", " + typed(*idx);
      line(s);
      assign("bitcast " + ptrType(g.getResultElementType(), as) + " " + t + " to " + type(g.getType()));
      return;
    }
    case Instruction::AtomicCmpXchg: {
      auto &c = cast<AtomicCmpXchgInst>(i);
      Type *vt = c.getCompareOperand()->getType();
      std::string p = typedPointer(c.getPointerOperand(), vt);
      assign(std::string("cmpxchg ") + (c.isVolatile() ? "volatile " : "") +
             ptrType(vt, c.getPointerAddressSpace()) + " " + p + ", " + typed(c.getCompareOperand()) + ", " +
             typed(c.getNewValOperand()) + " " + toIRString(c.getSuccessOrdering()) + " " +
             toIRString(c.getFailureOrdering()));
      return;
    }
    case Instruction::AtomicRMW: {
      auto &a = cast<AtomicRMWInst>(i);
      Type *vt = a.getValOperand()->getType();
      std::string p = typedPointer(a.getPointerOperand(), vt);
      assign("atomicrmw " + AtomicRMWInst::getOperationName(a.getOperation()).str() + " " +
             ptrType(vt, a.getPointerAddressSpace()) + " " + p + ", " + typed(a.getValOperand()) + " " +
             toIRString(a.getOrdering()));
      return;
    }
    case Instruction::ICmp:
    case Instruction::FCmp: {
      auto &c = cast<CmpInst>(i);
      assign(std::string(isa<ICmpInst>(c) ? "icmp " : "fcmp ") +
             CmpInst::getPredicateName(c.getPredicate()).str() + " " + typed(c.getOperand(0)) + ", " +
             operand(c.getOperand(1)));
      return;
    }
    case Instruction::Select:
      assign("select " + typed(i.getOperand(0)) + ", " + typed(i.getOperand(1)) + ", " +
             typed(i.getOperand(2)));
      return;
    case Instruction::PHI: {
      auto &p = cast<PHINode>(i);
      std::string s = "phi " + type(p.getType()) + " ";
      for (unsigned k = 0; k < p.getNumIncomingValues(); ++k)
        s += (k ? ", [ " : "[ ") + operand(p.getIncomingValue(k)) + ", %" +
             blocks_.at(p.getIncomingBlock(k)) + " ]";
      assign(s);
      return;
    }
    case Instruction::Br: {
      auto &b = cast<BranchInst>(i);
      if (b.isUnconditional())
        line("br " + label(b.getSuccessor(0)));
      else
        line("br " + typed(b.getCondition()) + ", " + label(b.getSuccessor(0)) + ", " +
             label(b.getSuccessor(1)));
      return;
    }
    case Instruction::Switch: {
      auto &s = cast<SwitchInst>(i);
      std::string r = "switch " + typed(s.getCondition()) + ", " + label(s.getDefaultDest()) + " [";
      for (auto &c : s.cases())
        r += " " + typed(c.getCaseValue()) + ", " + label(c.getCaseSuccessor());
      line(r + " ]");
      return;
    }
    case Instruction::Ret: {
      auto &r = cast<ReturnInst>(i);
      line(r.getReturnValue() ? "ret " + typed(r.getReturnValue()) : "ret void");
      return;
    }
    case Instruction::Unreachable: line("unreachable"); return;
    case Instruction::ExtractValue: {
      auto &e = cast<ExtractValueInst>(i);
      std::string s = "extractvalue " + typed(e.getAggregateOperand());
      for (unsigned idx : e.indices())
        s += ", " + std::to_string(idx);
      assign(s);
      return;
    }
    case Instruction::InsertValue: {
      auto &e = cast<InsertValueInst>(i);
      std::string s =
          "insertvalue " + typed(e.getAggregateOperand()) + ", " + typed(e.getInsertedValueOperand());
      for (unsigned idx : e.indices())
        s += ", " + std::to_string(idx);
      assign(s);
      return;
    }
    case Instruction::Call: {
      auto &c = cast<CallInst>(i);
      std::string args;
      for (unsigned k = 0; k < c.arg_size(); ++k)
        args += (k ? ", " : "") + typed(c.getArgOperand(k));
      std::string callee;
      if (auto *ia = dyn_cast<InlineAsm>(c.getCalledOperand())) {
        callee = std::string("asm ") + (ia->hasSideEffects() ? "sideeffect " : "") + "\"" +
                 ia->getAsmString() + "\", \"" + ia->getConstraintString() + "\"";
      } else if (auto *fn = c.getCalledFunction()) {
        callee = "@" + quote(fn->getName());
      } else {
        throw Error("NVVM printer: indirect calls are not supported");
      }
      std::string s = "call " + type(c.getType()) + " " + callee + "(" + args + ")";
      if (res.empty())
        line(s);
      else
        assign(s);
      return;
    }
    default: break;
    }
    if (auto *b = dyn_cast<BinaryOperator>(&i)) {
      std::string flags;
      if (isa<OverflowingBinaryOperator>(b)) {
        if (b->hasNoUnsignedWrap())
          flags += "nuw ";
        if (b->hasNoSignedWrap())
          flags += "nsw ";
      }
      if (isa<PossiblyExactOperator>(b) && b->isExact())
        flags += "exact ";
      assign(std::string(b->getOpcodeName()) + " " + flags + typed(b->getOperand(0)) + ", " +
             operand(b->getOperand(1)));
      return;
    }
    if (auto *c = dyn_cast<CastInst>(&i)) {
      if (c->getOpcode() == Instruction::BitCast && c->getType()->isPointerTy()) { // i8* to i8*: same value
        assign("bitcast " + typed(c->getOperand(0)) + " to " + type(c->getType()));
        return;
      }
      assign(std::string(c->getOpcodeName()) + " " + typed(c->getOperand(0)) + " to " + type(c->getType()));
      return;
    }
    throw Error(std::string("NVVM printer: unsupported instruction '") + i.getOpcodeName() + "'");
  }

  // -- line information: the DWARF scopes and locations in LLVM 7's syntax (no spFlags),
  // numbered as they are first used. The compile unit is DebugDirectivesOnly, which
  // libNVVM accepts: with LineTablesOnly it marks the PTX `.target sm_XY, debug`, and the
  // driver then compiles it without optimisation (kernels measured 2.7-3.4x slower).

  bool hasLineInfo() const { return m_.getNamedMetadata("llvm.dbg.cu") != nullptr; }

  static std::string escape(StringRef text) {
    std::string out;
    for (char c : text)
      if (c == '"' || c == '\\' || !isprint(static_cast<unsigned char>(c))) {
        char buf[4];
        std::snprintf(buf, sizeof buf, "\\%02X", static_cast<unsigned char>(c));
        out += buf;
      } else {
        out += c;
      }
    return out;
  }

  unsigned md(const MDNode *n) {
    if (auto it = mdIds_.find(n); it != mdIds_.end())
      return it->second;
    unsigned id = unsigned(mdNodes_.size());
    mdIds_[n] = id;
    mdNodes_.emplace_back();
    mdNodes_[id] = mdText(n);
    return id;
  }
  std::string ref(const MDNode *n) { return "!" + std::to_string(md(n)); }

  std::string mdText(const MDNode *n) {
    if (auto *l = dyn_cast<DILocation>(n))
      return "!DILocation(line: " + std::to_string(l->getLine()) +
             ", column: " + std::to_string(l->getColumn()) + ", scope: " + ref(l->getScope()) +
             (l->getInlinedAt() ? ", inlinedAt: " + ref(l->getInlinedAt()) : "") + ")";
    if (auto *sp = dyn_cast<DISubprogram>(n)) {
      std::string empty = "!" + std::to_string(md(MDTuple::get(m_.getContext(), {})));
      std::string type = "!" + std::to_string(mdNodes_.size());
      mdNodes_.push_back("!DISubroutineType(types: " + empty + ")");
      return "distinct !DISubprogram(name: \"" + escape(sp->getName()) + "\", linkageName: \"" +
             escape(sp->getLinkageName()) + "\", scope: " + ref(sp->getFile()) +
             ", file: " + ref(sp->getFile()) + ", line: " + std::to_string(sp->getLine()) +
             ", type: " + type +
             ", isLocal: false, isDefinition: true, scopeLine: " + std::to_string(sp->getScopeLine()) +
             ", isOptimized: true, unit: " + ref(sp->getUnit()) + ")";
    }
    if (auto *f = dyn_cast<DIFile>(n))
      return "!DIFile(filename: \"" + escape(f->getFilename()) + "\", directory: \"" +
             escape(f->getDirectory()) + "\")";
    if (auto *cu = dyn_cast<DICompileUnit>(n))
      return "distinct !DICompileUnit(language: DW_LANG_C99, file: " + ref(cu->getFile()) +
             ", producer: \"cutwin\", isOptimized: true, runtimeVersion: 0, emissionKind: "
             "DebugDirectivesOnly)";
    if (auto *b = dyn_cast<DILexicalBlock>(n))
      return "distinct !DILexicalBlock(scope: " + ref(b->getScope()) + ", file: " + ref(b->getFile()) +
             ", line: " + std::to_string(b->getLine()) + ", column: " + std::to_string(b->getColumn()) + ")";
    if (auto *bf = dyn_cast<DILexicalBlockFile>(n))
      return "!DILexicalBlockFile(scope: " + ref(bf->getScope()) + ", file: " + ref(bf->getFile()) +
             ", discriminator: " + std::to_string(bf->getDiscriminator()) + ")";
    if (auto *t = dyn_cast<MDTuple>(n); t && t->getNumOperands() == 0)
      return "!{}";
    throw Error("NVVM printer: unsupported debug metadata");
  }

  void printMetadata() {
    std::string units; // every compile unit gets its number before the other nodes are added
    if (hasLineInfo())
      for (const MDNode *cu : m_.getNamedMetadata("llvm.dbg.cu")->operands())
        units += (units.empty() ? "" : ", ") + ref(cu);
    std::vector<std::string> nodes = mdNodes_;
    std::string annotations;
    if (const NamedMDNode *md = m_.getNamedMetadata("nvvm.annotations")) {
      for (const MDNode *n : md->operands()) {
        auto *fn = mdconst::dyn_extract<Function>(n->getOperand(0));
        if (!fn)
          continue;
        annotations += (annotations.empty() ? "!" : ", !") + std::to_string(nodes.size());
        std::string node = "!{" + type(fn->getFunctionType()) + "* @" + quote(fn->getName());
        for (unsigned k = 1; k + 1 < n->getNumOperands(); k += 2) { // (key, i32 value) pairs
          auto *key = dyn_cast<MDString>(n->getOperand(k));
          auto *val = mdconst::dyn_extract<ConstantInt>(n->getOperand(k + 1));
          if (key && val)
            node += ", !\"" + key->getString().str() + "\", i32 " + std::to_string(val->getSExtValue());
        }
        nodes.push_back(node + "}");
      }
    }
    os_ << "\n!nvvm.annotations = !{" << annotations << "}\n";
    os_ << "!nvvmir.version = !{!" << nodes.size() << "}\n";
    // NVVM IR 2.0; with line information also the debug metadata version, 3.1
    nodes.push_back(hasLineInfo() ? "!{i32 2, i32 0, i32 3, i32 1}" : "!{i32 2, i32 0}");
    if (hasLineInfo()) {
      os_ << "!llvm.dbg.cu = !{" << units << "}\n";
      os_ << "!llvm.module.flags = !{!" << nodes.size() << "}\n";
      nodes.push_back("!{i32 2, !\"Debug Info Version\", i32 3}");
    }
    for (size_t k = 0; k < nodes.size(); ++k)
      os_ << "!" << k << " = " << nodes[k] << "\n";
  }

  const Module &m_;
  std::ostringstream os_;
  std::map<const Value *, std::string> names_;
  std::map<const BasicBlock *, std::string> blocks_;
  std::map<const MDNode *, unsigned> mdIds_;
  std::vector<std::string> mdNodes_; ///< debug metadata, printed first (ids 0..)
  std::string dbg_;                  ///< ", !dbg !N" for the instruction being printed
  unsigned counter_ = 0, temp_ = 0;
};

} // namespace

std::string printNvvmIR(const Module &m) { return Printer(m).run(); }

} // namespace cutwin::gpu
