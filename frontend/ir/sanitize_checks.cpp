#include "frontend/ir/sanitize_checks.h"

#include "cutwin/errors.h"

#include <cstdlib>
#include <sstream>

namespace cutwin::ir {

unsigned parseSanitizeChecks(const std::string &text) {
  unsigned checks = kSanitizeNone;
  std::istringstream in(text);
  for (std::string word; std::getline(in, word, ',');) {
    auto first = word.find_first_not_of(" \t"), last = word.find_last_not_of(" \t");
    word = first == std::string::npos ? "" : word.substr(first, last - first + 1);
    if (word == "race")
      checks |= kSanitizeRace;
    else if (word == "init")
      checks |= kSanitizeInit;
    else if (word == "all" || word == "1" || word == "true" || word == "True")
      checks |= kSanitizeAll;
    else if (word == "shared")
      checks |= kSanitizeSharedOnly;
    else if (!(word.empty() || word == "none" || word == "0" || word == "false" || word == "False"))
      throw Error("unknown sanitizer check '" + word + "' (the checks are race, init, all, shared and none)");
  }
  if (checks == kSanitizeSharedOnly)
    checks |= kSanitizeAll;
  return checks;
}

unsigned sanitizeChecksFromEnvironment() {
  const char *v = std::getenv("CUTWIN_SANITIZE");
  if (!v)
    return kSanitizeNone;
  try {
    return parseSanitizeChecks(v);
  } catch (const Error &e) {
    throw Error(std::string("CUTWIN_SANITIZE: ") + e.what());
  }
}

} // namespace cutwin::ir
