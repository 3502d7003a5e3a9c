/// The pipeline's steps as data (pipeline_steps.def) and the one runner that executes
/// them: after each step it verifies the module, prints the step's result when
/// `--dump-after` names it, reports its wall time (`--time`) and ends the pipeline when
/// `--stop-after` names it.
#pragma once

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace cutwin::ir {

/// What a compilation prints, times and where it stops, and the options every step reads.
struct PipelineOptions {
  std::vector<std::string> dumpAfter; ///< step names, or "all" (an unknown name is an error)
  std::string stopAfter;              ///< a step name: PipelineStopped is thrown after it
  std::ostream *dump = nullptr;       ///< where dumps go
  std::ostream *timing = nullptr;     ///< where each step's wall time goes (`cutwin compile --time`)
  bool boundscheck = true;
  unsigned sanitize = 0;  ///< the sanitizer's checks for kernels that name none (ir::SanitizeCheck)
  bool sanitizers = true; ///< the backend runs them (false: `sanitize=` of kernels is ignored)
  bool debugInfo = true;
  bool lineDirectivesOnly = false; ///< GPU: line directives, no full debug info
  bool debuggerView = false;       ///< a debugger traces the process (KernelInfo::debuggerView)
  std::string codegen = "nvptx";   ///< GPU code generator: nvptx (LLVM) or nvvm (libNVVM)
  int optLevel = 2;
  bool lto = false; ///< GPU: LTO-IR instead of PTX (libNVVM's -gen-lto; nvvm code generator)
  /// Simulator: cut barrier kernels into regions (step sim-regions); false: they run as
  /// fibers, uncut (CUTWIN_SIM_THREADS=fibers, the differential tests' reference).
  bool simRegions = true;
  bool shouldDump(const std::string &step) const;
};

/// One enumerator per row of pipeline_steps.def.
enum class Step {
#define CUTWIN_STEP(id, ...) id,
#include "frontend/ir/pipeline_steps.def"
#undef CUTWIN_STEP
};

enum class StepStage { Frontend, Sim, Gpu, Nvptx, Nvvm };
enum class StepOutput { Tree, Scopes, Types, IR, NvvmIR, Ptx, Note };

/// A row of pipeline_steps.def.
struct StepInfo {
  Step id;
  const char *name;
  StepStage stage;
  StepOutput output;
  const char *does, *file;
};

/// Every step, in order: the frontend's, the simulator's, the GPU's.
const std::vector<StepInfo> &pipelineSteps();
const StepInfo &stepInfo(Step s);
/// The step called `name`; throws listing the valid names if there is none.
Step stepNamed(const std::string &name);
/// Throws for a name in `names` that is neither a step nor "all".
void checkStepNames(const std::vector<std::string> &names);
/// docs/ir.md's step table (`cutwin steps`).
std::string stepTableMarkdown();

/// Thrown when the step PipelineOptions::stopAfter names has run and been printed.
struct PipelineStopped {
  Step step;
};

/// Runs the steps of one compilation.
class StepRunner {
public:
  explicit StepRunner(const PipelineOptions &o);
  /// Step `s`, a transformation of `m`: runs it, then verifies, prints, times and stops.
  template <class F> void run(Step s, llvm::Module &m, F &&transform) {
    transform(m);
    finished(s, &m);
  }
  /// Ends step `s`: verifies and prints `m` when it is the step's result, times the step,
  /// and stops when asked. Steps whose output is not a module print it themselves first,
  /// to out(), when dumps(s).
  void finished(Step s, const llvm::Module *m = nullptr);
  bool dumps(Step s) const;
  std::ostream &out() const;

  /// run(), unless only another step is to run (`only`: `cutwin opt --step`).
  template <class F> void run(Step s, std::optional<Step> only, llvm::Module &m, F &&transform) {
    if (!only || *only == s)
      run(s, m, std::forward<F>(transform));
  }

private:
  const PipelineOptions &o_;
  std::chrono::steady_clock::time_point last_;
};

} // namespace cutwin::ir
