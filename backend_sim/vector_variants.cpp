#include "backend_sim/vector_variants.h"

#include "backend_sim/approx_inline.h"
#include "backend_sim/host_callbacks.h"
#include "backend_sim/libdevice_cpu.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>

#include <set>
#include <string>
#include <vector>

namespace cutwin::sim {

using namespace llvm;

namespace {

constexpr const char *kVariantTag = "__v"; ///< `<helper>__v<lanes>`

const std::set<std::string> &hostSymbols() {
  static const std::set<std::string> names = [] {
    std::set<std::string> s; // (isPureHelper keeps those of numbers: the math helpers)
    for (auto &[name, addr] : libdeviceHostSymbols())
      s.insert(name);
    for (auto &[name, addr] : hostCallbackSymbols())
      s.insert(name);
    return s;
  }();
  return names;
}

/// The helpers with variants: libdevice's host helpers taking and returning numbers.
bool isPureHelper(const Function &f) {
  if (!f.isDeclaration())
    return false;
  if (!hostSymbols().count(f.getName().str()))
    return false;
  if (!f.getReturnType()->isFloatingPointTy())
    return false;
  for (const Argument &a : f.args())
    if (!a.getType()->isFloatingPointTy() && !a.getType()->isIntegerTy())
      return false;
  return true;
}

/// Lane counts worth offering: 128, 256 and 512 bits of the result type.
std::vector<unsigned> laneCounts(Type *t) {
  return t->isFloatTy() ? std::vector<unsigned>{4, 8, 16} : std::vector<unsigned>{2, 4, 8};
}

/// Integer parameters (operation and rounding-mode codes, constants at every call) stay
/// scalar ('u'); the others become vectors ('v').
bool uniform(const Argument &a) { return a.getType()->isIntegerTy(32); }

FunctionType *vectorType(Function &f, unsigned lanes) {
  std::vector<Type *> params;
  for (Argument &a : f.args())
    params.push_back(uniform(a) ? a.getType() : FixedVectorType::get(a.getType(), lanes));
  return FunctionType::get(FixedVectorType::get(f.getReturnType(), lanes), params, false);
}

} // namespace

void declareVectorVariants(Module &m) {
  // libdevice keeps some internals out of line (__internal_accurate_pow); a call to them
  // would keep the loop scalar, so they may be inlined here.
  for (Function &f : m)
    if (!f.isDeclaration() && f.hasLocalLinkage() && f.getName().startswith("__internal_"))
      f.removeFnAttr(Attribute::NoInline);
  std::vector<Constant *> keep;
  for (Function &f : m) {
    if (!isPureHelper(f))
      continue;
    f.setDoesNotThrow();
    f.setWillReturn();
    f.setDoesNotAccessMemory();
    f.addFnAttr(Attribute::Speculatable);
    std::string variants, params;
    for (Argument &a : f.args())
      params += uniform(a) ? "u" : "v";
    for (unsigned lanes : laneCounts(f.getReturnType())) {
      std::string name = f.getName().str() + kVariantTag + std::to_string(lanes);
      Function *v = Function::Create(vectorType(f, lanes), GlobalValue::ExternalLinkage, name, m);
      v->setAttributes(f.getAttributes());
      keep.push_back(v);
      variants += (variants.empty() ? "" : ",") + ("_ZGV_LLVM_N" + std::to_string(lanes)) + params + "_" +
                  f.getName().str() + "(" + name + ")";
    }
    for (User *u : f.users()) {
      auto *ci = dyn_cast<CallInst>(u);
      if (!ci || ci->getCalledFunction() != &f)
        continue;
      // a uniform parameter must be one value for all lanes: a constant
      bool uniformConstant = true;
      for (Argument &a : f.args())
        uniformConstant = uniformConstant && (!uniform(a) || isa<Constant>(ci->getArgOperand(a.getArgNo())));
      if (uniformConstant)
        ci->addFnAttr(Attribute::get(m.getContext(), "vector-function-abi-variant", variants));
    }
  }
  if (keep.empty())
    return;
  // Kept until the vectoriser has seen them (unused declarations are removed early).
  auto *ptr = PointerType::get(m.getContext(), 0);
  auto *arr = ArrayType::get(ptr, keep.size());
  auto *used = new GlobalVariable(m, arr, false, GlobalValue::AppendingLinkage, ConstantArray::get(arr, keep),
                                  "llvm.compiler.used");
  used->setSection("llvm.metadata");
}

void defineVectorVariants(Module &m) {
  if (GlobalVariable *used = m.getGlobalVariable("llvm.compiler.used"))
    used->eraseFromParent();
  std::vector<Function *> variants;
  for (Function &f : m)
    if (f.isDeclaration() && f.getName().contains(kVariantTag))
      variants.push_back(&f);
  bool inlined = false;
  for (Function *v : variants) {
    if (v->use_empty()) {
      v->eraseFromParent();
      continue;
    }
    StringRef name = v->getName();
    auto *vt = cast<FixedVectorType>(v->getReturnType());
    // the scalar helper, declared again if the optimiser dropped its last scalar call
    std::vector<Type *> params;
    for (Argument &a : v->args())
      params.push_back(a.getType()->getScalarType());
    std::string helper = name.substr(0, name.rfind(kVariantTag)).str();
    v->setLinkage(GlobalValue::InternalLinkage);
    IRBuilder<> b(BasicBlock::Create(m.getContext(), "lanes", v));
    if (Value *unit = emitModelledUnit(b, helper, v->getArg(0))) { // the lookups as gathers
      b.CreateRet(unit);
      v->addFnAttr(Attribute::AlwaysInline); // a call would spill every live vector register
      inlined = true;
      continue;
    }
    if (hostSymbols().count(helper + kLanesSuffix)) {
      // the helper's form over lanes, through memory: in -> out
      Type *ptr = PointerType::get(m.getContext(), 0);
      FunctionCallee lanes = m.getOrInsertFunction(
          helper + kLanesSuffix, FunctionType::get(b.getVoidTy(), {ptr, ptr, b.getInt32Ty()}, false));
      Value *in = b.CreateAlloca(vt), *out = b.CreateAlloca(vt);
      b.CreateStore(v->getArg(0), in);
      b.CreateCall(lanes, {in, out, b.getInt32(vt->getNumElements())});
      b.CreateRet(b.CreateLoad(vt, out));
      continue;
    }
    FunctionCallee scalar = m.getOrInsertFunction(
        helper, FunctionType::get(vt->getElementType(), params, false), v->getAttributes());
    Value *out = PoisonValue::get(vt);
    for (unsigned lane = 0; lane < vt->getNumElements(); ++lane) {
      std::vector<Value *> args;
      for (Argument &a : v->args())
        args.push_back(a.getType()->isVectorTy() ? b.CreateExtractElement(&a, lane) : &a);
      out = b.CreateInsertElement(out, b.CreateCall(scalar, args), lane);
    }
    b.CreateRet(out);
  }
  if (!inlined)
    return;
  PassBuilder pb;
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  ModulePassManager mpm;
  mpm.addPass(AlwaysInlinerPass());
  mpm.run(m, mam);
}

} // namespace cutwin::sim
