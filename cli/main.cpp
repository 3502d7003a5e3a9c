// The `cutwin` command: compile kernels and print their IR, list kernels, run the
// conformance suite.
#include "backend_gpu/gpu_pipeline.h"
#include "backend_sim/sim_pipeline.h"
#include "conformance/runner.h"
#include "cutwin/cutwin.h"
#include "frontend/builtins/builtin.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/ir/sanitize_checks.h"
#include "frontend/sema/typer.h"
#include "runtime/pipeline.h"

#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_os_ostream.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>

namespace {

const char *kUsage = R"USAGE(usage:
  cutwin compile FILE --kernel NAME [--sig SIGNATURE] [--emit=ir|sim-ir|ptx] [--arch sm_XY]
                 [--codegen=nvptx|nvvm] [--dump-after=STEP[,STEP...]|all] [--stop-after=STEP]
                 [--no-boundscheck] [--sanitize=CHECKS] [--time]
  cutwin opt FILE.ll --step=STEP [--codegen=nvptx|nvvm] [--arch sm_XY] [--no-boundscheck]
                                     one IR step alone on textual IR; prints its result
  cutwin kernels FILE
  cutwin conformance [DIR] [--backend sim|gpu|both|available|ptx] [--codegen nvptx|nvvm] [--arch sm_XY]
                     [--filter TEXT] [--verbose] [--no-boundscheck] [--sanitize=CHECKS]
  cutwin cache [--clear]             the kernel cache on disk: its folder, entries and size;
                                     --clear removes every entry
  cutwin steps                       the pipeline's steps (docs/ir.md's table)
  cutwin intrinsics                  the kernel IR's cutwin.* intrinsics (docs/ir.md's table)
  cutwin builtins                    the functions kernels call, by family (docs/language.md's table)
  cutwin --version
  cutwin --help                      this text (also `cutwin COMMAND --help`)

SIGNATURE is numba's, e.g. "void(float32[:], float32[:], int64)"; a kernel with a declared
signature needs none. --dump-after=all prints every step of both backends; --time prints each
step's wall time to stderr. Steps: `cutwin steps`. --sanitize compiles the simulator's kernels
with the sanitizer's checks (race, init, all; docs/sanitizers.md), as CUTWIN_SANITIZE does.
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

/// A command's options: those that take a value (`--kernel NAME`, `--kernel=NAME`) and the
/// flags, and how many positional arguments it takes.
struct CommandSpec {
  const char *name;
  std::vector<std::string> valued, flags;
  size_t minPositional, maxPositional;
};

const std::vector<CommandSpec> &commands() {
  static const std::vector<CommandSpec> specs = {
      {"compile",
       {"kernel", "sig", "emit", "arch", "codegen", "dump-after", "stop-after", "sanitize"},
       {"no-boundscheck", "time"},
       1,
       1},
      {"opt", {"step", "codegen", "arch"}, {"no-boundscheck"}, 1, 1},
      {"kernels", {}, {}, 1, 1},
      {"conformance",
       {"backend", "codegen", "arch", "filter", "sanitize"},
       {"verbose", "no-boundscheck"},
       0,
       1},
      {"cache", {}, {"clear"}, 0, 0},
      {"steps", {}, {}, 0, 0},
      {"intrinsics", {}, {}, 0, 0},
      {"builtins", {}, {}, 0, 0},
  };
  return specs;
}

/// A command line the command cannot take: the message says what it expected.
struct UsageError {
  std::string message;
};

std::string optionList(const std::vector<std::string> &names) {
  std::string out;
  for (auto &n : names)
    out += (out.empty() ? "--" : ", --") + n;
  return out.empty() ? "none" : out;
}

Args parseArgs(const CommandSpec &spec, int argc, char **argv, int first) {
  Args a;
  auto in = [](const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  std::vector<std::string> all = spec.valued;
  all.insert(all.end(), spec.flags.begin(), spec.flags.end());
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) != 0) {
      a.positional.push_back(s);
      continue;
    }
    auto eq = s.find('=');
    std::string name = s.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (in(spec.flags, name)) {
      if (eq != std::string::npos)
        throw UsageError{"option --" + name + " takes no value"};
      a.options[name] = "1";
    } else if (in(spec.valued, name)) {
      if (eq != std::string::npos)
        a.options[name] = s.substr(eq + 1);
      else if (i + 1 < argc)
        a.options[name] = argv[++i];
      else
        throw UsageError{"option --" + name + " needs a value"};
    } else {
      throw UsageError{"unknown option '" + s + "'; its options: " + optionList(all)};
    }
  }
  if (a.positional.size() < spec.minPositional || a.positional.size() > spec.maxPositional)
    throw UsageError{std::string("takes ") +
                     (spec.maxPositional == 0   ? std::string("no arguments")
                      : spec.minPositional == 1 ? std::string("one file")
                                                : std::string("at most one directory")) +
                     ", got " + std::to_string(a.positional.size())};
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

/// The backends whose steps a compile must run for what it prints.
struct BackendsToRun {
  bool sim = false, gpu = false;
};

BackendsToRun backendsFor(const std::vector<std::string> &steps, const std::string &emit) {
  BackendsToRun r;
  r.sim = emit == "sim-ir";
  r.gpu = emit == "ptx";
  for (const std::string &s : steps) {
    if (s == "all") {
      r.sim = r.gpu = true;
      continue;
    }
    switch (cutwin::rt::stepInfo(cutwin::rt::stepNamed(s)).stage) {
    case cutwin::rt::StepStage::Frontend: break;
    case cutwin::rt::StepStage::Sim: r.sim = true; break;
    case cutwin::rt::StepStage::Gpu:
    case cutwin::rt::StepStage::Nvptx:
    case cutwin::rt::StepStage::Nvvm: r.gpu = true; break;
    }
  }
  return r;
}

/// The pipeline options `compile` and `opt` share: output to stdout, bounds checks, code generator.
cutwin::rt::PipelineOptions pipelineOptions(const Args &a) {
  cutwin::rt::PipelineOptions po;
  po.dump = &std::cout;
  po.boundscheck = !a.has("no-boundscheck");
  po.sanitize = a.has("sanitize") ? cutwin::ir::parseSanitizeChecks(a.get("sanitize"))
                                  : cutwin::ir::sanitizeChecksFromEnvironment();
  po.codegen = a.get("codegen", "nvptx");
  return po;
}

int cmdCompile(const Args &a) {
  using namespace cutwin;
  if (!a.has("kernel"))
    throw UsageError{"needs --kernel NAME"};
  rt::PipelineOptions po = pipelineOptions(a);
  po.dumpAfter = splitComma(a.get("dump-after"));
  po.stopAfter = a.get("stop-after");
  if (!po.stopAfter.empty())
    po.dumpAfter.push_back(po.stopAfter); // what the pipeline stopped at is what it prints
  rt::checkStepNames(po.dumpAfter);
  if (a.has("time"))
    po.timing = &std::cerr;
  std::string emit = a.get("emit", po.dumpAfter.empty() ? "ir" : "");
  if (emit != "" && emit != "ir" && emit != "sim-ir" && emit != "ptx")
    throw Error("unknown --emit '" + emit + "' (expected ir, sim-ir or ptx)");
  BackendsToRun backends = backendsFor(po.dumpAfter, emit);
  try {
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
    // The GPU gets line directives only (full debug info makes the driver compile PTX
    // unoptimised): with both backends, the kernel IR is built once for each.
    po.lineDirectivesOnly = backends.gpu && !backends.sim;
    ir::KernelIR kir = rt::buildKernelIR(*pm, kernel, types, po);
    if (emit == "ir") {
      llvm::raw_os_ostream os(std::cout);
      kir.module->print(os, nullptr);
      return 0;
    }
    if (emit == "sim-ir")
      po.dumpAfter.push_back(rt::stepInfo(rt::Step::SimVectorBodies).name); // the last IR step
    if (backends.sim)
      sim::compileForSim(std::move(kir), po);
    if (!backends.gpu)
      return 0;
    if (backends.sim) {
      rt::PipelineOptions gpo = po;
      gpo.lineDirectivesOnly = true;
      gpo.dumpAfter.clear(); // the frontend's steps were printed with the simulator's
      for (const rt::StepInfo &s : rt::pipelineSteps())
        if (s.stage != rt::StepStage::Frontend && s.stage != rt::StepStage::Sim && po.shouldDump(s.name))
          gpo.dumpAfter.push_back(s.name);
      rt::PipelineOptions quiet = gpo;
      quiet.dump = nullptr;
      kir = rt::buildKernelIR(*pm, kernel, types, quiet);
      po = gpo;
    }
    std::string ptx = gpu::compileForGpu(std::move(kir), po, a.get("arch", "sm_90")).ptx;
    if (emit == "ptx")
      std::cout << ptx;
  } catch (const rt::PipelineStopped &) {
  }
  return 0;
}

int cmdOpt(const Args &a) {
  using namespace cutwin;
  if (!a.has("step"))
    throw UsageError{"needs --step=STEP (`cutwin steps` lists them)"};
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic err;
  std::unique_ptr<llvm::Module> m = llvm::parseIRFile(a.positional[0], err, ctx);
  if (!m) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    err.print("cutwin opt", os);
    throw Error(os.str());
  }
  rt::runStepAlone(*m, a.get("step"), pipelineOptions(a), a.get("arch", "sm_90"));
  return 0;
}

int cmdKernels(const Args &a) {
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
  if (a.has("sanitize")) {                              // every module the run opens reads it
    cutwin::ir::parseSanitizeChecks(a.get("sanitize")); // (a bad name fails here, once)
    setenv("CUTWIN_SANITIZE", a.get("sanitize").c_str(), 1);
  }
  return cutwin::conformance::runSuite(o, std::cout) ? 0 : 1;
}

/// `cutwin cache [--clear]`.
int cmdCache(const Args &a) {
  if (a.has("clear")) {
    uint64_t removed = cutwin::clearKernelCache();
    std::cout << "removed " << removed << " entries from " << cutwin::kernelCacheUsage().directory << "\n";
    return 0;
  }
  cutwin::KernelCacheUsage u = cutwin::kernelCacheUsage();
  std::cout << u.directory << ": " << u.entries << " entries, " << (u.bytes + 512 * 1024) / (1024 * 1024)
            << " MiB\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  auto asksForHelp = [&] {
    for (int i = 1; i < argc; ++i)
      if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h"))
        return true;
    return false;
  };
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  if (asksForHelp()) {
    std::cout << kUsage;
    return 0;
  }
  std::string cmd = argv[1];
  if (cmd == "--version") {
    std::cout << "cutwin " << CUTWIN_VERSION << "\n";
    return 0;
  }
  auto spec = std::find_if(commands().begin(), commands().end(), [&](auto &c) { return cmd == c.name; });
  if (spec == commands().end()) {
    std::cerr << "cutwin: unknown command '" << cmd << "'\n" << kUsage;
    return 2;
  }
  try {
    Args a = parseArgs(*spec, argc, argv, 2);
    if (cmd == "compile")
      return cmdCompile(a);
    if (cmd == "kernels")
      return cmdKernels(a);
    if (cmd == "conformance")
      return cmdConformance(a);
    if (cmd == "opt")
      return cmdOpt(a);
    if (cmd == "cache")
      return cmdCache(a);
    if (cmd == "steps")
      std::cout << cutwin::rt::stepTableMarkdown();
    if (cmd == "intrinsics")
      std::cout << cutwin::ir::intrinsicTableMarkdown();
    if (cmd == "builtins")
      std::cout << cutwin::fe::builtinTableMarkdown();
    return 0;
  } catch (const UsageError &e) {
    std::cerr << "cutwin " << cmd << ": " << e.message << "\n" << kUsage;
    return 2;
  } catch (const cutwin::Error &e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
