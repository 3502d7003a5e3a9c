// cutwin::libdeviceFunctions: the libdevice functions kernels can call, with numba's type
// names (for numba-cuda's libdevicefuncs-style lists in the Python package).
#include "cutwin/cutwin.h"
#include "frontend/ir/libdevice_signatures.h"

namespace cutwin {

namespace {
const char *typeName(ir::LibdeviceType t) {
  switch (t) {
  case ir::LibdeviceType::Void: return "void";
  case ir::LibdeviceType::I16: return "int16";
  case ir::LibdeviceType::I32: return "int32";
  case ir::LibdeviceType::I64: return "int64";
  case ir::LibdeviceType::F32: return "float32";
  case ir::LibdeviceType::F64: return "float64";
  }
  return "void";
}
} // namespace

std::vector<LibdeviceFunction> libdeviceFunctions() {
  std::vector<LibdeviceFunction> out;
  for (const std::string &name : ir::libdeviceFunctionNames()) {
    const ir::LibdeviceSignature *sig = ir::libdeviceSignature(name);
    LibdeviceFunction f;
    f.name = name;
    f.returnType = typeName(sig->ret);
    for (const ir::LibdeviceParam &p : sig->params)
      f.params.push_back({typeName(p.type), p.output});
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace cutwin
