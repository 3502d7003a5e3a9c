/// The pieces of the `cutwin._cutwin` extension, one file per concept of the C++ API.
#pragma once

#include <nanobind/nanobind.h>

namespace cutwin::py {

void bindDevice(nanobind::module_ &m); ///< Device, Stream, Event
void bindArray(nanobind::module_ &m);  ///< DeviceArray and host copies
void bindKernel(nanobind::module_ &m); ///< Module, Kernel, launches, host bindings
void bindErrors(nanobind::module_ &m); ///< C++ errors -> the exceptions of cutwin.errors
void bindDebug(nanobind::module_ &m);  ///< the breakpoint handler (cutwin.debug)

} // namespace cutwin::py
