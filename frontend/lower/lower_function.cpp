// Lowering of functions and statements; the module-level entry point.
#include "frontend/lower/lowerer.h"

#include "frontend/ir/intrinsics.h"

#include <algorithm>
#include <functional>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/MDBuilder.h>
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
  out.info.debuggerView = out.info.debug && opts.debuggerView && !opts.lineDirectivesOnly;
  out.info.fastmath = fn.options().fastmath;
  out.info.opt = fn.options().debug ? 0 : fn.options().opt;
  out.info.launchBounds = fn.options().launchBounds;
  out.info.boundscheck = opts.boundscheck;
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

// ---- types -------------------------------------------------------------------------------------

llvm::Type *Lowerer::scalarType(Scalar s) {
  switch (s) {
  case Scalar::Bool: return llvm::Type::getInt1Ty(ctx_);
  case Scalar::F16: return llvm::Type::getHalfTy(ctx_);
  case Scalar::F32: return llvm::Type::getFloatTy(ctx_);
  case Scalar::F64: return llvm::Type::getDoubleTy(ctx_);
  case Scalar::C64:
    return StructType::get(ctx_, {llvm::Type::getFloatTy(ctx_), llvm::Type::getFloatTy(ctx_)});
  case Scalar::C128:
    return StructType::get(ctx_, {llvm::Type::getDoubleTy(ctx_), llvm::Type::getDoubleTy(ctx_)});
  default: return llvm::Type::getIntNTy(ctx_, fe::bitWidth(s));
  }
}

llvm::Type *Lowerer::memType(Scalar s) {
  return s == Scalar::Bool ? llvm::Type::getInt8Ty(ctx_) : scalarType(s);
}

unsigned Lowerer::addrSpace(fe::MemSpace s) const {
  // Local arrays are allocas: generic pointers on both targets.
  return s == fe::MemSpace::Local ? 0 : unsigned(s);
}

StructType *Lowerer::arrayType(const Type &t) {
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  auto *dims = ArrayType::get(i64, t.ndim);
  return StructType::get(ctx_, {PointerType::get(ctx_, addrSpace(t.space)), dims, dims});
}

llvm::Type *Lowerer::llvmType(const Type &t) {
  switch (t.kind) {
  case TypeKind::Scalar: return scalarType(t.scalar);
  case TypeKind::Array: return arrayType(t);
  case TypeKind::Tuple: {
    std::vector<llvm::Type *> el;
    for (auto &e : t.elems)
      el.push_back(llvmType(e));
    return StructType::get(ctx_, el);
  }
  case TypeKind::None: return llvm::Type::getVoidTy(ctx_);
  case TypeKind::Optional: return StructType::get(ctx_, {llvmType(t.elems[0]), llvm::Type::getInt1Ty(ctx_)});
  case TypeKind::Module:
    if (t.path == "cuda.cg.grid_group")
      return StructType::get(ctx_); // an object with methods only
    break;
  case TypeKind::Unknown: // (static values: no run-time value to hold)
  case TypeKind::Range:
  case TypeKind::Function:
  case TypeKind::TypeObject:
  case TypeKind::DeviceFunction:
  case TypeKind::ForeignFunction:
  case TypeKind::String:
  case TypeKind::Slice:
  case TypeKind::Iterator: break;
  }
  throw Error("internal error: no IR type for " + t.str());
}

DIType *Lowerer::diType(const Type &t) {
  if (t.isArray() && !t.isRecordArray() && !t.pointer)
    return diArrayType(t);
  if (!t.isScalar())
    return nullptr;
  bool complex = t.scalar == Scalar::C64 || t.scalar == Scalar::C128;
  unsigned enc = complex                    ? dwarf::DW_ATE_complex_float
                 : t.scalar == Scalar::Bool ? dwarf::DW_ATE_boolean
                 : fe::isFloat(t.scalar)    ? dwarf::DW_ATE_float
                 : fe::isSigned(t.scalar)   ? dwarf::DW_ATE_signed
                                            : dwarf::DW_ATE_unsigned;
  return dib_->createBasicType(fe::scalarName(t.scalar), fe::byteSize(t.scalar) * 8, enc);
}

/// An array's descriptor as the struct it is in memory, named after numba's type
/// (`array(float32, 1d, C)`): `data` points at the elements, then `shape` and byte
/// `strides`. gdb's cutwin extension prints and indexes it as an array.
DIType *Lowerer::diArrayType(const Type &t) {
  Type elemType = Type::scalarOf(t.scalar);
  DIType *elem = diType(elemType);
  if (!elem)
    return nullptr;
  auto *i64 = dib_->createBasicType("int64", 64, dwarf::DW_ATE_signed);
  auto *dims = dib_->createArrayType(64 * t.ndim, 64, i64,
                                     dib_->getOrCreateArray({dib_->getOrCreateSubrange(0, int64_t(t.ndim))}));
  const char *layout = t.layout == fe::Layout::C ? "C" : t.layout == fe::Layout::F ? "F" : "A";
  std::string name =
      std::string("array(") + fe::scalarName(t.scalar) + ", " + std::to_string(t.ndim) + "d, " + layout + ")";
  const char *memory = t.space == fe::MemSpace::Shared  ? "shared"
                       : t.space == fe::MemSpace::Local ? "local"
                                                        : "";
  if (*memory)
    name += " in " + std::string(memory) + " memory";
  uint64_t size = 64 + 2 * 64 * t.ndim;
  auto *st = dib_->createStructType(diCU_, name, diFile_, 0, size, 64, DINode::FlagZero, nullptr, {});
  Metadata *members[] = {
      dib_->createMemberType(st, "data", diFile_, 0, 64, 64, 0, DINode::FlagZero,
                             dib_->createPointerType(elem, 64)),
      dib_->createMemberType(st, "shape", diFile_, 0, 64 * t.ndim, 64, 64, DINode::FlagZero, dims),
      dib_->createMemberType(st, "strides", diFile_, 0, 64 * t.ndim, 64, 64 + 64 * t.ndim, DINode::FlagZero,
                             dims),
  };
  dib_->replaceArrays(st, dib_->getOrCreateArray(members));
  return st;
}

/// `cuda` in a debug function's frame: threadIdx, blockIdx, blockDim and gridDim as
/// structs of x, y, z, so that a debugger can show them (`print cuda.threadIdx`).
void Lowerer::declareCudaVariable() {
  auto *u32 = dib_->createBasicType("uint32", 32, dwarf::DW_ATE_unsigned);
  auto *dim3 = dib_->createStructType(diCU_, "dim3", diFile_, 0, 96, 32, DINode::FlagZero, nullptr, {});
  Metadata *xyz[3];
  for (unsigned k = 0; k < 3; ++k)
    xyz[k] = dib_->createMemberType(dim3, std::string(1, char('x' + k)), diFile_, 0, 32, 32, 32 * k,
                                    DINode::FlagZero, u32);
  dib_->replaceArrays(dim3, dib_->getOrCreateArray(xyz));
  auto *st = dib_->createStructType(diCU_, "cuda", diFile_, 0, 4 * 96, 32, DINode::FlagZero, nullptr, {});
  const char *fields[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
  Intrinsic sources[4][3] = {{Intrinsic::TidX, Intrinsic::TidY, Intrinsic::TidZ},
                             {Intrinsic::CtaidX, Intrinsic::CtaidY, Intrinsic::CtaidZ},
                             {Intrinsic::NtidX, Intrinsic::NtidY, Intrinsic::NtidZ},
                             {Intrinsic::NctaidX, Intrinsic::NctaidY, Intrinsic::NctaidZ}};
  Metadata *members[4];
  for (unsigned k = 0; k < 4; ++k)
    members[k] = dib_->createMemberType(st, fields[k], diFile_, 0, 96, 32, 96 * k, DINode::FlagZero, dim3);
  dib_->replaceArrays(st, dib_->getOrCreateArray(members));
  auto *i32 = llvm::Type::getInt32Ty(ctx_);
  AllocaInst *slot = entryAlloca(ArrayType::get(i32, 12), "cuda");
  for (unsigned k = 0; k < 12; ++k)
    b_.CreateStore(b_.CreateCall(getIntrinsic(mod_, sources[k / 3][k % 3])),
                   b_.CreateConstInBoundsGEP2_32(slot->getAllocatedType(), slot, 0, k));
  auto *var = dib_->createAutoVariable(diSub_, "cuda", diFile_, spec_->def->loc.line, st, true,
                                       DINode::FlagArtificial);
  dib_->insertDeclare(slot, var, dib_->createExpression(),
                      DILocation::get(ctx_, spec_->def->loc.line, 0, diSub_), b_.GetInsertBlock());
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
  if (dib_)
    dib_->finalize();
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

  // Every variable gets a zero-initialised slot; mem2reg turns them into SSA values.
  for (auto &[name, t] : spec.locals) {
    if (fe::isStaticType(t))
      continue; // a type or function: known at compile time, nothing to store
    AllocaInst *a = entryAlloca(llvmType(t), name + ".addr");
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

// ---- statements --------------------------------------------------------------------------------

void Lowerer::lowerBlock(const fe::Block &blk) {
  for (auto &s : blk) {
    ensureInsertable();
    lowerStmt(*s);
    if (auto k = spec_->constantBranches.find(s.get()); k != spec_->constantBranches.end() && terminated())
      return; // a pruned if that returned: the rest is unreachable (and not typed)
  }
}

void Lowerer::lowerStmt(const fe::Stmt &s) {
  setLoc(s.loc);
  if (out_.info.debug && !terminated()) // a line event: stepping and line breakpoints stop here
    lineEvent(s.loc);
  switch (s.kind) {
  case fe::StmtKind::Expr: {
    auto &e = static_cast<const fe::ExprStmt &>(s);
    if (auto *c = fe::dyn<fe::ConstantExpr>(e.value.get()); c && c->type == fe::ConstantExpr::Type::Str)
      return;
    lowerExpr(*e.value);
    return;
  }
  case fe::StmtKind::Assign: {
    auto &a = static_cast<const fe::AssignStmt &>(s);
    Value *v = lowerExpr(*a.value);
    const Type &vt = info(*a.value).type;
    for (auto &t : a.targets)
      lowerAssign(*t, v, vt);
    return;
  }
  case fe::StmtKind::AnnAssign: {
    auto &a = static_cast<const fe::AnnAssignStmt &>(s);
    if (a.value)
      lowerAssign(*a.target, lowerExpr(*a.value), info(*a.value).type);
    return;
  }
  case fe::StmtKind::AugAssign: return lowerAugAssign(static_cast<const fe::AugAssignStmt &>(s));
  case fe::StmtKind::If: return lowerIf(static_cast<const fe::IfStmt &>(s));
  case fe::StmtKind::While: return lowerWhile(static_cast<const fe::WhileStmt &>(s));
  case fe::StmtKind::For: return lowerFor(static_cast<const fe::ForStmt &>(s));
  case fe::StmtKind::Break: b_.CreateBr(loops_.back().breakTo); return;
  case fe::StmtKind::Continue: b_.CreateBr(loops_.back().continueTo); return;
  case fe::StmtKind::Return: return lowerReturn(static_cast<const fe::ReturnStmt &>(s));
  case fe::StmtKind::Assert: return lowerAssert(static_cast<const fe::AssertStmt &>(s));
  case fe::StmtKind::Raise: return lowerRaise(static_cast<const fe::RaiseStmt &>(s));
  case fe::StmtKind::Pass:
  case fe::StmtKind::Global: return;
  case fe::StmtKind::FunctionDef: // (module level only: the typer refuses them in kernels)
  case fe::StmtKind::Import:
  case fe::StmtKind::ImportFrom:
  case fe::StmtKind::Unsupported: break;
  }
  throw Error("internal error: statement kind not lowered");
}

void Lowerer::lowerAssign(const fe::Expr &target, Value *v, const Type &vt) {
  if (auto *n = fe::dyn<fe::NameExpr>(&target)) {
    const Type &lt = spec_->locals.at(n->id);
    if (fe::isStaticType(lt))
      return; // `f = cuda.atomic.add`: calls through f are resolved when typed
    b_.CreateStore(convert(v, vt, lt), localSlot(n->id));
    return;
  }
  if (auto *t = fe::asTupleLike(&target)) {
    for (unsigned i = 0; i < t->elts.size(); ++i)
      lowerAssign(*t->elts[i], b_.CreateExtractValue(v, {i}), vt.elems[i]);
    return;
  }
  auto &sub = static_cast<const fe::SubscriptExpr &>(target);
  if (info(sub).type.isArray())
    return storeIntoView(sub, v, vt, sub.loc);
  Type elem;
  Value *addr = subscriptAddress(sub, elem);
  storeElement(addr, convert(v, vt, elem), elem.scalar);
}

void Lowerer::lowerAugAssign(const fe::AugAssignStmt &a) {
  const fe::ExprInfo &op = spec_->augOps.at(&a);
  Value *addr = nullptr;
  Type cur;
  Value *curVal;
  if (auto *n = fe::dyn<fe::NameExpr>(a.target.get())) {
    cur = spec_->locals.at(n->id);
    curVal = b_.CreateLoad(llvmType(cur), localSlot(n->id));
  } else {
    addr = subscriptAddress(static_cast<const fe::SubscriptExpr &>(*a.target), cur);
    curVal = loadElement(addr, cur.scalar);
  }
  Value *rhs = lowerExpr(*a.value);
  const Type &rt = info(*a.value).type;
  // Same operand handling as a BinOpExpr (see lowerBinOp).
  Value *l = convertScalar(curVal, cur.scalar, op.operandTypes[0]);
  Value *r = convertScalar(rhs, rt.scalar, op.operandTypes[1]);
  raiseOnZeroDivisor(a.op, r, op.operandTypes[1], a.loc);
  Value *res;
  if (a.op == fe::BinOp::Div && fe::isInteger(op.operandTypes[0])) {
    res = binary(a.op, convertScalar(l, op.operandTypes[0], Scalar::F64),
                 convertScalar(r, op.operandTypes[1], Scalar::F64), Scalar::F64);
  } else if (a.op == fe::BinOp::Pow) {
    res = power(l, r, op.operandTypes[0], op.operandTypes[1], op.type.scalar);
  } else if (a.op == fe::BinOp::LShift || a.op == fe::BinOp::RShift) {
    res = shift(a.op, convertScalar(l, op.operandTypes[0], op.type.scalar),
                convertScalar(r, op.operandTypes[1], op.type.scalar), op.type.scalar);
  } else {
    res = binary(a.op, l, r, op.operandTypes[0]);
  }
  if (addr) {
    storeElement(addr, convertScalar(res, op.type.scalar, cur.scalar), cur.scalar);
  } else {
    auto &n = static_cast<const fe::NameExpr &>(*a.target);
    b_.CreateStore(convert(res, op.type, spec_->locals.at(n.id)), localSlot(n.id));
  }
}

void Lowerer::lowerBlockThenBranch(const fe::Block &b, BasicBlock *next) {
  lowerBlock(b);
  if (!terminated())
    b_.CreateBr(next);
}

void Lowerer::lowerIf(const fe::IfStmt &s) {
  if (auto k = spec_->constantBranches.find(&s); k != spec_->constantBranches.end()) {
    lowerBlock(k->second ? s.body : s.orelse); // the condition is a compile-time constant
    return;
  }
  Value *c = truth(lowerExpr(*s.test), info(*s.test).type);
  auto *thenB = BasicBlock::Create(ctx_, "if.then", fn_);
  auto *elseB = s.orelse.empty() ? nullptr : BasicBlock::Create(ctx_, "if.else", fn_);
  auto *merge = BasicBlock::Create(ctx_, "if.end", fn_);
  b_.CreateCondBr(c, thenB, elseB ? elseB : merge);
  b_.SetInsertPoint(thenB);
  lowerBlockThenBranch(s.body, merge);
  if (elseB) {
    b_.SetInsertPoint(elseB);
    lowerBlockThenBranch(s.orelse, merge);
  }
  b_.SetInsertPoint(merge);
  setGlueLoc();
}

void Lowerer::lowerWhile(const fe::WhileStmt &s) {
  auto *header = BasicBlock::Create(ctx_, "while.cond", fn_);
  auto *body = BasicBlock::Create(ctx_, "while.body", fn_);
  auto *elseB = BasicBlock::Create(ctx_, "while.else", fn_);
  auto *exit = BasicBlock::Create(ctx_, "while.end", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  setLoc(s.test->loc);
  b_.CreateCondBr(truth(lowerExpr(*s.test), info(*s.test).type), body, elseB);
  b_.SetInsertPoint(body);
  loops_.push_back({exit, header});
  lowerBlockThenBranch(s.body, header);
  loops_.pop_back();
  b_.SetInsertPoint(elseB);
  lowerBlockThenBranch(s.orelse, exit);
  b_.SetInsertPoint(exit);
  setGlueLoc();
}

void Lowerer::lowerFor(const fe::ForStmt &s) {
  if (info(*s.iter).type.kind != TypeKind::Range || s.iter->kind != fe::ExprKind::Call)
    return lowerForEach(s);
  auto &call = static_cast<const fe::CallExpr &>(*s.iter);
  const fe::ExprInfo &ri = info(call);
  Scalar t = ri.type.scalar;
  llvm::Type *lt = scalarType(t);
  std::vector<Value *> a;
  for (size_t i = 0; i < call.args.size(); ++i)
    a.push_back(lowerAs(*call.args[i], Type::scalarOf(t)));
  Value *start = a.size() == 1 ? ConstantInt::get(lt, 0) : a[0];
  Value *stop = a.size() == 1 ? a[0] : a[1];
  Value *step = a.size() == 3 ? a[2] : ConstantInt::get(lt, 1);
  bool sgn = fe::isSigned(t);
  if (a.size() == 3) // Python raises for a zero step (it would loop forever)
    raiseExceptionIf(b_.CreateICmpEQ(step, ConstantInt::get(lt, 0)), call.args[2]->loc,
                     "ValueError: range() arg 3 must not be zero");

  AllocaInst *iv = entryAlloca(lt, "for.iv");
  b_.CreateStore(start, iv);
  lowerLoop(
      s,
      [&] {
        Value *i = b_.CreateLoad(lt, iv, "i");
        if (auto *cs = dyn_cast<ConstantInt>(step)) {
          bool up = !sgn || !cs->isNegative();
          return up ? (sgn ? b_.CreateICmpSLT(i, stop) : b_.CreateICmpULT(i, stop))
                    : b_.CreateICmpSGT(i, stop);
        }
        if (sgn) {
          Value *up = b_.CreateICmpSGT(step, ConstantInt::get(lt, 0));
          return b_.CreateSelect(up, b_.CreateICmpSLT(i, stop), b_.CreateICmpSGT(i, stop));
        }
        return b_.CreateICmpULT(i, stop);
      },
      [&] { lowerAssign(*s.target, b_.CreateLoad(lt, iv, "i"), Type::scalarOf(t)); },
      [&] { b_.CreateStore(b_.CreateAdd(b_.CreateLoad(lt, iv), step), iv); });
}

void Lowerer::lowerLoop(const fe::ForStmt &s, const std::function<Value *()> &cond,
                        const std::function<void()> &bind, const std::function<void()> &advance) {
  auto *header = BasicBlock::Create(ctx_, "for.cond", fn_);
  auto *body = BasicBlock::Create(ctx_, "for.body", fn_);
  auto *latch = BasicBlock::Create(ctx_, "for.inc", fn_);
  auto *elseB = BasicBlock::Create(ctx_, "for.else", fn_);
  auto *exit = BasicBlock::Create(ctx_, "for.end", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  b_.CreateCondBr(cond(), body, elseB);
  b_.SetInsertPoint(body);
  bind();
  loops_.push_back({exit, latch});
  lowerBlockThenBranch(s.body, latch);
  loops_.pop_back();
  b_.SetInsertPoint(latch);
  setLoc(s.loc);
  advance();
  b_.CreateBr(header);
  b_.SetInsertPoint(elseB);
  lowerBlockThenBranch(s.orelse, exit);
  b_.SetInsertPoint(exit);
  setGlueLoc();
}

void Lowerer::lowerReturn(const fe::ReturnStmt &s) {
  if (s.value && retSlot_)
    b_.CreateStore(lowerAs(*s.value, spec_->returnType), retSlot_);
  else if (s.value)
    lowerExpr(*s.value); // `return None` style expressions still run
  b_.CreateBr(exitBlock_);
}

void Lowerer::lowerAssert(const fe::AssertStmt &s) {
  // numba-cuda compiles assertions only with debug=True.
  if (!spec_->options().debug)
    return;
  Value *ok = truth(lowerExpr(*s.test), info(*s.test).type);
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  unsigned id = site(s.loc, "assert");
  if (s.msg)
    out_.info.sites[id].detail = static_cast<const fe::ConstantExpr &>(*s.msg).strValue;
  raiseIf(b_.CreateNot(ok), KernelErrorKind::Assertion, id, ConstantInt::get(i64, 0),
          ConstantInt::get(i64, 0), ConstantInt::get(i64, 0));
}

void Lowerer::lowerRaise(const fe::RaiseStmt &s) {
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  int64_t payload = 0;
  unsigned id = site(s.loc, "raise");
  const fe::Expr *cls = s.exc.get();
  std::string text;
  if (auto *c = fe::dyn<fe::CallExpr>(cls)) {
    cls = c->func.get();
    if (!c->args.empty()) {
      const fe::ConstValue &k = *info(*c->args[0]).constant;
      if (k.kind == fe::ConstValue::Kind::Int) {
        payload = k.i;
        text = std::to_string(k.i);
      } else
        text = k.s;
    }
  }
  out_.info.sites[id].detail = static_cast<const fe::NameExpr &>(*cls).id + (text.empty() ? "" : ": " + text);
  raiseNow(KernelErrorKind::Exception, id, ConstantInt::get(i64, payload), ConstantInt::get(i64, 0),
           ConstantInt::get(i64, 0));
}

void Lowerer::raiseNow(KernelErrorKind kind, unsigned siteId, Value *a, Value *b, Value *c) {
  auto *i32 = llvm::Type::getInt32Ty(ctx_);
  auto inBody = spec_ ? functions_.find(spec_) : functions_.end();
  if (out_.info.debug && inBody != functions_.end() && inBody->second == fn_) {
    // post-mortem: the debugger sees the thread before the error ends it
    const Site &s = out_.info.sites[siteId];
    std::string reason = kind == KernelErrorKind::IndexOutOfBounds ? "IndexError: index out of bounds"
                         : kind == KernelErrorKind::Assertion
                             ? "AssertionError" + (s.detail.empty() ? std::string() : ": " + s.detail)
                         : s.detail.empty() ? std::string("exception")
                                            : s.detail;
    stopHere(s.loc, reason);
  }
  b_.CreateCall(getIntrinsic(mod_, Intrinsic::RaiseError),
                {errRecord_, ConstantInt::get(i32, uint32_t(kind)), ConstantInt::get(i32, siteId), a, b, c});
  b_.CreateUnreachable();
}

void Lowerer::raiseExceptionIf(Value *cond, SourceLoc loc, const std::string &detail) {
  unsigned id = site(loc, "raise");
  out_.info.sites[id].detail = detail;
  Value *zero = ConstantInt::get(llvm::Type::getInt64Ty(ctx_), 0);
  raiseIf(cond, KernelErrorKind::Exception, id, zero, zero, zero);
}

void Lowerer::raiseIf(Value *cond, KernelErrorKind kind, unsigned siteId, Value *a, Value *b, Value *c) {
  auto *fail = BasicBlock::Create(ctx_, "raise", fn_);
  auto *cont = BasicBlock::Create(ctx_, "ok", fn_);
  MDBuilder md(ctx_);
  b_.CreateCondBr(cond, fail, cont, md.createBranchWeights(1, 1u << 20));
  b_.SetInsertPoint(fail);
  raiseNow(kind, siteId, a, b, c);
  b_.SetInsertPoint(cont);
}

} // namespace cutwin::ir
