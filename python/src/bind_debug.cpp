// The debugger for Python: the process's breakpoint handler (cutwin/debug.h) calls a Python
// function with each stop as a dict; cutwin.debug builds its prompt and API on that. Line
// breakpoints and watchpoints are set through here too.
#include "bindings.h"

#include "cutwin/debug.h"

#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace cutwin::py {

namespace {

nb::tuple dim3(const std::array<uint32_t, 3> &d) { return nb::make_tuple(d[0], d[1], d[2]); }

/// (name, dtype, ndim, address, memory) of each variable.
nb::list variables(const std::vector<BreakpointStop::Variable> &vs) {
  nb::list out;
  for (const auto &v : vs)
    out.append(nb::make_tuple(v.name, v.dtype, v.ndim, reinterpret_cast<uintptr_t>(v.address), v.memory));
  return out;
}

/// (function, file, line, variables) of each frame, innermost first.
nb::list frames(const std::vector<BreakpointStop::Frame> &fs) {
  nb::list out;
  for (const auto &f : fs)
    out.append(nb::make_tuple(f.function, f.file, f.line, variables(f.variables)));
  return out;
}

nb::bytes bytes(const std::vector<uint8_t> &b) {
  return nb::bytes(reinterpret_cast<const char *>(b.data()), b.size());
}

const char *causeName(BreakpointStop::Cause c) {
  switch (c) {
  case BreakpointStop::Cause::Breakpoint: return "breakpoint";
  case BreakpointStop::Cause::Step: return "step";
  case BreakpointStop::Cause::LineBreakpoint: return "break";
  case BreakpointStop::Cause::Watch: return "watch";
  case BreakpointStop::Cause::Error: return "error";
  }
  return "breakpoint";
}

nb::dict stopDict(const BreakpointStop &s) {
  nb::dict d;
  d["cause"] = causeName(s.cause);
  d["kernel"] = s.kernel;
  d["column"] = s.column;
  d["at_return"] = s.atReturn;
  d["reason"] = s.reason;
  nb::list ids;
  for (int id : s.lineBreakpoints)
    ids.append(id);
  d["line_breakpoints"] = ids;
  d["watch"] = s.cause == BreakpointStop::Cause::Watch
                   ? nb::object(nb::make_tuple(s.watch.id, bytes(s.watch.before), bytes(s.watch.after)))
                   : nb::none();
  d["threadIdx"] = dim3(s.threadIdx);
  d["blockIdx"] = dim3(s.blockIdx);
  d["blockDim"] = dim3(s.blockDim);
  d["gridDim"] = dim3(s.gridDim);
  d["frames"] = frames(s.frames);
  nb::list threads;
  for (const auto &t : s.threads)
    threads.append(nb::make_tuple(dim3(t.threadIdx), dim3(t.blockIdx), t.state, t.line, frames(t.frames)));
  d["threads"] = threads;
  return d;
}

/// What the Python handler returned, as the thread's next move.
Action action(nb::handle r) {
  if (nb::isinstance<nb::tuple>(r)) { // ("until", line)
    nb::tuple t = nb::borrow<nb::tuple>(r);
    if (t.size() == 2 && nb::isinstance<nb::str>(t[0]) && nb::cast<std::string>(t[0]) == "until")
      return {Resume::Until, nb::cast<int>(t[1])};
    throw nb::value_error("a breakpoint handler's tuple is ('until', line)");
  }
  if (nb::isinstance<nb::str>(r)) {
    std::string how = nb::cast<std::string>(r);
    if (how == "step")
      return Resume::StepInto;
    if (how == "next")
      return Resume::StepOver;
    if (how == "finish")
      return Resume::StepOut;
    throw nb::value_error(("unknown breakpoint handler result '" + how + "'").c_str());
  }
  return nb::cast<bool>(r) ? Resume::Continue : Resume::Quit;
}

PyObject *handler = nullptr; // owned; never released at exit (the interpreter may be gone)

using Filter = std::optional<std::array<uint32_t, 3>>;

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
          try {
            return action(nb::handle(callee)(stopDict(s)));
          } catch (nb::python_error &e) {
            e.restore();
            PyErr_Print();
            return Action(Resume::Quit);
          } catch (std::exception &e) {
            PySys_WriteStderr("cutwin: the breakpoint handler failed: %s\n", e.what());
            return Action(Resume::Quit);
          }
        });
      },
      nb::arg("handler").none(),
      "Calls handler(stop: dict) for each simulated thread that stops; it returns True to go on, "
      "False to end the launch (LaunchError), 'step', 'next', 'finish' or ('until', line) to go on "
      "and stop the thread again there. None: print stops and go on.");
  m.def(
      "add_line_breakpoint",
      [](const std::string &file, int line, Filter thread, Filter block) {
        return addLineBreakpoint(file, line, thread, block);
      },
      nb::arg("file"), nb::arg("line"), nb::arg("thread").none() = nb::none(),
      nb::arg("block").none() = nb::none());
  m.def("remove_line_breakpoint", &removeLineBreakpoint, nb::arg("id"));
  m.def("clear_line_breakpoints", &clearLineBreakpoints);
  m.def(
      "add_watchpoint",
      [](uintptr_t address, size_t bytes, Filter thread, Filter block, bool launchScoped) {
        return addWatchpoint(reinterpret_cast<void *>(address), bytes, thread, block, launchScoped);
      },
      nb::arg("address"), nb::arg("bytes"), nb::arg("thread").none() = nb::none(),
      nb::arg("block").none() = nb::none(), nb::arg("launch_scoped") = false);
  m.def("remove_watchpoint", &removeWatchpoint, nb::arg("id"));
  m.def("clear_watchpoints", &clearWatchpoints);
  m.def("watchpoint_ids", [] {
    nb::list ids;
    for (int id : watchpointIds())
      ids.append(id);
    return ids;
  });
}

} // namespace cutwin::py
