// Breakpoints for Python: the process's breakpoint handler (cutwin/debug.h) calls a Python
// function with each stop as a dict; cutwin.debug builds its prompt and API on that.
#include "bindings.h"

#include "cutwin/debug.h"

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace cutwin::py {

namespace {

nb::tuple dim3(const std::array<uint32_t, 3> &d) { return nb::make_tuple(d[0], d[1], d[2]); }

/// (name, dtype, ndim, address) of each variable.
nb::list variables(const std::vector<BreakpointStop::Variable> &vs) {
  nb::list out;
  for (const auto &v : vs)
    out.append(nb::make_tuple(v.name, v.dtype, v.ndim, reinterpret_cast<uintptr_t>(v.address)));
  return out;
}

nb::dict stopDict(const BreakpointStop &s) {
  nb::dict d;
  d["kernel"] = s.kernel;
  d["function"] = s.function;
  d["file"] = s.file;
  d["line"] = s.line;
  d["column"] = s.column;
  d["reason"] = s.reason;
  d["threadIdx"] = dim3(s.threadIdx);
  d["blockIdx"] = dim3(s.blockIdx);
  d["blockDim"] = dim3(s.blockDim);
  d["gridDim"] = dim3(s.gridDim);
  d["variables"] = variables(s.variables);
  nb::list threads;
  for (const auto &t : s.threads)
    threads.append(nb::make_tuple(dim3(t.threadIdx), t.state, t.line, t.function, variables(t.variables)));
  d["threads"] = threads;
  return d;
}

PyObject *handler = nullptr; // owned; never released at exit (the interpreter may be gone)

} // namespace

void bindDebug(nb::module_ &m) {
  m.def(
      "set_breakpoint_handler",
      [](nb::object fn) {
        // Called with the GIL held: the previous handler can be released here.
        Py_XDECREF(handler);
        handler = nullptr;
        if (fn.is_none()) {
          setBreakpointHandler(nullptr);
          return;
        }
        handler = fn.inc_ref().ptr();
        PyObject *callee = handler;
        setBreakpointHandler([callee](const BreakpointStop &s) {
          nb::gil_scoped_acquire gil; // launches release it
          nb::object r = nb::handle(callee)(stopDict(s));
          if (nb::isinstance<nb::str>(r)) {
            std::string how = nb::cast<std::string>(r);
            return how == "step" ? Resume::StepInto : how == "next" ? Resume::StepOver : Resume::Continue;
          }
          return nb::cast<bool>(r) ? Resume::Continue : Resume::Quit;
        });
      },
      nb::arg("handler").none(),
      "Calls handler(stop: dict) for each simulated thread that stops at a breakpoint; it returns "
      "True to go on, False to end the launch (LaunchError), 'step' or 'next' to go on and stop at "
      "the thread's next statement (in the same function for 'next'). None: print stops and go on.");
  m.def("set_line_breakpoint", &setLineBreakpoint, nb::arg("file"), nb::arg("line"),
        nb::arg("enabled") = true);
  m.def("clear_line_breakpoints", &clearLineBreakpoints);
}

} // namespace cutwin::py
