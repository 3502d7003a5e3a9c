/// Packing kernel arguments into the one argument buffer both backends take (docs/abi.md).
#pragma once

#include "cutwin/cutwin.h"
#include "frontend/ir/abi.h"

#include <vector>

namespace cutwin::rt {

/// The frontend type of an argument as the dispatcher sees it: scalars by dtype, arrays
/// by dtype, ndim and layout (C when C-contiguous, else A).
fe::Type argumentType(const Arg &a);

/// Fills a buffer laid out by `layout`; scalars are converted to the types the layout
/// gives them. `errorRecord` is the device address of the error record.
std::vector<uint64_t> packArguments(const ir::ArgLayout &layout, const std::vector<Arg> &args,
                                    void *errorRecord);

} // namespace cutwin::rt
