#include "backend_gpu/libnvvm.h"

#include "backend_gpu/toolkit_library.h"
#include "cutwin/errors.h"
#include "frontend/ir/file_identity.h"
#include "frontend/ir/libdevice_link.h"

#include <nvvm.h>

#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

namespace cutwin::gpu {

namespace {

struct Libnvvm {
  decltype(&nvvmCreateProgram) create = nullptr;
  decltype(&nvvmDestroyProgram) destroy = nullptr;
  decltype(&nvvmAddModuleToProgram) add = nullptr;
  decltype(&nvvmLazyAddModuleToProgram) addLazy = nullptr;
  decltype(&nvvmCompileProgram) compile = nullptr;
  decltype(&nvvmGetCompiledResultSize) resultSize = nullptr;
  decltype(&nvvmGetCompiledResult) result = nullptr;
  decltype(&nvvmGetProgramLogSize) logSize = nullptr;
  decltype(&nvvmGetProgramLog) log = nullptr;
  decltype(&nvvmGetErrorString) errorString = nullptr;
  std::string error;
  std::string libdevice; ///< bitcode bytes
};

const Libnvvm &lib() {
  static std::once_flag once;
  static Libnvvm l;
  std::call_once(once, [] {
    void *h = openToolkitLibrary(
        "CUTWIN_LIBNVVM", {"/nvvm/lib64/libnvvm.so", "/lib64/libnvvm.so", "/lib/libnvvm.so"}, {"libnvvm.so"});
    if (!h) {
      l.error = "libNVVM not found (set CUTWIN_LIBNVVM to the toolkit's libnvvm.so)";
      return;
    }
    SymbolBinder bind(h, "libNVVM");
    bind(l.create, "nvvmCreateProgram");
    bind(l.destroy, "nvvmDestroyProgram");
    bind(l.add, "nvvmAddModuleToProgram");
    bind(l.addLazy, "nvvmLazyAddModuleToProgram");
    bind(l.compile, "nvvmCompileProgram");
    bind(l.resultSize, "nvvmGetCompiledResultSize");
    bind(l.result, "nvvmGetCompiledResult");
    bind(l.logSize, "nvvmGetProgramLogSize");
    bind(l.log, "nvvmGetProgramLog");
    bind(l.errorString, "nvvmGetErrorString");
    if (!bind.error().empty()) {
      l.error = bind.error();
      return;
    }
    std::ifstream in(ir::libdevicePath(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    l.libdevice = ss.str();
    if (l.libdevice.empty())
      l.error = "cannot read libdevice from " + ir::libdevicePath();
  });
  return l;
}

} // namespace

bool libnvvmAvailable(std::string *whyNot) {
  const Libnvvm &l = lib();
  if (whyNot)
    *whyNot = l.error;
  return l.error.empty();
}

std::string libnvvmIdentity() {
  const Libnvvm &l = lib();
  return l.error.empty() ? ir::identityOfFileHolding(reinterpret_cast<const void *>(l.compile)) : "";
}

std::string compileWithLibnvvm(const std::string &nvvmIR, const std::string &name, const NvvmOptions &o) {
  const Libnvvm &l = lib();
  if (!l.error.empty())
    throw Error(l.error);
  nvvmProgram prog = nullptr;
  if (l.create(&prog) != NVVM_SUCCESS)
    throw Error("nvvmCreateProgram failed");
  struct Destroy {
    const Libnvvm &l;
    nvvmProgram &p;
    ~Destroy() { l.destroy(&p); }
  } destroy{l, prog};
  auto fail = [&](nvvmResult r, const std::string &what) {
    size_t n = 0;
    l.logSize(prog, &n);
    std::string log(n, '\0');
    if (n)
      l.log(prog, log.data());
    std::string msg = "libNVVM " + what + " of kernel '" + name + "': " + l.errorString(r) + "\n" + log;
    throw CompileError("", {}, msg, msg);
  };
  if (nvvmResult r = l.add(prog, nvvmIR.data(), nvvmIR.size(), name.c_str()); r != NVVM_SUCCESS)
    fail(r, "reading the IR");
  if (nvvmResult r = l.addLazy(prog, l.libdevice.data(), l.libdevice.size(), "libdevice"); r != NVVM_SUCCESS)
    fail(r, "adding libdevice");
  std::string arch = "-arch=compute_" + o.arch.substr(3);
  std::string opt = "-opt=" + std::to_string(o.opt);
  std::string ftz = o.ftz ? "-ftz=1" : "-ftz=0";
  // fastmath as numba-cuda asks for it: flush, approximate float32 division and sqrt
  const char *precDiv = o.ftz ? "-prec-div=0" : "-prec-div=1",
             *precSqrt = o.ftz ? "-prec-sqrt=0" : "-prec-sqrt=1";
  std::vector<const char *> opts = {arch.c_str(), opt.c_str(), "-fma=0", ftz.c_str(), precDiv, precSqrt};
  if (o.lineInfo)
    opts.push_back("-generate-line-info");
  if (o.lto)
    opts.push_back("-gen-lto");
  if (nvvmResult r = l.compile(prog, int(opts.size()), opts.data()); r != NVVM_SUCCESS)
    fail(r, "compilation");
  size_t size = 0;
  l.resultSize(prog, &size);
  std::string ptx(size, '\0');
  l.result(prog, ptx.data());
  while (!o.lto && !ptx.empty() && ptx.back() == '\0')
    ptx.pop_back();
  return ptx;
}

} // namespace cutwin::gpu
