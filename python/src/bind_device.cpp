// Devices, streams and events.
#include "bindings.h"

#include <nanobind/stl/optional.h>

#include "cutwin/cutwin.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

namespace cutwin::py {

void bindDevice(nb::module_ &m) {
  nb::class_<Device>(m, "Device")
      .def_static("open", &Device::open, nb::arg("spec") = "sim",
                  "Opens 'sim', 'sim:N', 'gpu', 'gpu:N' or 'auto' (the GPU if present, else the simulator).")
      .def_static("count", &Device::count, nb::arg("kind"),
                  "How many devices of a kind ('sim', 'gpu') there are.")
      .def_static("set_simulated_devices", &Device::setSimulatedDevices, nb::arg("n"))
      .def_prop_ro("name", &Device::name)
      .def_prop_ro("ordinal", &Device::ordinal)
      .def_prop_ro("spec", &Device::spec)
      .def("can_access_peer", &Device::canAccessPeer, nb::arg("peer"))
      .def("enable_peer_access", &Device::enablePeerAccess, nb::arg("peer"))
      .def("disable_peer_access", &Device::disablePeerAccess, nb::arg("peer"))
      .def("peer_access_enabled", &Device::peerAccessEnabled, nb::arg("peer"))
      .def("attribute", &Device::attribute, nb::arg("name"))
      .def_prop_ro("is_simulator", &Device::isSimulator)
      .def("synchronize", &Device::synchronize, nb::call_guard<nb::gil_scoped_release>())
      .def("create_stream", &Device::createStream)
      .def(
          "external_stream",
          [](Device &d, uintptr_t h) { return d.externalStream(reinterpret_cast<void *>(h)); },
          nb::arg("handle"))
      .def("create_event", &Device::createEvent)
      .def(
          "allocate_host",
          [](Device &d, size_t bytes, unsigned flags) {
            return reinterpret_cast<uintptr_t>(d.allocateHost(bytes, flags));
          },
          nb::arg("bytes"), nb::arg("flags") = 0)
      .def(
          "release_host", [](Device &d, uintptr_t p) { d.releaseHost(reinterpret_cast<void *>(p)); },
          nb::arg("ptr"))
      .def(
          "register_host",
          [](Device &d, uintptr_t p, size_t bytes, unsigned flags) {
            d.registerHost(reinterpret_cast<void *>(p), bytes, flags);
          },
          nb::arg("ptr"), nb::arg("bytes"), nb::arg("flags") = 0)
      .def(
          "unregister_host", [](Device &d, uintptr_t p) { d.unregisterHost(reinterpret_cast<void *>(p)); },
          nb::arg("ptr"))
      .def(
          "host_device_pointer",
          [](Device &d, uintptr_t p) {
            return reinterpret_cast<uintptr_t>(d.hostDevicePointer(reinterpret_cast<void *>(p)));
          },
          nb::arg("ptr"))
      .def("memory_info",
           [](Device &d) {
             MemoryInfo m = d.memoryInfo();
             return nb::make_tuple(m.free, m.total);
           })
      .def(
          "ipc_handle",
          [](Device &d, uintptr_t p) {
            IpcMemHandle h = d.ipcHandle(reinterpret_cast<void *>(p));
            return nb::make_tuple(nb::bytes(reinterpret_cast<const char *>(h.bytes.data()), h.bytes.size()),
                                  reinterpret_cast<uintptr_t>(h.base), h.size);
          },
          nb::arg("ptr"))
      .def(
          "ipc_open",
          [](Device &d, nb::bytes handle) {
            const auto *p = static_cast<const uint8_t *>(handle.data());
            return reinterpret_cast<uintptr_t>(d.ipcOpen(std::vector<uint8_t>(p, p + handle.size())));
          },
          nb::arg("handle"))
      .def(
          "ipc_close", [](Device &d, uintptr_t base) { d.ipcClose(reinterpret_cast<void *>(base)); },
          nb::arg("base"));

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
