// C++ errors -> Python exceptions. The classes live in cutwin/errors.py (so that they
// subclass the builtin exceptions numba raises, e.g. IndexError); this file fills in
// their attributes from the C++ error.
#include "bindings.h"

#include "cutwin/errors.h"

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace cutwin::py {

namespace {

const char *kernelErrorClass(KernelErrorKind k) {
  switch (k) {
  case KernelErrorKind::IndexOutOfBounds: return "KernelIndexError";
  case KernelErrorKind::Assertion: return "KernelAssertionError";
  case KernelErrorKind::None:
  case KernelErrorKind::Exception:
  case KernelErrorKind::BarrierDivergence:
  case KernelErrorKind::Deadlock:
  case KernelErrorKind::Trap:
  case KernelErrorKind::IllegalAddress:
  case KernelErrorKind::StackOverflow:
  case KernelErrorKind::WarpDivergence:
  case KernelErrorKind::Livelock: break;
  case KernelErrorKind::Interrupted: return "KernelInterrupted";
  case KernelErrorKind::Timeout: return "KernelTimeoutError";
  case KernelErrorKind::DataRace: return "KernelRaceError";
  case KernelErrorKind::UninitializedRead: return "KernelUninitializedError";
  }
  return "KernelError";
}

/// Raises `type`(message) with `attrs` set on the instance.
void raiseAs(nb::object type, const std::string &message, const nb::dict &attrs) {
  nb::object exc = type(message);
  for (auto [k, v] : attrs)
    nb::setattr(exc, k, v);
  PyErr_SetObject(type.ptr(), exc.ptr());
}

/// Raises cutwin.errors.<cls>(message) with `attrs` set on the instance.
void raise(const char *cls, const std::string &message, const nb::dict &attrs = {}) {
  raiseAs(nb::module_::import_("cutwin.errors").attr(cls), message, attrs);
}

nb::tuple dims(const std::array<uint32_t, 3> &d) { return nb::make_tuple(d[0], d[1], d[2]); }

} // namespace

void bindErrors(nb::module_ &) {
  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const KernelError &e) {
      nb::dict a;
      a["kernel"] = e.kernel();
      a["file"] = e.file();
      a["line"] = e.loc().line;
      a["thread"] = dims(e.thread());
      a["block"] = dims(e.block());
      a["detail"] = e.detail();
      if (e.kind() == KernelErrorKind::Exception) // `raise ValueError(...)`: also a ValueError
        raiseAs(nb::module_::import_("cutwin.errors").attr("kernel_exception_class")(e.detail()), e.what(),
                a);
      else
        raise(kernelErrorClass(e.kind()), e.what(), a);
    } catch (const CompileError &e) {
      nb::dict a;
      a["file"] = e.file();
      a["line"] = e.loc().line;
      a["col"] = e.loc().col;
      a["msg"] = e.message();
      raiseAs(nb::module_::import_("cutwin.errors").attr("compile_error_class")(), e.what(), a);
    } catch (const SignatureMismatchError &e) {
      raise("SignatureMismatchError", e.what());
    } catch (const LaunchError &e) {
      raiseAs(nb::module_::import_("cutwin.errors").attr("compatible_class")("LaunchError"), e.what(), {});
    } catch (const DeviceError &e) {
      raise("DeviceError", e.what());
    } catch (const Error &e) {
      raise("CutwinError", e.what());
    }
  });
}

} // namespace cutwin::py
