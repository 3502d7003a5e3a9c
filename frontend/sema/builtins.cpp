#include "frontend/sema/builtins.h"

#include "frontend/builtins/builtin.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace cutwin::fe {

namespace {

Entity moduleEntity(const std::string &path) { return {Type::named(TypeKind::Module, path), {}}; }
Entity functionEntity(const std::string &path) { return {Type::named(TypeKind::Function, path), {}}; }
Entity floatConst(double v) { return {Type::scalarOf(Scalar::F64), ConstValue::ofFloat(v)}; }

/// pi, e, inf, nan (and tau where the module has it) of math, cmath and numpy.
std::optional<Entity> floatConstant(const std::string &attr, bool hasTau) {
  if (attr == "pi")
    return floatConst(M_PI);
  if (attr == "e")
    return floatConst(M_E);
  if (attr == "tau" && hasTau)
    return floatConst(2 * M_PI);
  if (attr == "inf")
    return floatConst(std::numeric_limits<double>::infinity());
  if (attr == "nan")
    return floatConst(std::numeric_limits<double>::quiet_NaN());
  return std::nullopt;
}

Entity typeObject(Scalar s) { return {Type::typeObject(s), {}}; }
Entity voidTypeObject() {
  Type t = Type::make(TypeKind::TypeObject);
  t.typeObjectIsVoid = true;
  return {t, {}};
}

} // namespace

Scalar libdeviceScalar(ir::LibdeviceType t) {
  switch (t) {
  case ir::LibdeviceType::I16: return Scalar::I16;
  case ir::LibdeviceType::I32: return Scalar::I32;
  case ir::LibdeviceType::I64: return Scalar::I64;
  case ir::LibdeviceType::F32: return Scalar::F32;
  default: return Scalar::F64;
  }
}

std::span<const CudaNamespace> cudaNamespaces() {
  static const CudaNamespace namespaces[] = {
      {"threadIdx", false}, {"blockIdx", false}, {"blockDim", false}, {"gridDim", false}, {"shared", false},
      {"local", false},     {"const", false},    {"cg", false},       {"atomic", false},  {"random", true},
      {"libdevice", true},  {"fp16", true},      {"bf16", true},      {"fp8", true},
  };
  return namespaces;
}

std::vector<std::string> cudaKernelOnlyNames() {
  std::set<std::string> names = {"laneid", "warpsize"}; // read as values (moduleMember below)
  for (const CudaNamespace &n : cudaNamespaces())
    if (!n.hostModule)
      names.insert(n.name);
  for (const BuiltinFamily &family : builtinFamilies())
    for (const Builtin &b : family.rows()) {
      std::string_view path = b.name;
      if (!path.starts_with("cuda."))
        continue;
      path.remove_prefix(5);
      std::string first(path.substr(0, path.find('.')));
      bool hostModule = false;
      for (const CudaNamespace &n : cudaNamespaces())
        hostModule |= n.hostModule && first == n.name;
      if (!hostModule)
        names.insert(first);
    }
  return {names.begin(), names.end()};
}

std::optional<Type> knownModule(const std::string &p) {
  static const std::map<std::string, std::string> modules = {
      {"numba", "numba"},
      {"numba.cuda", "cuda"},
      {"numba.cuda.random", "cuda.random"},
      {"numba.cuda.libdevice", "cuda.libdevice"},
      {"cutwin.cuda.libdevice", "cuda.libdevice"},
      {"cutwin.cuda.random", "cuda.random"},
      {"numba.cuda.fp16", "cuda.fp16"},
      {"cutwin.cuda.fp16", "cuda.fp16"},
      {"numba.cuda.bf16", "cuda.bf16"},
      {"cutwin.cuda.bf16", "cuda.bf16"},
      {"cutwin.cuda.fp8", "cuda.fp8"},
      {"numba.cuda._internal.cuda_fp8", "cuda.fp8"},
      {"cutwin", "cutwin"},
      {"cutwin.cuda", "cuda"},
      {"cutwin.types", "numba.types"},
      {"cutwin.cuda.types", "numba.types"},
      {"numpy", "numpy"},
      {"math", "math"},
      {"cmath", "cmath"},
      {"operator", "operator"},
      {"pdb", "pdb"},
      {"cffi.FFI", "cffi.FFI"},
      {"numba.types", "numba.types"},
      {"numba.core.types", "numba.types"},
      {"numba.cuda.types", "numba.types"},
  };
  auto it = modules.find(p);
  if (it == modules.end())
    return std::nullopt;
  return Type::named(TypeKind::Module, it->second);
}

std::optional<Entity> moduleMember(const Type &module, const std::string &attr) {
  const std::string &m = module.path;
  // numba.cuda re-exports numba's types too (`from numba.cuda import float32`).
  if (m == "numba" || m == "numba.types" || m == "numpy" || m == "cutwin" || m == "cuda") {
    if (auto s = scalarFromName(attr); s && !(m == "numpy" && *s == Scalar::BF16)) {
      // NumPy has no `numpy.int` / `numpy.float` scalar types (nor bfloat16); numba's names
      // are richer.
      if (m != "numpy" || attr.find('_') != std::string::npos || std::isdigit(attr.back()) ||
          attr == "double" || attr == "single" || attr == "intc" || attr == "intp" || attr == "uintp" ||
          attr == "byte" || attr == "ubyte" || attr == "short" || attr == "ushort" || attr == "uintc" ||
          attr == "longlong" || attr == "ulonglong")
        return typeObject(*s);
    }
    if (m != "numpy" && (attr == "void" || attr == "none"))
      return voidTypeObject();
  }
  if ((m == "numba" || m == "cutwin") && (attr == "jit" || attr == "njit"))
    return functionEntity("cpu.jit"); // a CPU function: kernels call it as a device function
  if (m == "numba") {
    if (attr == "literal_unroll")
      return functionEntity("cuda.literal_unroll");
    if (attr == "cuda")
      return moduleEntity("cuda");
    if (attr == "types")
      return moduleEntity("numba.types");
    return std::nullopt;
  }
  if (m == "cutwin") { // cutwin exports numba's type names too
    if (attr == "cuda")
      return moduleEntity("cuda");
    if (attr == "types")
      return moduleEntity("numba.types");
    return std::nullopt;
  }
  if (m == "numpy") {
    if (auto k = floatConstant(attr, false)) // NumPy has no tau
      return k;
    if (findBuiltin("numpy." + attr))
      return functionEntity("numpy." + attr);
    return std::nullopt;
  }
  if (m == "math") {
    if (auto k = floatConstant(attr, true))
      return k;
    if (findBuiltin("math." + attr))
      return functionEntity("math." + attr);
    return std::nullopt;
  }
  if (m == "cmath") {
    if (auto k = floatConstant(attr, true))
      return k;
    if (findBuiltin("cmath." + attr))
      return functionEntity("cmath." + attr);
    return std::nullopt;
  }
  if (m == "cuda") {
    for (const CudaNamespace &n : cudaNamespaces())
      if (attr == n.name)
        return moduleEntity("cuda." + attr);
    // the registry's cuda.* functions (frontend/builtins/), and the decorators kernels may name
    if (findBuiltin("cuda." + attr) || attr == "jit" || attr == "declare_device")
      return functionEntity("cuda." + attr);
    if (attr == "types")
      return moduleEntity("numba.types");
    if (attr == "laneid") // read as a value by the typer, like threadIdx.x
      return functionEntity("cuda.laneid");
    if (attr == "warpsize") { // an int32 constant, as numba types it
      ConstValue w = ConstValue::ofInt(32);
      w.typedScalar = true;
      w.dtype = Scalar::I32;
      return Entity{Type::scalarOf(Scalar::I32), w};
    }
    return std::nullopt;
  }
  if (m == "cuda.threadIdx" || m == "cuda.blockIdx" || m == "cuda.blockDim" || m == "cuda.gridDim") {
    if (attr == "x" || attr == "y" || attr == "z")
      return functionEntity(m + "." + attr); // read as a value by the typer
    return std::nullopt;
  }
  if (m == "cuda.shared" || m == "cuda.local") {
    if (attr == "array")
      return functionEntity(m + ".array");
    return std::nullopt;
  }
  if (m == "cuda.bf16" && attr == "bfloat16")
    return typeObject(Scalar::BF16);
  if (m == "cffi.FFI") // a cffi.FFI() instance kernels use: its from_buffer
    return attr == "from_buffer" ? std::optional(functionEntity("cffi.from_buffer")) : std::nullopt;
  if (m == "cuda.fp8")
    if (auto s = scalarFromName(attr); s && isFp8(*s)) // cuda.fp8.fp8_e4m3 & co.
      return typeObject(*s);
  if (m == "cuda.atomic" || m == "cuda.fp16" || m == "cuda.bf16" || m == "cuda.fp8") { // the registry's rows
    if (findBuiltin(m + "." + attr))
      return functionEntity(m + "." + attr);
    return std::nullopt;
  }
  if (m == "cuda.libdevice") // any name: the call is checked against libdevice when typed
    return functionEntity("cuda.libdevice." + attr);
  if (m == "cuda.cg") {
    if (attr == "this_grid")
      return functionEntity("cuda.cg.this_grid");
    return std::nullopt;
  }
  if (m == "cuda.cg.grid_group") { // the object this_grid() returns
    if (attr == "sync")
      return functionEntity("cuda.cg.grid_group.sync");
    return std::nullopt;
  }
  if (m == "cuda.random") {
    // numba.cuda.random's device functions (the registry's); the host functions
    // (create_..._states) are host code and not available in kernels.
    if (findBuiltin("cuda.random." + attr))
      return functionEntity("cuda.random." + attr);
    return std::nullopt;
  }
  if (m == "operator") {
    if (attr == "abs")
      return functionEntity("builtins.abs");
    if (attr == "truth")
      return functionEntity("builtins.bool");
    if (findBuiltin("operator." + attr))
      return functionEntity("operator." + attr);
    return std::nullopt;
  }
  if (m == "pdb") { // pdb.set_trace(): a breakpoint in a kernel compiled for debugging
    if (findBuiltin("pdb." + attr))
      return functionEntity("pdb." + attr);
    return std::nullopt;
  }
  if (m == "cuda.const") {
    if (attr == "array_like")
      return functionEntity("cuda.const.array_like");
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Entity> pythonBuiltin(const std::string &name) {
  if (findBuiltin("builtins." + name)) // range, len, min, max, abs, int, print, ...
    return functionEntity("builtins." + name);
  return std::nullopt;
}

} // namespace cutwin::fe
