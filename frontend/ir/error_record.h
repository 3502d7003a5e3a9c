/// The per-launch error record in device-visible memory (ARCHITECTURE.md, "one error
/// channel"). The first fault wins: a thread claims the record by compare-and-swap of
/// `flag` from 0 to 1, fills the rest, then stores 2 to `flag` (complete).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cutwin::ir {

struct ErrorRecord {
  uint32_t flag; ///< 0 none, 1 being written, 2 complete
  uint32_t kind; ///< cutwin::KernelErrorKind
  uint32_t site; ///< index into the kernel's site table (file:line:col)
  uint32_t reserved;
  uint32_t thread[3];
  uint32_t block[3];
  int64_t payload[3]; ///< kind-specific: e.g. index, axis, extent
};
static_assert(sizeof(ErrorRecord) == 64, "ErrorRecord layout is part of the ABI");

struct Site;
/// What went wrong, in words (`index 8 out of bounds for axis 0 with size 8`): the detail
/// of the error a host raises for `rec`, whose site is in `sites`.
std::string describeError(const ErrorRecord &rec, const std::vector<Site> &sites);

} // namespace cutwin::ir
