// Module::compileFunction: GPU code for one function and signature on demand (numba's
// compile_ptx and cuda.compile), kernels and device functions with numba's or the C ABI.
#include "backend_gpu/gpu_pipeline.h"
#include "runtime/module_impl.h"

#include <llvm/Support/raw_ostream.h>

namespace cutwin::rt {

namespace {

/// Itanium-style codes of numba's mangler for scalars; arrays get a readable name.
std::string itaniumCode(const fe::Type &t) {
  using fe::Scalar;
  if (t.isScalar()) {
    switch (t.scalar) {
    case Scalar::Bool: return "b";
    case Scalar::I8: return "a";
    case Scalar::U8: return "h";
    case Scalar::I16: return "s";
    case Scalar::U16: return "t";
    case Scalar::I32: return "i";
    case Scalar::U32: return "j";
    case Scalar::I64: return "x";
    case Scalar::U64: return "y";
    case Scalar::F32: return "f";
    case Scalar::F64: return "d";
    default: break;
    }
  }
  std::string m = t.mangle();
  return std::to_string(m.size()) + m;
}

/// `_ZN<len>cutwin<len><name>E<arg codes>`: unique per function and argument types, and
/// demangles to `cutwin::name(args)`.
std::string numbaAbiName(const std::string &function, const std::vector<fe::Type> &args) {
  std::string s = "_ZN6cutwin" + std::to_string(function.size()) + function + "E";
  if (args.empty())
    return s + "v";
  for (auto &t : args)
    s += itaniumCode(t);
  return s;
}

} // namespace

CompiledFunction ModuleImpl::compileFunction(const std::string &name, const FunctionCompileRequest &req) {
  const fe::Symbol *sym = parsed_->scope().definedFunction(name);
  if (!sym)
    throw Error("module has no function named '" + name + "'");
  if (sym->options.device != req.device)
    throw Error("'" + name + "' is " + (sym->options.device ? "a device function" : "a kernel") +
                ": compile it with device=" + (sym->options.device ? "True" : "False"));
  if (req.output != "ptx" && req.output != "ltoir" && req.output != "ir")
    throw Error("unknown output '" + req.output + "' (expected ptx, ltoir or ir)");
  PipelineOptions po = pipelineOptions();
  po.boundscheck = opts_.boundscheck.value_or(false); // numba-cuda's GPU default
  po.lineDirectivesOnly = true;
  po.lto = req.output == "ltoir";
  if (po.lto)
    po.codegen = "nvvm";
  fe::Signature sig = parsed_->scope().parseSignatureText(req.signature, sym->loc);
  CompiledFunction out;
  ir::KernelIR kir;
  if (!req.device) {
    kir = buildKernelIR(*parsed_, name, fe::kernelArgTypesFromSignature(parsed_->scope(), *sym, sig), po);
  } else {
    ir::ExportAbi abi;
    if (req.abi == "numba")
      abi = ir::ExportAbi::Numba;
    else if (req.abi == "c")
      abi = ir::ExportAbi::C;
    else
      throw Error("unknown ABI '" + req.abi + "' (expected numba or c)");
    std::string entry = !req.abiName.empty()      ? req.abiName
                        : abi == ir::ExportAbi::C ? name
                                                  : numbaAbiName(name, sig.args);
    std::optional<fe::Type> ret;
    if (sig.hasReturn)
      ret = sig.ret;
    kir = buildDeviceExportIR(*parsed_, name, sig.args, ret, abi, entry, po);
  }
  // Kernels return none; a device function what its wrapper returns (declared or inferred).
  out.returnType = req.device ? kir.info.exportedReturnType.str() : "none";
  if (req.output == "ir") { // the kernel IR, target-neutral (numba's inspect_llvm)
    llvm::raw_string_ostream os(out.code);
    kir.module->print(os, nullptr);
    out.name = kir.info.irName;
    return out;
  }
  gpu::GpuCompiled g = gpu::compileForGpu(std::move(kir), po, req.arch);
  out.name = g.entry;
  out.code = po.lto ? g.ltoir : g.ptx;
  return out;
}

} // namespace cutwin::rt
