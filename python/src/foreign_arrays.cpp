#include "foreign_arrays.h"

#include "runtime/backend.h"

#include <nanobind/ndarray.h>

#include <string>
#include <unordered_map>

namespace nb = nanobind;

namespace cutwin::py {

namespace {

/// `keep` (a Python object, or nanobind's handle of an imported DLPack array), released
/// under the GIL, which the last view of the array may not hold.
template <class T> struct Held {
  explicit Held(T k) : keep(std::move(k)) {}
  ~Held() {
    if (!nb::is_alive()) { // (the interpreter has finished: nothing left to release)
      new (&leaked) T(std::move(keep));
      return;
    }
    nb::gil_scoped_acquire gil;
    T gone(std::move(keep));
  }
  T keep;
  union {
    T leaked; // (never destroyed)
  };
};

/// Keeps `keep` alive with the array's views (one allocation: launches make these).
template <class T> std::shared_ptr<void> holding(T keep) {
  return std::make_shared<Held<T>>(std::move(keep));
}

/// An int, or anything with __index__ (NumPy's integers), as an address or a handle.
uintptr_t addressOf(PyObject *o) {
  if (o == Py_None)
    return 0;
  nb::object i = nb::steal(PyNumber_Index(o));
  if (!i.is_valid())
    throw nb::python_error();
  unsigned long long v = PyLong_AsUnsignedLongLong(i.ptr());
  if (PyErr_Occurred())
    throw nb::python_error();
  return uintptr_t(v);
}

/// The element type a CUDA Array Interface typestr names ("<f4", "|u1"), by a cache of
/// the strings seen; nullopt for what only the Python path reads (records, big-endian).
std::optional<DType> typestrDType(PyObject *typestr) {
  // The producer's last typestr object, held: most hand the same string every time.
  static PyObject *lastObject = nullptr;
  static std::optional<DType> lastType;
  if (typestr == lastObject)
    return lastType;
  Py_ssize_t n = 0;
  const char *s = PyUnicode_AsUTF8AndSize(typestr, &n);
  if (!s)
    throw nb::python_error();
  static std::unordered_map<std::string, std::optional<DType>> seen; // (under the GIL)
  std::string key(s, size_t(n));
  auto it = seen.find(key);
  std::optional<DType> t;
  if (it != seen.end()) {
    t = it->second;
  } else {
    if (n >= 2 && (s[0] == '<' || s[0] == '|' || s[0] == '=') && s[1] != 'V')
      t = dtypeFromName(key.substr(1));
    seen[key] = t;
  }
  Py_XDECREF(lastObject);
  Py_INCREF(typestr);
  lastObject = typestr;
  lastType = t;
  return t;
}

/// A tuple of ints as int64s; false if it is not one.
bool int64s(PyObject *tuple, std::vector<int64_t> &out) {
  if (!PyTuple_Check(tuple))
    return false;
  Py_ssize_t n = PyTuple_Size(tuple);
  out.resize(size_t(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    long long v = PyLong_AsLongLong(PyTuple_GetItem(tuple, k));
    if (v == -1 && PyErr_Occurred())
      throw nb::python_error();
    out[size_t(k)] = v;
  }
  return true;
}

/// The Python package's reading of an interface (records, masks' errors, anything unusual).
DeviceArray throughPython(nb::handle obj) {
  static PyObject *asCudaArray = nullptr; // (set once under the GIL; a second import is harmless)
  if (!asCudaArray)
    asCudaArray =
        nb::object(nb::module_::import_("cutwin.cuda.devicearray").attr("as_cuda_array")).release().ptr();
  return nb::cast<DeviceArray>(nb::handle(asCudaArray)(obj).attr("_arr"));
}

/// The interface's keys (and attribute names) as interned strings, made once: launches
/// look them up.
struct Names {
  PyObject *interface = PyUnicode_InternFromString("__cuda_array_interface__");
  PyObject *dlpack = PyUnicode_InternFromString("__dlpack__");
  PyObject *shape = PyUnicode_InternFromString("shape"), *typestr = PyUnicode_InternFromString("typestr");
  PyObject *data = PyUnicode_InternFromString("data"), *strides = PyUnicode_InternFromString("strides");
  PyObject *mask = PyUnicode_InternFromString("mask"), *descr = PyUnicode_InternFromString("descr");
  PyObject *stream = PyUnicode_InternFromString("stream");
};
const Names &names() {
  static const Names *n = new Names(); // (never freed: the interpreter owns the strings)
  return *n;
}

/// An array through its CUDA Array Interface `desc` (a dict), used in place.
DeviceArray fromInterface(nb::handle obj, PyObject *desc, const ForeignContext &ctx) {
  const Names &k = names();
  PyObject *shape = PyDict_GetItem(desc, k.shape), *typestr = PyDict_GetItem(desc, k.typestr),
           *data = PyDict_GetItem(desc, k.data), *strides = PyDict_GetItem(desc, k.strides),
           *mask = PyDict_GetItem(desc, k.mask), *descr = PyDict_GetItem(desc, k.descr);
  std::optional<DType> dtype = typestr && PyUnicode_Check(typestr) ? typestrDType(typestr) : std::nullopt;
  std::vector<int64_t> dims, steps;
  if (!dtype || !shape || !int64s(shape, dims) || !data || !PyTuple_Check(data) || PyTuple_Size(data) < 1 ||
      (mask && mask != Py_None) ||
      (descr && descr != Py_None && PyList_Check(descr) && PyList_Size(descr) != 1))
    return throughPython(obj);
  size_t itemsize = dtypeSize(*dtype);
  if (!strides || strides == Py_None) { // C-contiguous
    steps.resize(dims.size());
    int64_t step = int64_t(itemsize);
    for (size_t k = dims.size(); k-- > 0;) {
      steps[k] = step;
      step *= dims[k];
    }
  } else if (!int64s(strides, steps) || steps.size() != dims.size()) {
    return throughPython(obj);
  }
  uintptr_t address = addressOf(PyTuple_GetItem(data, 0));
  // The producer's stream: its work on the array must be done first (numba waits for it).
  // The legacy (1) and per-thread (2) default streams are ordered before a launch on the
  // legacy default stream, as is the launch's own stream: no wait for those.
  if (PyObject *stream = PyDict_GetItem(desc, k.stream); stream && stream != Py_None && ctx.interfaceSync) {
    uintptr_t s = addressOf(stream);
    bool ordered =
        (!ctx.stream && (s == 1 || s == 2)) || (ctx.stream && uintptr_t(ctx.stream->handle()) == s);
    if (!ordered) {
      nb::gil_scoped_release release;
      ctx.device->backend().streams().synchronizeStream(reinterpret_cast<void *>(s));
    }
  }
  return ctx.device->wrap(reinterpret_cast<void *>(address), *dtype, std::move(dims), std::move(steps),
                          holding(nb::borrow<nb::object>(obj)));
}

/// DLPack's element types and cutwin's, both ways (one lane each).
struct DlpackType {
  nb::dlpack::dtype_code code;
  uint8_t bits;
  DType dtype;
};
using Code = nb::dlpack::dtype_code;
constexpr DlpackType kDlpackTypes[] = {
    {Code::Bool, 8, DType::Bool},
    {Code::Int, 8, DType::I8},
    {Code::Int, 16, DType::I16},
    {Code::Int, 32, DType::I32},
    {Code::Int, 64, DType::I64},
    {Code::UInt, 8, DType::U8},
    {Code::UInt, 16, DType::U16},
    {Code::UInt, 32, DType::U32},
    {Code::UInt, 64, DType::U64},
    {Code::Float, 16, DType::F16},
    {Code::Float, 32, DType::F32},
    {Code::Float, 64, DType::F64},
    {Code::Bfloat, 16, DType::BF16},
    {Code::Complex, 64, DType::C64},
    {Code::Complex, 128, DType::C128},
    {Code::Float8_E5M2, 8, DType::FP8E5M2},
    {Code::Float8_E4M3FN, 8, DType::FP8E4M3},
    {Code::Float8_E8M0FNU, 8, DType::FP8E8M0},
};

DType dlpackDType(nb::dlpack::dtype t) {
  for (const DlpackType &r : kDlpackTypes)
    if (t.lanes == 1 && uint8_t(r.code) == t.code && r.bits == t.bits)
      return r.dtype;
  throw nb::type_error(("cutwin arrays cannot hold the DLPack type (code " + std::to_string(t.code) + ", " +
                        std::to_string(t.bits) + " bits, " + std::to_string(t.lanes) + " lanes)")
                           .c_str());
}

nb::dlpack::dtype dlpackTypeOf(DType d) {
  for (const DlpackType &r : kDlpackTypes)
    if (r.dtype == d)
      return nb::dlpack::dtype{uint8_t(r.code), r.bits, 1};
  throw nb::type_error((std::string("DLPack has no type for ") + dtypeName(d) + " arrays").c_str());
}

/// A DLPack array (imported by nanobind) as a device array of `device`, in place.
DeviceArray fromImported(nb::ndarray<> arr, const std::shared_ptr<Device> &device) {
  int type = arr.device_type(), id = arr.device_id();
  bool host = type == nb::device::cpu::value || type == nb::device::cuda_host::value;
  bool gpu = type == nb::device::cuda::value || type == nb::device::cuda_managed::value ||
             type == nb::device::cuda_host::value;
  if (device->isSimulator() && !host)
    throw nb::type_error(("the simulator cannot use GPU memory (a DLPack array of device type " +
                          std::to_string(type) + "): copy it to the host first")
                             .c_str());
  if (!device->isSimulator() && !gpu)
    throw nb::type_error("a GPU kernel cannot use host memory in place (a DLPack array on the CPU): pass a "
                         "NumPy array, which is copied, or a device array");
  if (!device->isSimulator() && type != nb::device::cuda_host::value && id != device->ordinal())
    throw LaunchError("a DLPack array of gpu:" + std::to_string(id) + " used on " + device->spec() +
                      ": a GPU faults with CUDA_ERROR_ILLEGAL_ADDRESS; make that GPU current");
  DType dtype = dlpackDType(arr.dtype());
  std::vector<int64_t> shape(arr.ndim()), strides(arr.ndim());
  for (size_t k = 0; k < arr.ndim(); ++k) {
    shape[k] = int64_t(arr.shape(k));
    strides[k] = arr.stride(k) * int64_t(dtypeSize(dtype));
  }
  void *data = arr.data();
  // The imported array itself is kept: its DLPack deleter runs when the last view goes.
  return device->wrap(data, dtype, std::move(shape), std::move(strides), holding(std::move(arr)));
}

/// The capsule a DLPack producer's `__dlpack__` (`method`) makes for `device`: the producer
/// orders its work before the consumer's stream (the launch's, else the legacy default
/// stream, 1) on a GPU; host memory (the simulator) takes no stream.
nb::object dlpackCapsule(nb::handle method, const Device &device, const Stream *stream) {
  static PyObject *version = nb::make_tuple(1, 0).release().ptr(); // (under the GIL)
  bool host = device.isSimulator();
  nb::object s = nb::int_(stream ? uintptr_t(stream->handle()) : uintptr_t(1));
  try {
    return host ? method(nb::arg("max_version") = nb::handle(version))
                : method(nb::arg("stream") = s, nb::arg("max_version") = nb::handle(version));
  } catch (nb::python_error &e) {
    if (!e.matches(PyExc_TypeError)) // a producer older than DLPack 1.0: no max_version
      throw;
    return host ? method() : method(nb::arg("stream") = s);
  }
}

/// A DLPack capsule as a device array of `device`.
DeviceArray fromCapsule(nb::handle capsule, const std::shared_ptr<Device> &device) {
  nb::ndarray<> arr;
  if (!nb::try_cast(capsule, arr))
    throw nb::type_error(
        "cannot read the DLPack array (read-only arrays are refused: kernels may write them)");
  return fromImported(std::move(arr), device);
}

/// `obj.name`, or an invalid object where it has no such attribute (other errors raise).
nb::object attributeOrNothing(nb::handle obj, PyObject *name) {
  PyObject *value = PyObject_GetAttr(obj.ptr(), name);
  if (value)
    return nb::steal(value);
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) // the producer's own error (PyTorch's, ...)
    throw nb::python_error();
  PyErr_Clear();
  return nb::object();
}

} // namespace

std::optional<DeviceArray> foreignArray(nb::handle obj, const ForeignContext &ctx) {
  if (nb::object desc = attributeOrNothing(obj, names().interface); desc.is_valid()) {
    if (!PyDict_Check(desc.ptr()))
      throw nb::type_error("__cuda_array_interface__ is not a dict");
    return fromInterface(obj, desc.ptr(), ctx);
  }
  if (nb::object method = attributeOrNothing(obj, names().dlpack); method.is_valid())
    return fromCapsule(dlpackCapsule(method, *ctx.device, ctx.stream), ctx.device);
  return std::nullopt;
}

DeviceArray fromDlpack(nb::handle obj, const std::shared_ptr<Device> &device, const Stream *stream) {
  if (PyCapsule_CheckExact(obj.ptr()))
    return fromCapsule(obj, device);
  nb::object method = attributeOrNothing(obj, names().dlpack);
  if (!method.is_valid())
    throw nb::type_error((std::string("a '") + nb::type_name(obj.type()).c_str() +
                          "' is no DLPack producer (it has no __dlpack__)")
                             .c_str());
  return fromCapsule(dlpackCapsule(method, *device, stream), device);
}

nb::object dlpackView(const DeviceArray &a) {
  nb::dlpack::dtype t = dlpackTypeOf(a.dtype());
  std::vector<size_t> shape(a.ndim());
  std::vector<int64_t> strides(a.ndim());
  int64_t itemsize = int64_t(dtypeSize(a.dtype()));
  for (size_t k = 0; k < a.ndim(); ++k) {
    shape[k] = size_t(a.shape()[k]);
    if (a.strides()[k] % itemsize)
      throw nb::value_error("DLPack cannot describe strides that are not whole elements");
    strides[k] = a.strides()[k] / itemsize;
  }
  bool sim = a.device().isSimulator();
  nb::capsule owner(new DeviceArray(a), [](void *p) noexcept { delete static_cast<DeviceArray *>(p); });
  nb::ndarray<nb::array_api> view(a.data(), a.ndim(), shape.data(), owner, strides.data(), t,
                                  sim ? nb::device::cpu::value : nb::device::cuda::value,
                                  sim ? 0 : a.device().ordinal());
  return nb::cast(view);
}

} // namespace cutwin::py
