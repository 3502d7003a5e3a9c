// libFuzzer target: one input is a kernel file. It is parsed and resolved, and its kernels
// are typed, lowered, and taken through both backends' steps (the simulator's to its last
// IR step, the GPU's to PTX with LLVM's NVPTX backend; see fullPipeline), the IR verified
// after every step.
// Whatever the input, the compiler must answer with a CompileError naming file:line:col;
// anything else (a crash, a sanitizer report, an internal error, an unlocated error, a
// hang) is a finding and aborts. docs/robustness.md: building it, the seed corpus, campaigns.
//
// Which kernels: those with a signature in their decorator, and the one the first line
// names as the regression inputs and seeds do (`# kernel: NAME  signature: SIG`).
#include "backend_gpu/gpu_pipeline.h"
#include "backend_sim/sim_pipeline.h"
#include "frontend/diagnostics.h"
#include "frontend/sema/typer.h"
#include "runtime/pipeline.h"

#include <cutwin/errors.h>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace {

using namespace cutwin;

constexpr size_t kMaxKernels = 4; // per input: enough for every seed, bounded for speed

[[noreturn]] void finding(const std::string &what, const std::string &message) {
  std::fprintf(stderr, "fuzz_compile: %s:\n%s\n", what.c_str(), message.c_str());
  std::abort();
}

/// The compiler's own fault: its messages start so (an input may say the words anywhere).
bool isInternal(const std::string &message) { return message.rfind("internal error", 0) == 0; }

/// A CompileError is the one answer allowed; it must name where, and not be the compiler's own fault.
void checkDiagnostic(const CompileError &e) {
  if (e.file().empty() || e.loc().line == 0 || e.loc().col == 0)
    finding("error without file:line:col", e.what());
  if (isInternal(e.message())) // (its text, not what(): that quotes the source)
    finding("internal error", e.what());
}

/// The kernel and signature the input's first line names, if it names them.
struct Requested {
  std::string kernel, signature;
};
Requested requestedKernel(const std::string &text) {
  static const std::regex header(R"(^# kernel: (\S+)\s+signature: ([^\n]+))");
  std::smatch m;
  if (std::regex_search(text, m, header, std::regex_constants::match_continuous))
    return {m[1], m[2]};
  return {};
}

/// LLVM's optimisation pipelines and code generators take most of a compile's time. They
/// run for one input in 8, chosen by the input's hash (a finding reproduces); the others
/// stop after cutwin's own steps - the simulator's before its O2, the GPU's after the
/// LLVM 7 printer for libNVVM, without libNVVM - the IR verified after each all the same.
bool fullPipeline(const std::string &text) { return std::hash<std::string>{}(text) % 8 == 0; }

/// A copy of `k` in a context of its own (through bitcode).
ir::KernelIR copyOf(const ir::KernelIR &k) {
  llvm::SmallVector<char, 0> bits;
  llvm::raw_svector_ostream os(bits);
  llvm::WriteBitcodeToFile(*k.module, os);
  ir::KernelIR c;
  c.context = std::make_unique<llvm::LLVMContext>();
  auto m = llvm::parseBitcodeFile(llvm::MemoryBufferRef(llvm::StringRef(bits.data(), bits.size()), "copy"),
                                  *c.context);
  if (!m)
    finding("internal error",
            "the kernel IR does not read back from bitcode: " + llvm::toString(m.takeError()));
  c.module = std::move(*m);
  c.info = k.info;
  return c;
}

/// One kernel for one signature, through every step but loading code into the process.
void compileBoth(const rt::ParsedModule &pm, const std::string &kernel, const fe::Signature &sig, bool full) {
  const fe::Symbol *sym = pm.scope().definedFunction(kernel);
  auto types = fe::kernelArgTypesFromSignature(pm.scope(), *sym, sig);
  rt::PipelineOptions po;
  ir::KernelIR kir = rt::buildKernelIR(pm, kernel, types, po);
  // The GPU's kernel IR: built again with line directives only, as the runtime builds it;
  // or (most inputs) a copy, which spares the frontend's second run.
  std::optional<ir::KernelIR> forGpu;
  if (!full)
    forGpu = copyOf(kir);
  try {
    rt::PipelineOptions simOpts = po;
    if (!full)
      simOpts.stopAfter = rt::stepInfo(rt::Step::SimVectorVariants).name;
    ir::StepRunner steps(simOpts);
    sim::SimLoweringResult lowered;
    sim::runSimModuleSteps(*kir.module, kir.info, simOpts, steps, lowered);
  } catch (const rt::PipelineStopped &) {
  }
  po.lineDirectivesOnly = true;
  if (!full) {
    po.codegen = "nvvm";
    po.stopAfter = rt::stepInfo(rt::Step::GpuNvvmIR).name;
  } else {
    forGpu = rt::buildKernelIR(pm, kernel, types, po);
  }
  try {
    gpu::compileForGpu(std::move(*forGpu), po, "sm_90");
  } catch (const rt::PipelineStopped &) {
  }
}

void compileInput(const std::string &text) {
  auto file = std::make_shared<fe::SourceFile>("fuzz.py", text);
  rt::PipelineOptions po;
  auto pm = rt::parseKernelModule(file, po);
  Requested req = requestedKernel(text);
  bool full = fullPipeline(text);
  size_t compiled = 0;
  for (const std::string &name : pm->scope().kernelNames()) {
    if (compiled == kMaxKernels)
      break;
    const fe::Symbol *sym = pm->scope().definedFunction(name);
    if (name == req.kernel) {
      compileBoth(*pm, name, pm->scope().parseSignatureText(req.signature, sym->loc), full);
      ++compiled;
    } else if (!sym->options.signatures.empty()) {
      compileBoth(*pm, name, pm->scope().parseSignature(sym->options.signatures.front()), full);
      ++compiled;
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  try {
    compileInput(text);
  } catch (const CompileError &e) {
    checkDiagnostic(e);
  } catch (const Error &e) {
    std::string msg = e.what();
    // A file the kernel links (declare_device(link=...)) that is not there is named as a path.
    static const std::regex missingLinkFile(R"(^kernel '\w+': link file ')");
    if (!std::regex_search(msg, missingLinkFile))
      finding(isInternal(msg) ? "internal error" : "error without file:line:col", msg);
  } catch (const std::exception &e) {
    finding("unexpected exception", e.what());
  }
  return 0;
}
