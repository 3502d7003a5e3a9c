/// The names kernels can reach: modules (cuda, math, numpy, numba), their members, and
/// Python builtins. Everything here is a compile-time entity; the typer gives calls and
/// attribute reads of them their meaning.
#pragma once

#include "frontend/ir/libdevice_signatures.h"
#include "frontend/sema/const_value.h"
#include "frontend/sema/types.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cutwin::fe {

/// A compile-time entity: a module/function/type object (in `type`), or a constant.
struct Entity {
  Type type;
  std::optional<ConstValue> value;
};

/// The module a Python import path names ("numba.cuda" -> module "cuda"), if known.
std::optional<Type> knownModule(const std::string &importPath);
/// `module.attr` for a module entity; nullopt if the module has no such member.
std::optional<Entity> moduleMember(const Type &module, const std::string &attr);
/// Python builtins usable in kernels (range, len, min, max, abs, int, float, ...).
std::optional<Entity> pythonBuiltin(const std::string &name);

/// A namespace of the `cuda` module (cuda.threadIdx, cuda.shared, cuda.fp16, ...);
/// `hostModule`: host code imports it as a module of its own (numba.cuda.random).
struct CudaNamespace {
  const char *name;
  bool hostModule;
};
std::span<const CudaNamespace> cudaNamespaces();
/// The names of `cuda` that mean something in kernels only (cuda.grid, cuda.threadIdx,
/// cuda.shared, cuda.atomic, cuda.laneid, ...), sorted: the registry's cuda.* functions by
/// their first name, the namespaces that are no host module, and the values laneid and
/// warpsize. Host code sees stubs of them.
std::vector<std::string> cudaKernelOnlyNames();

/// The scalar type numba-cuda's libdevice bindings give a libdevice parameter or result
/// type (integers signed); not for Void.
Scalar libdeviceScalar(ir::LibdeviceType t);

} // namespace cutwin::fe
