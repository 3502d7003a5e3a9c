// cutwin::builtinFunctionNames and cutwin::cudaKernelOnlyNames: the kernel language's names
// from the frontend's registry, for the Python package's host stubs (cuda.fp16, the
// kernel-only names of cuda), so that no list is copied by hand.
#include "cutwin/cutwin.h"
#include "frontend/builtins/builtin.h"
#include "frontend/sema/builtins.h"

namespace cutwin {

std::vector<std::string> builtinFunctionNames() {
  std::vector<std::string> names;
  for (const fe::BuiltinFamily &family : fe::builtinFamilies())
    for (const fe::Builtin &b : family.rows())
      names.push_back(b.name);
  return names;
}

std::vector<std::string> cudaKernelOnlyNames() { return fe::cudaKernelOnlyNames(); }

} // namespace cutwin
