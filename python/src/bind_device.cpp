// Devices, streams and events.
#include "bindings.h"

#include "cutwin/cutwin.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

namespace cutwin::py {

void bindDevice(nb::module_ &m) {
  nb::class_<Device>(m, "Device")
      .def_static("open", &Device::open, nb::arg("spec") = "sim",
                  "Opens 'sim', 'gpu', 'gpu:N' or 'auto' (the GPU if present, else the simulator).")
      .def_prop_ro("name", &Device::name)
      .def_prop_ro("is_simulator", &Device::isSimulator)
      .def("synchronize", &Device::synchronize, nb::call_guard<nb::gil_scoped_release>())
      .def("create_stream", &Device::createStream)
      .def("create_event", &Device::createEvent);

  nb::class_<Stream>(m, "Stream")
      .def("synchronize", &Stream::synchronize, nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("handle", [](const Stream &s) { return reinterpret_cast<uintptr_t>(s.handle()); });

  nb::class_<Event>(m, "Event")
      .def(
          "record", [](Event &e, const Stream *s) { e.record(s); }, nb::arg("stream").none() = nb::none())
      .def("synchronize", &Event::synchronize, nb::call_guard<nb::gil_scoped_release>())
      .def("elapsed_ms", &Event::elapsedMilliseconds, nb::arg("start"),
           "Milliseconds from `start` to this event.");
}

} // namespace cutwin::py
