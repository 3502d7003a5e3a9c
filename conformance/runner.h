/// The conformance suite: every case (a kernel module, a launch, inputs, expected outputs
/// or an expected error) run on a backend and checked. Format: docs/conformance.md.
#pragma once

#include "cutwin/cutwin.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace cutwin::conformance {

struct RunOptions {
  std::string dir; ///< folder holding one sub-folder per case
  std::string backend = "sim";
  std::string filter; ///< run only cases whose name contains this
  bool verbose = false;
};

struct CaseResult {
  std::string name;
  std::string backend;
  bool passed = false;
  std::string detail;
  double milliseconds = 0;
};

/// Runs one case folder on `dev`.
CaseResult runCase(const std::string &caseDir, const std::shared_ptr<Device> &dev);
/// The case folders under `dir`, sorted by name.
std::vector<std::string> listCases(const std::string &dir);
/// Runs the suite and prints a table; true if every case passed.
bool runSuite(const RunOptions &opts, std::ostream &out);

} // namespace cutwin::conformance
