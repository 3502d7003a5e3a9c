// Kernel modules and launches: Python values -> kernel arguments, the host's knowledge of
// module names (constants, jitted functions) -> ModuleBindings. Python's C API is used in
// its stable-ABI subset (functions, not the tuple and float macros): the cp312-abi3 wheel.
#include "bindings.h"
#include "foreign_arrays.h"

#include "cutwin/cutwin.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace nb = nanobind;

namespace cutwin::py {

namespace {

/// NumPy's numeric scalar types (np.float32, np.int8, ...; the package registers them),
/// whose values launches read directly, through the buffer protocol.
std::vector<std::pair<PyTypeObject *, DType>> &numpyScalarTypes() {
  static std::vector<std::pair<PyTypeObject *, DType>> types;
  return types;
}

/// A NumPy scalar's value as a scalar argument of `dtype` (its bytes, widened as Arg::Scalar keeps them).
Arg numpyScalar(PyObject *o, DType dtype) {
  Py_buffer view;
  if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) != 0)
    throw nb::python_error();
  unsigned char b[16] = {};
  std::memcpy(b, view.buf, std::min<size_t>(size_t(view.len), sizeof b));
  PyBuffer_Release(&view);
  auto doubleBits = [](double d) {
    uint64_t u;
    std::memcpy(&u, &d, 8);
    return u;
  };
  auto at = [&](auto v, size_t offset) {
    std::memcpy(&v, b + offset, sizeof v);
    return double(v);
  };
  Arg::Scalar s{dtype, 0};
  if (dtype == DType::Bool) {
    s.bits = b[0] != 0;
  } else if (dtype == DType::F16) {
    s.bits = doubleBits(at(_Float16(), 0));
  } else if (dtype == DType::F32 || dtype == DType::C64) {
    s.bits = doubleBits(at(float(), 0));
    s.imagBits = dtype == DType::C64 ? doubleBits(at(float(), 4)) : 0;
  } else if (dtype == DType::F64 || dtype == DType::C128) {
    s.bits = doubleBits(at(double(), 0));
    s.imagBits = dtype == DType::C128 ? doubleBits(at(double(), 8)) : 0;
  } else { // an integer: its bytes, sign- or zero-extended to 64 bits
    size_t n = dtypeSize(dtype);
    uint64_t u = 0;
    std::memcpy(&u, b, n);
    bool isSigned = dtype == DType::I8 || dtype == DType::I16 || dtype == DType::I32 || dtype == DType::I64;
    if (isSigned && n < 8 && ((u >> (8 * n - 1)) & 1))
      u |= ~uint64_t(0) << (8 * n);
    s.bits = u;
  }
  return Arg(s);
}

/// A kernel argument from a Python value: a DeviceArray, a bool, an int (int64, or uint64
/// beyond its range, as numba types them), a float (float64), a (dtype name, value) pair
/// for a scalar of a given dtype (NumPy scalars), ("record", array) for a record,
/// {"enum": class name, "int": IntEnum?, "value": value} for an enum member, or another
/// library's array (CUDA Array Interface, DLPack; foreign_arrays.h), used in place.
Arg toArg(nb::handle h, const ForeignContext &foreign) {
  if (nb::isinstance<DeviceArray>(h))
    return Arg(nb::cast<const DeviceArray &>(h));
  PyObject *o = h.ptr();
  for (auto &[type, dtype] : numpyScalarTypes())
    if (Py_TYPE(o) == type)
      return numpyScalar(o, dtype);
  if (PyDict_Check(o) && nb::borrow<nb::dict>(h).contains("enum")) {
    nb::dict d = nb::borrow<nb::dict>(h);
    return Arg::enumMember(nb::cast<std::string>(d["enum"]), nb::cast<bool>(d["int"]),
                           toArg(d["value"], foreign));
  }
  if (PyBool_Check(o))
    return Arg(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (!overflow)
      return Arg(int64_t(v));
    unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (PyErr_Occurred())
      throw nb::python_error();
    return Arg(uint64_t(u));
  }
  if (PyFloat_Check(o))
    return Arg(PyFloat_AsDouble(o));
  if (PyComplex_Check(o)) { // complex128, as numba types a Python complex
    Arg::Scalar s{DType::C128, 0};
    double re = PyComplex_RealAsDouble(o), im = PyComplex_ImagAsDouble(o);
    std::memcpy(&s.bits, &re, 8);
    std::memcpy(&s.imagBits, &im, 8);
    return Arg(s);
  }
  if (PyTuple_Check(o) && PyTuple_Size(o) == 4 && PyUnicode_Check(PyTuple_GetItem(o, 0)) &&
      nb::cast<std::string>(nb::handle(PyTuple_GetItem(o, 0))) == "namedtuple") {
    // ("namedtuple", class name, field names, elements): a named tuple argument
    std::vector<std::string> fields;
    for (nb::handle f : nb::borrow<nb::tuple>(nb::handle(PyTuple_GetItem(o, 2))))
      fields.push_back(nb::cast<std::string>(f));
    std::vector<Arg> elems;
    for (nb::handle e : nb::borrow<nb::tuple>(nb::handle(PyTuple_GetItem(o, 3))))
      elems.push_back(toArg(e, foreign));
    return Arg::namedTuple(nb::cast<std::string>(nb::handle(PyTuple_GetItem(o, 1))), std::move(fields),
                           std::move(elems));
  }
  if (PyTuple_Check(o) && !(PyTuple_Size(o) == 2 && PyUnicode_Check(PyTuple_GetItem(o, 0)))) {
    std::vector<Arg> elems; // a tuple argument (the package converted its elements)
    for (nb::handle e : nb::borrow<nb::tuple>(h))
      elems.push_back(toArg(e, foreign));
    return Arg::tuple(std::move(elems));
  }
  if (PyTuple_Check(o) && PyTuple_Size(o) == 2 && PyUnicode_Check(PyTuple_GetItem(o, 0)) &&
      nb::cast<std::string>(nb::handle(PyTuple_GetItem(o, 0))) == "record") {
    // ("record", one-element DeviceArray): a NumPy structured scalar, passed by address
    return Arg::record(nb::cast<const DeviceArray &>(nb::handle(PyTuple_GetItem(o, 1))));
  }
  if (PyTuple_Check(o) && PyTuple_Size(o) == 2) { // (dtype name, value): a NumPy scalar
    auto dtype = dtypeFromName(nb::cast<std::string>(nb::handle(PyTuple_GetItem(o, 0))));
    nb::handle v(PyTuple_GetItem(o, 1));
    if (dtype) {
      Arg::Scalar s{*dtype, 0};
      if (*dtype == DType::C64 || *dtype == DType::C128) {
        nb::object z = nb::borrow(v); // complex(v), as Python converts a number to complex
        if (!PyComplex_Check(z.ptr()))
          z = nb::borrow(reinterpret_cast<PyObject *>(&PyComplex_Type))(v);
        double re = PyComplex_RealAsDouble(z.ptr()), im = PyComplex_ImagAsDouble(z.ptr());
        std::memcpy(&s.bits, &re, 8);
        std::memcpy(&s.imagBits, &im, 8);
      } else if (dtypeIsFloat(*dtype)) {
        double d = nb::cast<double>(v);
        std::memcpy(&s.bits, &d, 8);
      } else if (*dtype == DType::U64) {
        s.bits = nb::cast<uint64_t>(v);
      } else {
        s.bits = uint64_t(nb::cast<int64_t>(v));
      }
      return Arg(s);
    }
  }
  if (std::optional<DeviceArray> a = foreignArray(h, foreign))
    return Arg(std::move(*a));
  throw nb::type_error(
      (std::string("cannot pass a value of type '") + nb::type_name(h.type()).c_str() + "' to a kernel")
          .c_str());
}

/// The arguments of a launch of `k` (or, without `stream`, of a compilation for their types).
std::vector<Arg> toArgs(nb::handle seq, const Kernel &k, const Stream *stream = nullptr,
                        bool interfaceSync = false) {
  ForeignContext foreign{k.device(), stream, interfaceSync};
  std::vector<Arg> args;
  for (nb::handle h : seq)
    args.push_back(toArg(h, foreign));
  return args;
}

/// A 1-3 tuple of ints (the package has normalised it) as Dim3.
Dim3 toDim3(nb::handle t) {
  uint32_t d[3] = {1, 1, 1};
  if (!PyTuple_Check(t.ptr()) || PyTuple_Size(t.ptr()) < 1 || PyTuple_Size(t.ptr()) > 3)
    throw nb::type_error("grid and block dimensions must be tuples of 1 to 3 ints");
  for (Py_ssize_t k = 0; k < PyTuple_Size(t.ptr()); ++k)
    d[k] = nb::cast<uint32_t>(nb::handle(PyTuple_GetItem(t.ptr(), k)));
  return Dim3(d[0], d[1], d[2]);
}

/// The dtype a packed host value names (d["dtype"]); `what` starts the error.
DType packedDType(nb::dict d, const char *what) {
  std::string name = nb::cast<std::string>(d["dtype"]);
  auto dtype = dtypeFromName(name);
  if (!dtype)
    throw nb::type_error((std::string(what) + " '" + name + "'").c_str());
  return *dtype;
}

HostValue hostValue(nb::handle h) {
  HostValue v;
  PyObject *o = h.ptr();
  if (o == Py_None) {
    v.kind = HostValue::Kind::None;
  } else if (PyBool_Check(o)) {
    v.kind = HostValue::Kind::Bool;
    v.b = o == Py_True;
  } else if (PyLong_Check(o)) {
    v.kind = HostValue::Kind::Int;
    v.i = nb::cast<int64_t>(h);
  } else if (PyFloat_Check(o)) {
    v.kind = HostValue::Kind::Float;
    v.f = PyFloat_AsDouble(o);
  } else if (PyUnicode_Check(o)) {
    v.kind = HostValue::Kind::Str;
    v.s = nb::cast<std::string>(h);
  } else if (PyTuple_Check(o)) {
    v.kind = HostValue::Kind::Tuple;
    for (nb::handle e : nb::borrow<nb::tuple>(h))
      v.elems.push_back(hostValue(e));
  } else if (PyDict_Check(o) && nb::borrow<nb::dict>(h).contains("enum")) {
    // An enum member, as resolve packs it: its class and its value.
    nb::dict d = nb::borrow<nb::dict>(h);
    v = hostValue(d["value"]);
    v.enumClass = nb::cast<std::string>(d["enum"]);
    v.intEnum = nb::cast<bool>(d["int"]);
  } else if (PyDict_Check(o) && nb::borrow<nb::dict>(h).contains("scalar")) {
    // A NumPy scalar, as the dispatcher packs it: its dtype name and value.
    nb::dict d = nb::borrow<nb::dict>(h);
    v = hostValue(d["scalar"]);
    v.dtype = packedDType(d, "global scalars cannot have dtype");
    v.typedScalar = true;
  } else if (PyDict_Check(o) && nb::borrow<nb::dict>(h).contains("device_pointer")) {
    // A global device array, captured by address: dtype name, shape, byte strides.
    nb::dict d = nb::borrow<nb::dict>(h);
    v.kind = HostValue::Kind::DeviceArray;
    v.dtype = packedDType(d, "captured device arrays cannot hold dtype");
    v.shape = nb::cast<std::vector<int64_t>>(d["shape"]);
    v.strides = nb::cast<std::vector<int64_t>>(d["strides"]);
    v.address = nb::cast<uint64_t>(d["device_pointer"]);
  } else if (PyDict_Check(o)) {
    // A global NumPy array, as the dispatcher packs it: dtype name, shape, C-order bytes.
    nb::dict d = nb::borrow<nb::dict>(h);
    v.kind = HostValue::Kind::Array;
    v.dtype = packedDType(d, "global arrays cannot hold dtype");
    v.shape = nb::cast<std::vector<int64_t>>(d["shape"]);
    nb::bytes data = nb::borrow<nb::bytes>(d["data"]);
    const auto *p = static_cast<const uint8_t *>(data.data());
    v.bytes.assign(p, p + data.size());
  } else {
    throw nb::type_error("host constants must be bools, ints, floats, tuples of them or arrays");
  }
  return v;
}

JitDeclaration jitDeclaration(nb::dict d) {
  JitDeclaration j;
  auto get = [&](const char *k) { return d.contains(k) ? nb::handle(d[k]) : nb::handle(); };
  if (auto v = get("device"))
    j.device = nb::cast<bool>(v);
  if (auto v = get("signatures"))
    j.signatures = nb::cast<std::vector<std::string>>(v);
  if (auto v = get("debug"))
    j.debug = nb::cast<bool>(v);
  if (auto v = get("fastmath"))
    j.fastmath = nb::cast<bool>(v);
  if (auto v = get("lineinfo"))
    j.lineinfo = nb::cast<bool>(v);
  if (auto v = get("boundscheck"); v && !v.is_none())
    j.boundscheck = nb::cast<bool>(v);
  if (auto v = get("sanitize"); v && !v.is_none()) // a bool, or the checks' names
    j.sanitize =
        nb::isinstance<nb::bool_>(v) ? (nb::cast<bool>(v) ? "all" : "none") : nb::cast<std::string>(v);
  if (auto v = get("opt"))
    j.opt = nb::cast<int>(v);
  if (auto v = get("link"))
    j.link = nb::cast<std::vector<std::string>>(v);
  if (auto v = get("launch_bounds"))
    j.launchBounds = nb::cast<std::vector<int>>(v);
  if (auto v = get("inline"))
    j.inlineAlways = nb::cast<bool>(v);
  if (auto v = get("forceinline"))
    j.forceInline = nb::cast<bool>(v);
  return j;
}

NameBinding nameBinding(nb::dict d) {
  static const std::map<std::string, NameBinding::Kind> kinds = {
      {"module", NameBinding::Kind::Module},       {"member", NameBinding::Kind::Member},
      {"constant", NameBinding::Kind::Constant},   {"type", NameBinding::Kind::Type},
      {"function", NameBinding::Kind::Function},   {"foreign", NameBinding::Kind::Foreign},
      {"exception", NameBinding::Kind::Exception}, {"host", NameBinding::Kind::HostOnly}};
  NameBinding b;
  std::string kind = nb::cast<std::string>(d["kind"]);
  auto it = kinds.find(kind);
  if (it == kinds.end())
    throw nb::value_error(("unknown name binding kind '" + kind + "'").c_str());
  b.kind = it->second;
  if (d.contains("path"))
    b.path = nb::cast<std::string>(d["path"]);
  if (d.contains("attrs"))
    b.attrs = nb::cast<std::vector<std::string>>(d["attrs"]);
  if (d.contains("value"))
    b.value = hostValue(d["value"]);
  if (d.contains("text"))
    b.text = nb::cast<std::string>(d["text"]);
  if (d.contains("foreign_name"))
    b.foreignName = nb::cast<std::string>(d["foreign_name"]);
  if (d.contains("link"))
    b.foreignLink = nb::cast<std::vector<std::string>>(d["link"]);
  if (d.contains("abi"))
    b.foreignCAbi = nb::cast<std::string>(d["abi"]) == "c";
  if (d.contains("members"))
    for (auto [name, m] : nb::borrow<nb::dict>(d["members"]))
      b.members[nb::cast<std::string>(name)] = nameBinding(nb::borrow<nb::dict>(m));
  return b;
}

FunctionUnit functionUnit(nb::dict d) {
  FunctionUnit u;
  u.id = nb::cast<std::string>(d["id"]);
  u.file = nb::cast<std::string>(d["file"]);
  u.source = nb::cast<std::string>(d["source"]);
  u.function = nb::cast<std::string>(d["function"]);
  u.declaration = jitDeclaration(nb::borrow<nb::dict>(d["declaration"]));
  for (auto [name, b] : nb::borrow<nb::dict>(d["names"]))
    u.names[nb::cast<std::string>(name)] = nameBinding(nb::borrow<nb::dict>(b));
  if (d.contains("defaults"))
    for (auto [name, v] : nb::borrow<nb::dict>(d["defaults"]))
      u.defaults[nb::cast<std::string>(name)] = hostValue(v);
  return u;
}

} // namespace

void bindKernel(nb::module_ &m) {
  m.def(
      "register_scalar_types",
      [](nb::dict types) {
        numpyScalarTypes().clear();
        for (auto [type, name] : types) {
          auto dtype = dtypeFromName(nb::cast<std::string>(name));
          static const DType numeric[] = {DType::Bool, DType::I8,  DType::I16, DType::I32, DType::I64,
                                          DType::U8,   DType::U16, DType::U32, DType::U64, DType::F16,
                                          DType::F32,  DType::F64, DType::C64, DType::C128};
          if (!dtype || std::find(std::begin(numeric), std::end(numeric), *dtype) == std::end(numeric))
            throw nb::value_error("register_scalar_types takes NumPy's numeric scalar types");
          Py_INCREF(type.ptr()); // (kept for the process's life)
          numpyScalarTypes().emplace_back(reinterpret_cast<PyTypeObject *>(type.ptr()), *dtype);
        }
      },
      nb::arg("types"), "NumPy scalar types -> dtype names, read directly by launches.");
  nb::class_<Kernel>(m, "Kernel")
      .def_prop_ro("name", &Kernel::name)
      .def(
          "launch",
          [](Kernel &k, nb::handle grid, nb::handle block, nb::handle args, uint64_t shared,
             const Stream *stream, double timeout, bool interfaceSync) {
            Dim3 g = toDim3(grid), b = toDim3(block);
            std::vector<Arg> a = toArgs(args, k, stream, interfaceSync);
            {
              nb::gil_scoped_release release;
              k.launch(g, b, a, LaunchOptions{shared, stream, timeout});
            }
            // the warnings of a launch that compiled (the caller warns with each)
            std::vector<std::string> w = k.takeWarnings();
            return w.empty() ? nb::object(nb::none()) : nb::cast(w);
          },
          nb::arg("grid"), nb::arg("block"), nb::arg("args"), nb::arg("shared") = 0,
          nb::arg("stream").none() = nb::none(), nb::arg("timeout") = 0.0, nb::arg("interface_sync") = true)
      .def(
          "ir", [](Kernel &k, nb::handle args) { return k.ir(toArgs(args, k)); }, nb::arg("args"))
      .def(
          "local_types", [](Kernel &k, nb::handle args) { return k.localTypes(toArgs(args, k)); },
          nb::arg("args"))
      .def("compiled_signatures", &Kernel::compiledSignatures)
      .def("cached_signatures", &Kernel::cachedSignatures)
      .def("take_warnings", &Kernel::takeWarnings)
      .def(
          "attributes",
          [](Kernel &k, nb::handle args) {
            KernelAttributes a = k.attributes(toArgs(args, k));
            nb::dict d;
            d["regs_per_thread"] = a.registersPerThread;
            d["shared_mem_per_block"] = a.sharedBytesPerBlock;
            d["local_mem_per_thread"] = a.localBytesPerThread;
            d["const_mem_size"] = a.constBytes;
            d["max_threads_per_block"] = a.maxThreadsPerBlock;
            d["cooperative"] = a.cooperative;
            return d;
          },
          nb::arg("args"))
      .def(
          "ptx",
          [](Kernel &k, nb::handle args, const std::string &arch) { return k.ptx(toArgs(args, k), arch); },
          nb::arg("args"), nb::arg("arch") = "sm_90")
      .def(
          "max_cooperative_grid_blocks",
          [](Kernel &k, nb::handle block, uint64_t shared, nb::handle args) {
            return args.is_none() ? k.maxCooperativeGridBlocks(toDim3(block), shared)
                                  : k.maxCooperativeGridBlocks(toArgs(args, k), toDim3(block), shared);
          },
          nb::arg("block"), nb::arg("shared") = 0, nb::arg("args").none() = nb::none());

  m.def("kernel_cache_usage", [] {
    KernelCacheUsage u = kernelCacheUsage();
    return nb::make_tuple(u.directory, u.entries, u.bytes);
  });
  m.def("clear_kernel_cache", &clearKernelCache);

  nb::class_<Module>(m, "Module")
      .def_static(
          "from_string",
          [](std::shared_ptr<Device> dev, const std::string &source, const std::string &filename,
             std::optional<bool> boundscheck, int opt, const std::string &codegen, nb::dict constants,
             nb::dict functions, std::optional<bool> cache) {
            CompileOptions o;
            o.boundscheck = boundscheck;
            o.optLevel = opt;
            o.codegen = codegen;
            o.cache = cache;
            ModuleBindings b;
            for (auto [name, value] : constants)
              b.constants[nb::cast<std::string>(name)] = hostValue(value);
            for (auto [name, decl] : functions)
              b.functions[nb::cast<std::string>(name)] = jitDeclaration(nb::borrow<nb::dict>(decl));
            return Module::fromString(std::move(dev), source, filename, o, b);
          },
          nb::arg("device"), nb::arg("source"), nb::arg("filename"),
          nb::arg("boundscheck").none() = nb::none(), nb::arg("opt") = 2, nb::arg("codegen") = "nvptx",
          nb::arg("constants") = nb::dict(), nb::arg("functions") = nb::dict(),
          nb::arg("cache").none() = nb::none())
      .def_static(
          "from_units",
          [](std::shared_ptr<Device> dev, nb::list units, std::optional<bool> boundscheck, int opt,
             const std::string &codegen, std::optional<bool> cache) {
            CompileOptions o;
            o.boundscheck = boundscheck;
            o.optLevel = opt;
            o.codegen = codegen;
            o.cache = cache;
            std::vector<FunctionUnit> us;
            for (nb::handle u : units)
              us.push_back(functionUnit(nb::borrow<nb::dict>(u)));
            return Module::fromUnits(std::move(dev), us, o);
          },
          nb::arg("device"), nb::arg("units"), nb::arg("boundscheck").none() = nb::none(), nb::arg("opt") = 2,
          nb::arg("codegen") = "nvptx", nb::arg("cache").none() = nb::none())
      .def("kernel", &Module::kernel, nb::arg("name"))
      .def("has_function", &Module::hasFunction, nb::arg("name"))
      .def_prop_ro("cache_directory", &Module::cacheDirectory)
      .def(
          "set_load_hook",
          [](Module &m, nb::object fn) {
            // Called from launches that released the GIL, and from the module's destructor,
            // which may run after the interpreter has finished (then nothing is called).
            std::shared_ptr<nb::object> holder(new nb::object(std::move(fn)), [](nb::object *o) {
              if (!Py_IsInitialized())
                return; // the interpreter is gone: leave the object
              nb::gil_scoped_acquire gil;
              delete o;
            });
            m.setLoadHook([holder](const std::string &kernel, void *handle, bool loaded) {
              if (!Py_IsInitialized())
                return;
              nb::gil_scoped_acquire gil;
              (*holder)(kernel, reinterpret_cast<uintptr_t>(handle), loaded);
            });
          },
          nb::arg("hook"))
      .def(
          "compile_function",
          [](Module &m, const std::string &name, const std::string &signature, bool device,
             const std::string &abi, const std::string &abiName, const std::string &arch,
             const std::string &output) {
            FunctionCompileRequest r;
            r.signature = signature;
            r.device = device;
            r.abi = abi;
            r.abiName = abiName;
            r.arch = arch;
            r.output = output;
            CompiledFunction f = m.compileFunction(name, r);
            nb::object code = output == "ltoir" ? nb::object(nb::bytes(f.code.data(), f.code.size()))
                                                : nb::object(nb::str(f.code.data(), f.code.size()));
            return nb::make_tuple(code, f.returnType, f.name);
          },
          nb::arg("name"), nb::arg("signature"), nb::arg("device"), nb::arg("abi") = "numba",
          nb::arg("abi_name") = "", nb::arg("arch") = "sm_90", nb::arg("output") = "ptx")
      .def_prop_ro("kernel_names", &Module::kernelNames);
}

} // namespace cutwin::py
