// Lowering of functions: the module-level entry points (kernels), declarations, bodies
// and their debug info, and what a function needs while its statements lower (slots, sites).
#include "frontend/lower/lowerer.h"

#include "frontend/ir/inline_calls.h"

#include "frontend/ir/intrinsics.h"

#include <algorithm>
#include <functional>
#include <tuple>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace cutwin::ir {

using namespace llvm;
using fe::TypeKind;

const char *const kKernelIRDataLayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";
const char *const kKernelIRTriple = "nvptx64-nvidia-cuda";

void addLinkedFiles(const fe::Typer &typer, std::vector<std::string> &files) {
  for (auto &s : typer.specs()) {
    if (s->options().linkComputedAt.line)
      s->file().error(s->options().linkComputedAt,
                      "@cuda.jit option 'link': file names must be string literals");
    for (auto &f : s->options().link)
      if (std::find(files.begin(), files.end(), f) == files.end())
        files.push_back(f);
  }
}

KernelIR startKernelIR(const fe::Typer &typer, const fe::FunctionSpec &fn, const LowerOptions &opts,
                       const std::string &irName) {
  KernelIR out;
  out.context = std::make_unique<LLVMContext>();
  out.module = std::make_unique<llvm::Module>(fn.def->name, *out.context);
  out.module->setDataLayout(kKernelIRDataLayout);
  out.module->setTargetTriple(kKernelIRTriple);
  out.info.name = fn.def->name;
  out.info.irName = irName;
  out.info.file = fn.file().path();
  out.info.argTypes = fn.argTypes;
  out.info.debug = fn.options().debug;
  out.info.lineinfo = fn.options().lineinfo;
  out.info.debuggerView = out.info.debug && opts.debuggerView && !opts.lineDirectivesOnly;
  out.info.fastmath = fn.options().fastmath;
  out.info.opt = fn.options().debug ? 0 : fn.options().opt;
  out.info.launchBounds = fn.options().launchBounds;
  out.info.boundscheck = opts.boundscheck;
  out.info.sanitize = opts.sanitize;
  return out;
}

void finishKernelIR(const fe::Typer &typer, KernelIR &out) {
  addLinkedFiles(typer, out.info.link);
  std::string err;
  raw_string_ostream os(err);
  if (verifyModule(*out.module, &os))
    throw Error(std::string("internal error: ") +
                (out.info.exported ? "IR of device function '" : "kernel IR of '") + out.info.name +
                "' is invalid:\n" + os.str());
}

KernelIR lowerKernel(const fe::Typer &typer, const fe::FunctionSpec &kernel, const LowerOptions &opts) {
  KernelIR out = startKernelIR(typer, kernel, opts, kernel.irName);
  out.info.layout = computeArgLayout(kernel.argTypes);
  for (const fe::Param &p : kernel.def->params)
    out.info.argNames.push_back(p.name);
  Lowerer(typer, opts, out).lowerKernelEntry(kernel);
  finishKernelIR(typer, out);
  return out;
}

Lowerer::Lowerer(const fe::Typer &typer, const LowerOptions &opts, KernelIR &out)
    : typer_(typer), opts_(opts), out_(out), ctx_(*out.context), mod_(*out.module), b_(ctx_) {
  if (opts_.debugInfo) {
    mod_.addModuleFlag(llvm::Module::Warning, "Debug Info Version", DEBUG_METADATA_VERSION);
    mod_.addModuleFlag(llvm::Module::Warning, "Dwarf Version", 4);
    dib_ = std::make_unique<DIBuilder>(mod_);
    diFile_ = fileFor(out.info.file);
    // C++: gdb's cutwin extension indexes arrays (a[i]) with xmethods, which need C++ types
    diCU_ = dib_->createCompileUnit(
        dwarf::DW_LANG_C_plus_plus, diFile_, "cutwin", /*isOptimized=*/false, "", 0, "",
        opts_.lineDirectivesOnly ? DICompileUnit::DebugDirectivesOnly : DICompileUnit::FullDebug);
  }
}

Lowerer::~Lowerer() {
  if (dib_ && !diFinalized_)
    dib_->finalize();
}

// ---- functions ---------------------------------------------------------------------------------

void Lowerer::setLoc(SourceLoc loc) {
  if (diSub_ && loc.line)
    b_.SetCurrentDebugLocation(DILocation::get(ctx_, loc.line, loc.col, diSub_));
}

void Lowerer::setGlueLoc() {
  // Line 0: the branches joining a statement's paths belong to no line, or a debugger's
  // breakpoint on the statement last lowered could land there, after the statements between.
  if (diSub_)
    b_.SetCurrentDebugLocation(DILocation::get(ctx_, 0, 0, diSub_));
}

bool Lowerer::terminated() const { return b_.GetInsertBlock()->getTerminator() != nullptr; }

void Lowerer::ensureInsertable() {
  if (terminated())
    b_.SetInsertPoint(BasicBlock::Create(ctx_, "dead", fn_));
}

AllocaInst *Lowerer::entryAlloca(llvm::Type *t, const Twine &name) {
  IRBuilder<> eb(allocaBlock_, allocaBlock_->begin());
  return eb.CreateAlloca(t, nullptr, name);
}

AllocaInst *Lowerer::localSlot(const std::string &name) {
  auto it = slots_.find(name);
  if (it == slots_.end())
    throw Error("internal error: no slot for variable '" + name + "'");
  return it->second;
}

DIFile *Lowerer::fileFor(const std::string &path) {
  auto &f = diFiles_[path];
  if (!f) {
    std::string dir = ".", name = path;
    if (auto slash = path.rfind('/'); slash != std::string::npos) {
      dir = path.substr(0, slash);
      name = path.substr(slash + 1);
    }
    f = dib_->createFile(name, dir);
  }
  return f;
}

unsigned Lowerer::site(SourceLoc loc, const char *what) {
  out_.info.sites.push_back({loc, spec_->file().path(), spec_->def->name, what, ""});
  return unsigned(out_.info.sites.size() - 1);
}

llvm::Function *Lowerer::declareFunction(const fe::FunctionSpec &spec) {
  if (auto it = functions_.find(&spec); it != functions_.end())
    return it->second;
  std::vector<llvm::Type *> params;
  for (auto &t : spec.argTypes)
    if (!fe::isStaticType(t)) // types and functions passed as arguments have no run-time value
      params.push_back(llvmType(t));
  params.push_back(PointerType::get(ctx_, 1)); // error record
  auto *ft = FunctionType::get(llvmType(spec.returnType), params, false);
  auto *fn = llvm::Function::Create(ft, GlobalValue::InternalLinkage, spec.irName, mod_);
  fn->addFnAttr(Attribute::NoUnwind);
  if (spec.options().inlineAlways)
    fn->addFnAttr(kInlineAttribute); // the inline step inlines its calls (inline_calls.h)
  if (spec.options().forceInline)
    fn->addFnAttr(Attribute::AlwaysInline);
  functions_[&spec] = fn;
  pending_.push_back(&spec);
  return fn;
}

void Lowerer::lowerKernelEntry(const fe::FunctionSpec &kernel) {
  const ArgLayout &layout = out_.info.layout;
  std::vector<llvm::Type *> params;
  for (auto &s : layout.slots) {
    switch (s.role) {
    case ParamSlot::Role::Scalar: params.push_back(memType(s.scalar)); break;
    case ParamSlot::Role::Data:
    case ParamSlot::Role::ErrorRecord: params.push_back(PointerType::get(ctx_, 1)); break;
    default: params.push_back(llvm::Type::getInt64Ty(ctx_)); break;
    }
  }
  auto *fn = llvm::Function::Create(FunctionType::get(llvm::Type::getVoidTy(ctx_), params, false),
                                    GlobalValue::ExternalLinkage, kernel.irName, mod_);
  fn->addFnAttr(Attribute::NoUnwind);
  fn->addFnAttr("cutwin-kernel");
  mod_.getOrInsertNamedMetadata("cutwin.kernels")->addOperand(MDNode::get(ctx_, {ValueAsMetadata::get(fn)}));
  functions_[&kernel] = fn;
  lowerBody(kernel, fn);
  lowerPendingBodies();
}

void Lowerer::lowerPendingBodies() {
  while (!pending_.empty()) {
    const fe::FunctionSpec *spec = pending_.back();
    pending_.pop_back();
    lowerBody(*spec, functions_[spec]);
  }
  if (dib_) {
    dib_->finalize();
    diFinalized_ = true;
  }
}

void Lowerer::lowerBody(const fe::FunctionSpec &spec, llvm::Function *fn) {
  spec_ = &spec;
  fn_ = fn;
  slots_.clear();
  loops_.clear();
  debugFrame_ = nullptr;
  diSub_ = nullptr;
  const fe::FunctionDefStmt &def = *spec.def;
  if (dib_) {
    // A function's lines are in its own file (device functions may come from other modules).
    diFile_ = fileFor(spec.file().path());
    auto *st = dib_->createSubroutineType(dib_->getOrCreateTypeArray({}));
    diSub_ = dib_->createFunction(diFile_, def.name, spec.irName, diFile_, def.loc.line, st, def.loc.line,
                                  DINode::FlagPrototyped, DISubprogram::SPFlagDefinition);
    fn->setSubprogram(diSub_);
  }
  allocaBlock_ = BasicBlock::Create(ctx_, "entry", fn);
  auto *body = BasicBlock::Create(ctx_, "body", fn);
  exitBlock_ = BasicBlock::Create(ctx_, "exit", fn);
  b_.SetInsertPoint(body);
  b_.SetCurrentDebugLocation(DebugLoc());
  setLoc(def.loc);

  // Every variable gets a zero-initialised slot; mem2reg turns them into SSA values. The
  // versions of a name (`v`, `v$1`: variable_versions.h) whose types agree share one: their
  // values never overlap, and the debugger shows the one variable of the source.
  std::vector<std::tuple<std::string, fe::Type, AllocaInst *>> versionSlots;
  for (auto &local : spec.locals) {
    const std::string &name = local.first; // (named, not bound: lambdas below capture them)
    const fe::Type &t = local.second;
    if (fe::isStaticType(t))
      continue; // a type or function: known at compile time, nothing to store
    std::string base = name.substr(0, name.find('$'));
    auto shared = std::find_if(versionSlots.begin(), versionSlots.end(),
                               [&](auto &v) { return std::get<0>(v) == base && std::get<1>(v) == t; });
    if (shared != versionSlots.end()) {
      slots_[name] = std::get<2>(*shared);
      continue;
    }
    AllocaInst *a = entryAlloca(llvmType(t), name + ".addr");
    versionSlots.emplace_back(base, t, a);
    slots_[name] = a;
    b_.CreateStore(Constant::getNullValue(a->getAllocatedType()), a);
    if (dib_)
      if (DIType *dt = diType(t)) {
        // arguments are parameters (gdb's `info args`), numbered from 1 in the Python signature
        auto param =
            std::find_if(def.params.begin(), def.params.end(), [&](auto &p) { return p.name == name; });
        auto *var =
            param != def.params.end()
                ? dib_->createParameterVariable(diSub_, name, unsigned(param - def.params.begin()) + 1,
                                                diFile_, def.loc.line, dt, true)
                : dib_->createAutoVariable(diSub_, name, diFile_, def.loc.line, dt, true);
        dib_->insertDeclare(a, var, dib_->createExpression(), DILocation::get(ctx_, def.loc.line, 0, diSub_),
                            body);
      }
  }
  retSlot_ =
      spec.returnType.kind == TypeKind::None ? nullptr : entryAlloca(llvmType(spec.returnType), "retval");
  if (retSlot_)
    b_.CreateStore(Constant::getNullValue(retSlot_->getAllocatedType()), retSlot_);

  if (spec.isKernel) {
    // Rebuild Python-level arguments from the flattened ABI parameters.
    const ArgLayout &layout = out_.info.layout;
    std::function<Value *(const Type &, const std::string &, size_t &)> build =
        [&](const Type &t, const std::string &name, size_t &slot) -> Value * {
      auto param = [&](const std::string &n) {
        Argument *p = fn->getArg(unsigned(slot++));
        p->setName(n);
        return p;
      };
      if (t.isScalar()) {
        Value *v = param(name);
        return t.isBool() ? b_.CreateTrunc(v, scalarType(Scalar::Bool)) : v;
      }
      if (t.isRecord())
        return param(name); // the address of its bytes
      if (t.isArray()) {
        Value *data = param(name + ".data");
        std::vector<Value *> shape, strides;
        for (unsigned k = 0; k < t.ndim; ++k)
          shape.push_back(param(name + ".shape" + std::to_string(k)));
        for (unsigned k = 0; k < t.ndim; ++k)
          strides.push_back(param(name + ".stride" + std::to_string(k)));
        return buildArray(t, data, shape, strides);
      }
      Value *agg = UndefValue::get(llvmType(t));
      for (unsigned i = 0; i < t.elems.size(); ++i)
        agg = b_.CreateInsertValue(agg, build(t.elems[i], name + "." + std::to_string(i), slot), {i});
      return agg;
    };
    size_t slot = 0;
    for (unsigned i = 0; i < spec.argTypes.size(); ++i) {
      const std::string &pname = def.params[i].name;
      Value *v = build(spec.argTypes[i], pname, slot);
      b_.CreateStore(convert(v, spec.argTypes[i], spec.locals.at(pname)), localSlot(pname));
    }
    errRecord_ = fn->getArg(unsigned(layout.slots.size() - 1));
  } else {
    unsigned arg = 0;
    for (unsigned i = 0; i < spec.argTypes.size(); ++i) {
      if (fe::isStaticType(spec.argTypes[i]))
        continue;
      const std::string &pname = def.params[i].name;
      fn->getArg(arg)->setName(pname);
      b_.CreateStore(convert(fn->getArg(arg), spec.argTypes[i], spec.locals.at(pname)), localSlot(pname));
      ++arg;
    }
    errRecord_ = fn->getArg(arg);
  }
  errRecord_->setName("cutwin.err");
  if (out_.info.debug)
    enterDebugFrame();
  if (out_.info.debuggerView && dib_)
    declareCudaVariable();

  lowerBlock(def.body);
  if (!terminated())
    b_.CreateBr(exitBlock_);

  IRBuilder<> eb(allocaBlock_);
  eb.CreateBr(body);
  b_.SetInsertPoint(exitBlock_);
  setLoc(def.loc);
  if (out_.info.debug)
    leaveDebugFrame();
  if (retSlot_)
    b_.CreateRet(b_.CreateLoad(retSlot_->getAllocatedType(), retSlot_));
  else
    b_.CreateRetVoid();
}

} // namespace cutwin::ir
