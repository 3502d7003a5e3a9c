// cutwin._cutwin: the C++ API for the Python package. All logic stays in C++; the
// package adds numba.cuda's names and conventions on top.
#include "bindings.h"

#include "cutwin/cutwin.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

NB_MODULE(_cutwin, m) {
  m.doc() = "cutwin's C++ core: devices, device arrays, kernel modules and launches";
  cutwin::py::bindErrors(m);
  cutwin::py::bindDevice(m);
  cutwin::py::bindArray(m);
  cutwin::py::bindKernel(m);
  cutwin::py::bindDebug(m);
  m.def("libdevice_functions", [] {
    nb::list out;
    for (const cutwin::LibdeviceFunction &f : cutwin::libdeviceFunctions()) {
      nb::list params;
      for (auto &p : f.params)
        params.append(nb::make_tuple(p.type, p.output));
      out.append(nb::make_tuple(f.name, f.returnType, params));
    }
    return out;
  });
  m.def("builtin_function_names", &cutwin::builtinFunctionNames);
  m.def("cuda_kernel_only_names", &cutwin::cudaKernelOnlyNames);
}
