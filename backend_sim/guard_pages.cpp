#include "backend_sim/guard_pages.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102 // Linux 6.13; older headers lack the names
#define MADV_GUARD_REMOVE 103
#endif

namespace cutwin::sim {

bool guardRegions() {
  static const bool supported = [] {
    if (const char *e = std::getenv("CUTWIN_SIM_GUARD_REGIONS"); e && std::string(e) == "0")
      return false;
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    void *p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return false;
    bool ok = madvise(p, page, MADV_GUARD_INSTALL) == 0;
    munmap(p, page);
    return ok;
  }();
  return supported;
}

bool installGuard(void *p, size_t bytes) {
  if (guardRegions())
    return madvise(p, bytes, MADV_GUARD_INSTALL) == 0; // (drops the pages' contents itself)
  return madvise(p, bytes, MADV_DONTNEED) == 0 && mprotect(p, bytes, PROT_NONE) == 0;
}

bool removeGuard(void *p, size_t bytes) {
  if (guardRegions())
    return madvise(p, bytes, MADV_GUARD_REMOVE) == 0;
  return mprotect(p, bytes, PROT_READ | PROT_WRITE) == 0;
}

long mappingLimit() {
  long limit = 65530;
  if (FILE *f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
    if (std::fscanf(f, "%ld", &limit) != 1)
      limit = 65530;
    std::fclose(f);
  }
  return limit;
}

} // namespace cutwin::sim
