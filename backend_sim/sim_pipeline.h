/// The simulator's steps (stage Sim in frontend/ir/pipeline_steps.def), from kernel IR to
/// a kernel loaded into this process: the module steps sim-lower to sim-vector-bodies,
/// then sim-stack, sim-foreign and sim-jit.
#pragma once

#include "backend_sim/foreign_cpu.h"
#include "backend_sim/lower_intrinsics.h"
#include "frontend/ir/kernel_ir.h"
#include "frontend/ir/step_runner.h"

#include <memory>
#include <optional>
#include <string>

namespace cutwin::sim {

struct SanitizerProgram;

/// A kernel the simulator loaded: its entry point and what a launch needs to know.
struct SimProgram {
  uint64_t entry = 0;  ///< kThreadEntry (fibers) or kBlockEntry (a thread loop)
  bool fibers = false; ///< threads wait for threads (barriers, warp operations, grid sync): kThreadEntry,
                       ///< and regionsEntry where the kernel was split
  bool cooperative = false;
  uint64_t staticSharedBytes = 0;
  uint64_t constBytes = 0; ///< constant arrays (global NumPy arrays, cuda.const.array_like)
  size_t stackBytes = 0;   ///< a fiber's stack
  uint64_t localBytes = 0; ///< a thread's local arrays (the GPU's local memory per thread)
  std::shared_ptr<const SanitizerProgram> sanitizer; ///< compiled with `sanitize=`: what its checks need
  uint64_t regionsEntry = 0;         ///< kRegionsEntry of a kernel split at its barriers (0: not split)
  uint64_t frameBytes = 0;           ///< split: a thread's frame
  std::vector<uint32_t> regionSites; ///< split: the barrier site of each resume point (barrier_regions.h)
  std::vector<uint8_t> regionWarp;   ///< split: 1 where a resume point follows a warp operation
};

/// Whether sim-lower gave `f` the thread context as its first parameter.
bool takesThreadContext(const llvm::Function &f);

/// The module steps sim-lower to sim-vector-bodies, or only the step `only`.
void runSimModuleSteps(llvm::Module &m, const ir::KernelInfo &info, const ir::PipelineOptions &opts,
                       ir::StepRunner &steps, SimLoweringResult &lowered, std::optional<ir::Step> only = {});

/// Step sim-stack: what a simulated thread's stack holds.
struct ThreadStack {
  uint64_t localBytes = 0; ///< fixed-size locals (local arrays): the thread's local memory on a GPU
  size_t fiberBytes = 0;   ///< a fiber's stack: 32 KiB for call frames plus the locals, in whole pages
};
ThreadStack threadStack(const llvm::Module &m);
/// The line step sim-stack prints.
std::string describe(const ThreadStack &s);

/// Every simulator step; `foreign` names the linked files and the foreign functions the
/// kernel calls (none: nothing to compile). `object`: also the object file the JIT linked
/// (Jit::loadObject links it again).
SimProgram compileSimProgram(ir::KernelIR ir, const ForeignRequest &foreign, const ir::PipelineOptions &opts,
                             ir::StepRunner &steps, std::string *object = nullptr);

/// A kernel compiled for the simulator, with what keeps its code alive.
struct SimCompiled {
  std::string name;
  uint64_t threadEntry = 0, blockEntry = 0;
  uint64_t regionsEntry = 0;         ///< split at its barriers (barrier_regions.h; 0: not)
  uint64_t frameBytes = 0;           ///< split: a thread's frame
  std::vector<uint32_t> regionSites; ///< split: the barrier site of each resume point
  std::vector<uint8_t> regionWarp;   ///< split: 1 where a resume point follows a warp operation
  uint64_t staticSharedBytes = 0;
  uint64_t constBytes = 0; ///< constant arrays (global NumPy arrays, cuda.const.array_like)
  size_t stackBytes = 0;
  uint64_t localBytes = 0;  ///< local arrays per thread
  bool debug = false;       ///< compiled for debugging: its blocks run in order on one thread, and it stops
  bool cooperative = false; ///< syncs the grid
  unsigned maxThreadsPerBlock = 0;                   ///< launch_bounds (0: none)
  std::vector<ir::BreakpointSite> breakpoints;       ///< debug kernels: where threads may stop
  std::vector<ir::Site> sites;                       ///< the kernel's sites (what a waiting thread waits at)
  std::shared_ptr<const SanitizerProgram> sanitizer; ///< compiled with `sanitize=` (sanitizer.h)
};

/// The simulator's steps, sim-lower to sim-jit, for a kernel the runtime will launch
/// (its linked files resolved, foreign functions compiled for the CPU). With `image`,
/// also the kernel as loadSimImage takes it (sim_image.h; left empty for debug and
/// sanitized kernels).
SimCompiled compileForSim(ir::KernelIR ir, const ir::PipelineOptions &opts, std::string *image = nullptr);
/// The symbols the JIT looks up of a loaded kernel, in this order: kThreadEntry where its
/// threads wait for threads (else kBlockEntry), then kRegionsEntry where it was split.
std::vector<std::string> entrySymbols(bool fibers, bool split);
/// A SimCompiled with what `info` says (name, sites, launch bounds), no code yet.
SimCompiled compiledFor(const ir::KernelInfo &info);

} // namespace cutwin::sim
