/// Which checks the simulator's sanitizer makes (docs/sanitizers.md): data races and reads of
/// memory never written. Chosen by `@cuda.jit(sanitize=...)`, `CUTWIN_SANITIZE`,
/// `CompileOptions::sanitize`, pytest's `--cutwin-sanitize` or the CLI's `--sanitize`, written
/// as a comma-separated list of `race`, `init`, `all`, `shared` or `none`.
#pragma once

#include <string>

namespace cutwin::ir {

/// A bit set of checks.
enum SanitizeCheck : unsigned {
  kSanitizeNone = 0,
  kSanitizeRace = 1, ///< two accesses of different threads to one element, unordered, one a write
  kSanitizeInit = 2, ///< a read of shared, local or device-array memory nothing wrote
  kSanitizeAll = kSanitizeRace | kSanitizeInit,
  kSanitizeSharedOnly = 4, ///< only shared memory is checked (the cheapest: racecheck's scope)
};

/// The checks `text` names ("race", "init", "all", "none", "" or a comma-separated list of
/// them; "1"/"true" mean all, "0"/"false" none; "shared" limits them to shared memory, all of
/// them if no other is named); throws cutwin::Error naming the bad word.
unsigned parseSanitizeChecks(const std::string &text);

/// The checks the environment asks for (CUTWIN_SANITIZE; none if unset).
unsigned sanitizeChecksFromEnvironment();

} // namespace cutwin::ir
