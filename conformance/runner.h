/// The conformance suite: every case (a kernel module, a launch, inputs, expected outputs
/// or an expected error) run on a backend and checked. Format: docs/conformance.md.
#pragma once

#include "cutwin/cutwin.h"

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cutwin::conformance {

struct RunOptions {
  std::string dir; ///< folder holding one sub-folder per case
  /// sim, gpu, both, available (sim and, if present, the GPU); or ptx: compile every case
  /// for the GPU and check it with ptxas
  /// (`ptxas` on PATH, or $CUTWIN_PTXAS), for machines without a GPU.
  std::string backend = "sim";
  std::string arch = "sm_90";    ///< GPU architecture for ptx
  std::string codegen = "nvptx"; ///< GPU code generator: nvptx or nvvm
  std::string filter;            ///< run only cases whose name contains this
  bool verbose = false;
  /// Bounds checks for cases that do not ask for them ("compile": {"boundscheck": ...});
  /// unset: each backend's default (on for the simulator). Off, the simulator's thread
  /// loops vectorise where they can.
  std::optional<bool> boundscheck;
};

struct CaseResult {
  std::string name;
  std::string backend;
  bool passed = false;
  std::string detail;
  double milliseconds = 0;
  /// The compared output arrays as the backend produced them (name -> bytes, dtype).
  std::map<std::string, std::pair<std::vector<uint8_t>, DType>> outputs;
};

/// How two backends' outputs of one case compare: "bit-exact (N values)", or the
/// largest ulp distance; `agree` if within the case's tolerance.
struct Agreement {
  bool agree = true;
  std::string detail;
};
Agreement compareBackends(const CaseResult &a, const CaseResult &b, const std::string &caseDir);

/// Runs one case folder on `dev`.
CaseResult runCase(const std::string &caseDir, const std::shared_ptr<Device> &dev,
                   const std::string &codegen = "nvptx", std::optional<bool> boundscheck = {});
/// Compiles one case for the GPU architecture `arch` and assembles the PTX with ptxas.
CaseResult checkCasePtx(const std::string &caseDir, const std::string &arch,
                        const std::string &codegen = "nvptx");
/// The case folders under `dir`, sorted by name.
std::vector<std::string> listCases(const std::string &dir);
/// Runs the suite and prints a table; true if every case passed.
bool runSuite(const RunOptions &opts, std::ostream &out);

} // namespace cutwin::conformance
