/// The compilation pipeline, as one list of named steps (pipeline_steps.def names them;
/// pipeline.cpp reads top to bottom). Any step's result can be printed
/// (`cutwin compile --dump-after=<step>|all`), the pipeline stopped after one
/// (`--stop-after`), and each IR step run alone on textual IR (`cutwin opt --step`).
#pragma once

#include "frontend/ir/step_runner.h"
#include "frontend/lower/lower.h"
#include "frontend/sema/module_scope.h"

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cutwin::rt {

// The pipeline's steps, options and runner are shared with the backends (frontend/ir/step_runner.h).
using ir::checkStepNames;
using ir::PipelineOptions;
using ir::pipelineSteps;
using ir::PipelineStopped;
using ir::Step;
using ir::StepInfo;
using ir::stepInfo;
using ir::stepNamed;
using ir::StepOutput;
using ir::StepRunner;
using ir::StepStage;
using ir::stepTableMarkdown;

/// Parsed sources with their scopes (a kernel file read alone, or the functions a kernel
/// reaches in the running program); shared by every kernel compiled from them.
struct ParsedModule {
  /// Syntax trees with deep expressions are freed on the compiler's stack: freeing recurses
  /// as deep as they nest, which the owner's thread (a small stack) may not hold.
  ~ParsedModule();
  std::unique_ptr<fe::Program> program;
  /// The first scope: the file's, or the kernel's (or device function's) own.
  const fe::ModuleScope &scope() const { return program->primary(); }
};

/// Steps parse and resolve, for a file whose imports say what its names mean.
std::shared_ptr<ParsedModule> parseKernelModule(std::shared_ptr<const fe::SourceFile> file,
                                                const PipelineOptions &opts,
                                                const fe::HostBindings &host = {});

/// One function's source and what the host resolved its names to.
struct HostSource {
  std::shared_ptr<const fe::SourceFile> file;
  fe::HostUnit unit;
};

/// Steps parse and resolve, for functions whose names the host resolved by value; the
/// first is the kernel (or the device function compiled on its own).
std::shared_ptr<ParsedModule> parseHostUnits(const std::vector<HostSource> &sources,
                                             const PipelineOptions &opts);

/// Steps type, lower, verify, cleanup: the target-neutral kernel IR for `argTypes`.
ir::KernelIR buildKernelIR(const ParsedModule &pm, const std::string &kernel,
                           const std::vector<fe::Type> &argTypes, const PipelineOptions &opts);

/// Steps type, lower, verify, cleanup for device function `function` compiled on its own
/// (compile_ptx): an external function `name` in `abi` whose result converts to
/// `returnType` (the inferred type if none).
ir::KernelIR buildDeviceExportIR(const ParsedModule &pm, const std::string &function,
                                 const std::vector<fe::Type> &argTypes, std::optional<fe::Type> returnType,
                                 ir::ExportAbi abi, const std::string &name, const PipelineOptions &opts);

/// `cutwin opt`: runs step `name` alone on `m` (textual IR whose !cutwin.kernels names the
/// kernel) and prints its result to opts.dump. Steps that start from Python source or
/// load code into the process cannot run alone.
void runStepAlone(llvm::Module &m, const std::string &name, PipelineOptions opts,
                  const std::string &arch = "sm_90");

} // namespace cutwin::rt
