/// Guard pages: pages that fault when touched, so that a simulated thread running off its
/// stack or an array's end stops at the first byte instead of writing into what lies
/// beyond. Guard regions (MADV_GUARD_INSTALL, Linux 6.13) mark pages in the page tables
/// without splitting their mapping; older kernels get mprotect(PROT_NONE), one mapping
/// more each time (a process may have vm.max_map_count of them, 65,530 by default).
#pragma once

#include <cstddef>

namespace cutwin::sim {

/// Whether this kernel has guard regions (asked once). CUTWIN_SIM_GUARD_REGIONS=0 takes the
/// older kernels' path.
bool guardRegions();
/// Makes the pages [p, p + bytes) fault when touched; their contents are discarded. False
/// (errno set) if the system refused.
bool installGuard(void *p, size_t bytes);
/// Makes guarded pages ordinary again, zero-filled. False (errno set) if refused.
bool removeGuard(void *p, size_t bytes);
/// The most memory mappings this process may have (vm.max_map_count).
long mappingLimit();

} // namespace cutwin::sim
