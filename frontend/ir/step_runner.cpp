#include "frontend/ir/step_runner.h"

#include "cutwin/errors.h"

#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_os_ostream.h>

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace cutwin::ir {

bool PipelineOptions::shouldDump(const std::string &step) const {
  if (!dump)
    return false;
  return std::find(dumpAfter.begin(), dumpAfter.end(), step) != dumpAfter.end() ||
         std::find(dumpAfter.begin(), dumpAfter.end(), "all") != dumpAfter.end();
}

const std::vector<StepInfo> &pipelineSteps() {
  static const std::vector<StepInfo> steps = {
#define CUTWIN_STEP(id, name, stage, output, does, file)                                                     \
  {Step::id, name, StepStage::stage, StepOutput::output, does, file},
#include "frontend/ir/pipeline_steps.def"
#undef CUTWIN_STEP
  };
  return steps;
}

const StepInfo &stepInfo(Step s) { return pipelineSteps()[size_t(s)]; }

Step stepNamed(const std::string &name) {
  for (const StepInfo &s : pipelineSteps())
    if (name == s.name)
      return s.id;
  std::string valid;
  for (const StepInfo &s : pipelineSteps())
    valid += std::string(valid.empty() ? "" : " ") + s.name;
  throw Error("unknown pipeline step '" + name + "' (steps: " + valid + ")");
}

void checkStepNames(const std::vector<std::string> &names) {
  for (const std::string &n : names)
    if (n != "all")
      stepNamed(n);
}

std::string stepTableMarkdown() {
  static const char *const stages[] = {"all", "simulator", "GPU", "GPU (NVPTX)", "GPU (NVVM)"};
  static const char *const outputs[] = {"syntax tree", "scopes", "types", "IR", "NVVM IR", "PTX", "a note"};
  std::string out = "| step | backend | does | prints | file |\n|---|---|---|---|---|\n";
  for (const StepInfo &s : pipelineSteps())
    out += std::string("| `") + s.name + "` | " + stages[unsigned(s.stage)] + " | " + s.does + " | " +
           outputs[unsigned(s.output)] + " | `" + s.file + "` |\n";
  return out;
}

StepRunner::StepRunner(const PipelineOptions &o) : o_(o), last_(std::chrono::steady_clock::now()) {
  checkStepNames(o.dumpAfter);
  if (!o.stopAfter.empty())
    stepNamed(o.stopAfter);
}

bool StepRunner::dumps(Step s) const { return o_.shouldDump(stepInfo(s).name); }

std::ostream &StepRunner::out() const { return *o_.dump; }

void StepRunner::finished(Step s, const llvm::Module *m) {
  const StepInfo &info = stepInfo(s);
  if (m) {
    std::string err;
    llvm::raw_string_ostream os(err);
    if (llvm::verifyModule(*m, &os))
      throw Error(std::string("internal error: IR invalid after ") + info.name + ":\n" + os.str());
    if (info.output == StepOutput::IR && dumps(s)) {
      *o_.dump << "; *** IR after " << info.name << " ***\n";
      llvm::raw_os_ostream dump(*o_.dump);
      m->print(dump, nullptr);
    }
  }
  auto now = std::chrono::steady_clock::now();
  if (o_.timing)
    *o_.timing << "# time " << info.name << ": " << std::fixed << std::setprecision(2)
               << std::chrono::duration<double, std::milli>(now - last_).count() << " ms\n";
  last_ = now;
  if (o_.stopAfter == info.name)
    throw PipelineStopped{s};
}

} // namespace cutwin::ir
