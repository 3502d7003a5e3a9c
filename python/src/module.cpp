// cutwin._cutwin: the C++ API for the Python package. All logic stays in C++; the
// package adds numba.cuda's names and conventions on top.
#include "bindings.h"

NB_MODULE(_cutwin, m) {
  m.doc() = "cutwin's C++ core: devices, device arrays, kernel modules and launches";
  cutwin::py::bindErrors(m);
  cutwin::py::bindDevice(m);
  cutwin::py::bindArray(m);
  cutwin::py::bindKernel(m);
}
