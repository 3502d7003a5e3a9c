/// Watchpoints on the simulator: an element of simulated memory (global, shared or local)
/// whose changes stop the thread that made them. In a debug kernel every store to memory
/// other than a variable's own slot reports its address and size while a watchpoint exists
/// (step sim-watch, one inline test of the armed byte otherwise); a store that changed a
/// watched element's bytes stops its thread just after it, at the statement that stored.
#pragma once

#include "backend_sim/breakpoints.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace cutwin::sim {

/// Watches the `size` bytes at `address` (writes by threads of the given threadIdx and
/// blockIdx, if any). `launchScoped`: it ends with the launch it was set in (memory of a
/// host array copied for the launch, or of a block). Returns its id.
int addWatch(void *address, size_t size, std::optional<Dim> tid = {}, std::optional<Dim> ctaid = {},
             bool launchScoped = false);
void removeWatch(int id);
void clearWatches();
std::vector<int> watchIds();

/// A store of `size` bytes at `address` by thread `tc`: the first watch whose bytes it
/// changed (and whose filter the thread passes), with the bytes before and after. The
/// watch's bytes are remembered as they are now.
std::optional<WatchHit> watchedStore(const ThreadContext &tc, const void *address, uint64_t size);

/// A launch starts: each watch remembers its bytes as they are (changes the host made
/// between launches are no kernel's stores).
void beginLaunchWatches();
/// ... and ends: watches scoped to it are removed.
void endLaunchWatches();

} // namespace cutwin::sim
