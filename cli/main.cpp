// The `cutwin` command: compile kernels and print their IR, list kernels, run the
// conformance suite.
#include "conformance/runner.h"
#include "cutwin/cutwin.h"
#include "frontend/sema/typer.h"
#include "runtime/pipeline.h"

#include <llvm/Support/raw_os_ostream.h>

#include <cstring>
#include <iostream>
#include <map>
#include <sstream>

namespace {

const char *kUsage = R"USAGE(usage:
  cutwin compile FILE --kernel NAME [--sig SIGNATURE] [--emit=ir|sim-ir|ptx] [--arch sm_XY]
                 [--codegen=nvptx|nvvm]
                 [--dump-after=STEP[,STEP...]|all] [--no-boundscheck] [--time]
  cutwin kernels FILE
  cutwin conformance [DIR] [--backend sim|gpu|both|available|ptx] [--codegen nvptx|nvvm] [--arch sm_XY]
                     [--filter TEXT] [--verbose] [--no-boundscheck]
  cutwin --version

SIGNATURE is numba's, e.g. "void(float32[:], float32[:], int64)"; a kernel with a declared
signature needs none. Steps: parse resolve type lower verify cleanup contract, then sim-lower
sim-libdevice sim-nan sim-optimize sim-jit, or gpu-lower gpu-libdevice gpu-optimize gpu-ptx (NVPTX),
or gpu-lower gpu-nvvm-ir gpu-ptx (NVVM). --time prints each step's wall time to stderr.
)USAGE";

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;
  bool has(const std::string &k) const { return options.count(k) > 0; }
  std::string get(const std::string &k, const std::string &def = "") const {
    auto it = options.find(k);
    return it == options.end() ? def : it->second;
  }
};

Args parseArgs(int argc, char **argv, int first) {
  Args a;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) == 0) {
      auto eq = s.find('=');
      if (eq != std::string::npos) {
        a.options[s.substr(2, eq - 2)] = s.substr(eq + 1);
      } else if (s == "--no-boundscheck" || s == "--verbose" || s == "--time") {
        a.options[s.substr(2)] = "1";
      } else if (i + 1 < argc) {
        a.options[s.substr(2)] = argv[++i];
      } else {
        a.options[s.substr(2)] = "";
      }
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

std::vector<std::string> splitComma(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

int cmdCompile(const Args &a) {
  using namespace cutwin;
  if (a.positional.size() != 1 || !a.has("kernel")) {
    std::cerr << kUsage;
    return 2;
  }
  rt::PipelineOptions po;
  po.dump = &std::cout;
  po.dumpAfter = splitComma(a.get("dump-after"));
  po.boundscheck = !a.has("no-boundscheck");
  po.codegen = a.get("codegen", "nvptx");
  if (a.has("time"))
    po.timing = &std::cerr;
  auto file = fe::SourceFile::fromFile(a.positional[0]);
  auto pm = rt::parseKernelModule(file, po);
  std::string kernel = a.get("kernel");
  const fe::Symbol *sym = pm->scope().definedFunction(kernel);
  if (!sym || sym->options.device)
    throw Error("'" + a.positional[0] + "' has no kernel named '" + kernel + "'");
  fe::Signature sig;
  if (a.has("sig"))
    sig = pm->scope().parseSignatureText(a.get("sig"), sym->loc);
  else if (!sym->options.signatures.empty())
    sig = pm->scope().parseSignature(sym->options.signatures.front());
  else
    throw Error("kernel '" + kernel + "' declares no signature: pass --sig \"void(...)\"");
  auto types = fe::kernelArgTypesFromSignature(pm->scope(), *sym, sig);
  std::string emit = a.get("emit", po.dumpAfter.empty() ? "ir" : "");
  bool gpuSteps = emit == "ptx";
  for (auto &s : po.dumpAfter)
    gpuSteps = gpuSteps || s.rfind("gpu-", 0) == 0;
  po.lineDirectivesOnly = gpuSteps;
  ir::KernelIR kir = rt::buildKernelIR(*pm, kernel, types, po);
  if (emit == "ir") {
    llvm::raw_os_ostream os(std::cout);
    kir.module->print(os, nullptr);
    return 0;
  }
  if (emit == "ptx") {
    std::cout << rt::compileForGpu(std::move(kir), po, a.get("arch", "sm_90")).ptx;
    return 0;
  }
  if (gpuSteps) {
    rt::compileForGpu(std::move(kir), po, a.get("arch", "sm_90"));
    return 0;
  }
  bool simSteps = emit == "sim-ir";
  for (auto &s : po.dumpAfter)
    simSteps = simSteps || s == "all" || s.rfind("sim-", 0) == 0;
  if (emit == "sim-ir")
    po.dumpAfter.push_back("sim-optimize");
  if (simSteps)
    rt::compileForSim(std::move(kir), po);
  else if (!emit.empty())
    throw Error("unknown --emit '" + emit + "' (expected ir, sim-ir or ptx)");
  return 0;
}

int cmdKernels(const Args &a) {
  if (a.positional.size() != 1) {
    std::cerr << kUsage;
    return 2;
  }
  auto file = cutwin::fe::SourceFile::fromFile(a.positional[0]);
  auto pm = cutwin::rt::parseKernelModule(file, {});
  for (auto &k : pm->scope().kernelNames())
    std::cout << k << "\n";
  return 0;
}

int cmdConformance(const Args &a) {
  cutwin::conformance::RunOptions o;
  o.dir = a.positional.empty() ? CUTWIN_CONFORMANCE_DIR : a.positional[0];
  o.backend = a.get("backend", "sim");
  o.arch = a.get("arch", "sm_90");
  o.codegen = a.get("codegen", "nvptx");
  o.filter = a.get("filter");
  o.verbose = a.has("verbose");
  if (a.has("no-boundscheck"))
    o.boundscheck = false;
  return cutwin::conformance::runSuite(o, std::cout) ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  std::string cmd = argv[1];
  if (cmd == "--version") {
    std::cout << "cutwin " << CUTWIN_VERSION << "\n";
    return 0;
  }
  Args a = parseArgs(argc, argv, 2);
  try {
    if (cmd == "compile")
      return cmdCompile(a);
    if (cmd == "kernels")
      return cmdKernels(a);
    if (cmd == "conformance")
      return cmdConformance(a);
  } catch (const cutwin::Error &e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  std::cerr << "unknown command '" << cmd << "'\n" << kUsage;
  return 2;
}
