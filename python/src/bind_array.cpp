// Device arrays: allocation, views and copies to and from NumPy's memory.
#include "bindings.h"
#include "foreign_arrays.h"

#include "cutwin/cutwin.h"
#include "cutwin/random.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

namespace cutwin::py {

namespace {

using HostIn = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using HostOut = nb::ndarray<nb::c_contig, nb::device::cpu>;

DType dtypeNamed(const std::string &name) {
  if (auto t = dtypeFromName(name))
    return *t;
  throw nb::type_error(("cutwin arrays cannot hold dtype '" + name + "'").c_str());
}

nb::tuple toTuple(const std::vector<int64_t> &v) {
  nb::list l;
  for (int64_t x : v)
    l.append(x);
  return nb::tuple(l);
}

} // namespace

void bindArray(nb::module_ &m) {
  nb::class_<DeviceArray>(m, "DeviceArray")
      .def_prop_ro("dtype", [](const DeviceArray &a) { return std::string(dtypeName(a.dtype())); })
      .def_prop_ro("shape", [](const DeviceArray &a) { return toTuple(a.shape()); })
      .def_prop_ro("strides", [](const DeviceArray &a) { return toTuple(a.strides()); })
      .def_prop_ro("size", &DeviceArray::size)
      .def_prop_ro("nbytes", &DeviceArray::nbytes)
      .def_prop_ro("ndim", &DeviceArray::ndim)
      .def_prop_ro("is_c_contiguous", &DeviceArray::isCContiguous)
      .def_prop_ro("device_pointer",
                   [](const DeviceArray &a) { return reinterpret_cast<uintptr_t>(a.data()); })
      .def_prop_ro("device", [](const DeviceArray &a) { return a.device().shared_from_this(); })
      .def_prop_ro("span",
                   [](const DeviceArray &a) {
                     DeviceArray::Span s = a.span();
                     return nb::make_tuple(s.begin, s.bytes);
                   })
      .def(
          "view",
          [](const DeviceArray &a, std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset) {
            return a.view(std::move(shape), std::move(strides), offset);
          },
          nb::arg("shape"), nb::arg("strides"), nb::arg("offset") = 0)
      .def(
          "view_as",
          [](const DeviceArray &a, const std::string &dtype) {
            return a.view(dtypeNamed(dtype), a.shape(), a.strides());
          },
          nb::arg("dtype"))
      .def(
          "copy_from_host", [](DeviceArray &a, HostIn h) { a.copyFromHost(h.data(), h.nbytes()); },
          nb::call_guard<nb::gil_scoped_release>())
      .def(
          "copy_to_host", [](const DeviceArray &a, HostOut h) { a.copyToHost(h.data(), h.nbytes()); },
          nb::call_guard<nb::gil_scoped_release>())
      .def(
          "copy_span_to_host",
          [](const DeviceArray &a, HostOut h) {
            if (h.nbytes() != a.span().bytes)
              throw nb::value_error("copy_span_to_host: buffer size differs from the span");
            a.copySpanToHost(h.data());
          },
          nb::call_guard<nb::gil_scoped_release>())
      .def(
          "copy_span_from_host",
          [](DeviceArray &a, HostIn h) {
            if (h.nbytes() != a.span().bytes)
              throw nb::value_error("copy_span_from_host: buffer size differs from the span");
            a.copySpanFromHost(h.data());
          },
          nb::call_guard<nb::gil_scoped_release>())
      .def("copy_from", &DeviceArray::copyFrom, nb::call_guard<nb::gil_scoped_release>())
      .def("dlpack_view", &dlpackView,
           "A view whose __dlpack__ exports the array (CUDA memory on a GPU, CPU memory on the simulator).");

  m.def(
      "empty",
      [](const std::shared_ptr<Device> &d, const std::string &dtype, std::vector<int64_t> shape) {
        return d->empty(dtypeNamed(dtype), std::move(shape));
      },
      nb::arg("device"), nb::arg("dtype"), nb::arg("shape"));
  m.def(
      "zeros",
      [](const std::shared_ptr<Device> &d, const std::string &dtype, std::vector<int64_t> shape) {
        return d->zeros(dtypeNamed(dtype), std::move(shape));
      },
      nb::arg("device"), nb::arg("dtype"), nb::arg("shape"));
  m.def(
      "from_dlpack",
      [](nb::handle obj, const std::shared_ptr<Device> &device) { return fromDlpack(obj, device); },
      nb::arg("obj"), nb::arg("device"),
      "A DLPack producer (or capsule) as a device array of `device`, without a copy.");
  m.def(
      "wrap",
      [](const std::shared_ptr<Device> &d, uintptr_t data, const std::string &dtype,
         std::vector<int64_t> shape, std::vector<int64_t> strides, nb::object owner) {
        // The owner (a foreign array) lives while any view does; it is released under the GIL.
        auto *keep = new nb::object(std::move(owner));
        std::shared_ptr<void> hold(keep, [](nb::object *o) {
          nb::gil_scoped_acquire gil;
          delete o;
        });
        return d->wrap(reinterpret_cast<void *>(data), dtypeNamed(dtype), std::move(shape),
                       std::move(strides), std::move(hold));
      },
      nb::arg("device"), nb::arg("data"), nb::arg("dtype"), nb::arg("shape"), nb::arg("strides"),
      nb::arg("owner").none());
  m.def(
      "create_xoroshiro128p_states",
      [](const std::shared_ptr<Device> &d, int64_t n, uint64_t seed, uint64_t subsequenceStart) {
        return random::createXoroshiro128pStates(*d, n, seed, subsequenceStart);
      },
      nb::arg("device"), nb::arg("n"), nb::arg("seed"), nb::arg("subsequence_start"),
      nb::call_guard<nb::gil_scoped_release>());
  m.def(
      "init_xoroshiro128p_states",
      [](DeviceArray &a, uint64_t seed, uint64_t subsequenceStart) {
        random::initXoroshiro128pStates(a, seed, subsequenceStart);
      },
      nb::arg("states"), nb::arg("seed"), nb::arg("subsequence_start"),
      nb::call_guard<nb::gil_scoped_release>());
}

} // namespace cutwin::py
