// Device functions compiled on their own (numba's compile_ptx with device=True): an external
// wrapper in numba's or the C calling convention around the internal device function.
#include "frontend/lower/lowerer.h"

#include "frontend/ir/error_record.h"

namespace cutwin::ir {

using namespace llvm;

KernelIR lowerDeviceExport(const fe::Typer &typer, const fe::FunctionSpec &fn, const LowerOptions &opts,
                           ExportAbi abi, const std::string &name, const fe::Type &returnType) {
  KernelIR out = startKernelIR(typer, fn, opts, name);
  out.info.exported = true;
  out.info.exportedReturnType = returnType;
  Lowerer(typer, opts, out).lowerExportEntry(fn, abi, name, returnType);
  finishKernelIR(typer, out);
  return out;
}

void Lowerer::lowerExportEntry(const fe::FunctionSpec &spec, ExportAbi abi, const std::string &name,
                               const Type &ret) {
  const std::string &fname = spec.def->name;
  auto fail = [&](const std::string &what) {
    spec.file().error(spec.def->loc, "cannot compile device function '" + fname + "' on its own: " + what);
  };
  if (!(ret.isScalar() || ret.kind == fe::TypeKind::None))
    fail("its result is " + ret.str() + "; a scalar or None can be returned");
  if (ret.isScalar() && !spec.returnType.isScalar())
    fail("its signature returns " + ret.str() + ", but it returns " + spec.returnType.str());
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  auto *ptr = PointerType::get(ctx_, 0);
  std::vector<llvm::Type *> params;
  if (abi == ExportAbi::Numba)
    params.push_back(ptr); // where the result goes
  for (const Type &t : spec.argTypes) {
    if (t.isScalar()) {
      params.push_back(memType(t.scalar));
    } else if (t.isArray()) {
      params.insert(params.end(), {ptr, ptr, i64, i64, ptr}); // meminfo parent nitems itemsize data
      params.insert(params.end(), size_t(2 * t.ndim), i64);
    } else {
      fail("its argument types are scalars and arrays, not " + t.str());
    }
  }
  llvm::Type *resultTy = abi == ExportAbi::Numba          ? llvm::Type::getInt32Ty(ctx_)
                         : ret.kind == fe::TypeKind::None ? llvm::Type::getVoidTy(ctx_)
                                                          : memType(ret.scalar);
  auto *wrapper = llvm::Function::Create(FunctionType::get(resultTy, params, false),
                                         GlobalValue::ExternalLinkage, name, mod_);
  wrapper->addFnAttr(Attribute::NoUnwind);
  if (spec.options().forceInline) // numba's forceinline: inlined into the program it is linked into
    wrapper->addFnAttr(Attribute::AlwaysInline);
  llvm::Function *inner = declareFunction(spec);

  // Faults inside (bounds checks, raise) go to a record of the module's own: there is no
  // launch to report them to.
  auto *recTy = ArrayType::get(llvm::Type::getInt8Ty(ctx_), sizeof(ErrorRecord));
  auto *record =
      new GlobalVariable(mod_, recTy, false, GlobalValue::InternalLinkage, ConstantAggregateZero::get(recTy),
                         "cutwin.export.error_record", nullptr, GlobalValue::NotThreadLocal, 1);
  b_.SetInsertPoint(BasicBlock::Create(ctx_, "entry", wrapper));
  unsigned p = abi == ExportAbi::Numba ? 1 : 0;
  std::vector<Value *> args;
  for (unsigned i = 0; i < spec.argTypes.size(); ++i) {
    const Type &t = spec.argTypes[i];
    const std::string &pname = spec.def->params[i].name;
    if (t.isScalar()) {
      Argument *a = wrapper->getArg(p++);
      a->setName(pname);
      args.push_back(t.isBool() ? b_.CreateICmpNE(a, ConstantInt::get(a->getType(), 0)) : a);
      continue;
    }
    p += 4; // meminfo, parent, nitems, itemsize: cutwin's arrays do not need them
    Argument *data = wrapper->getArg(p++);
    data->setName(pname + ".data");
    Value *d = b_.CreateAddrSpaceCast(data, PointerType::get(ctx_, addrSpace(t.space)));
    std::vector<Value *> shape, strides;
    for (unsigned k = 0; k < t.ndim; ++k)
      shape.push_back(wrapper->getArg(p++));
    for (unsigned k = 0; k < t.ndim; ++k)
      strides.push_back(wrapper->getArg(p++));
    args.push_back(buildArray(t, d, shape, strides));
  }
  args.push_back(record);
  Value *result = b_.CreateCall(inner, args);
  Value *converted = ret.kind == fe::TypeKind::None ? nullptr : convert(result, spec.returnType, ret);
  if (converted && ret.isBool())
    converted = b_.CreateZExt(converted, memType(Scalar::Bool));
  if (abi == ExportAbi::C) {
    converted ? b_.CreateRet(converted) : b_.CreateRetVoid();
  } else {
    if (converted)
      b_.CreateStore(converted, wrapper->getArg(0));
    b_.CreateRet(b_.getInt32(0)); // numba's status: success
  }
  lowerPendingBodies();
}

} // namespace cutwin::ir
