#include "backend_sim/fiber_stacks.h"

#include "backend_sim/guard_pages.h"

#include "cutwin/errors.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace cutwin::sim {

void FiberStacks::reserve(size_t count, size_t bytes) {
  if (page_ == 0)
    page_ = size_t(sysconf(_SC_PAGESIZE));
  bytes = (bytes + page_ - 1) / page_ * page_;
  if (bytes != bytes_) {
    release();
    bytes_ = bytes;
  }
  if (slots_.size() >= count)
    return;
  size_t missing = count - slots_.size(), slot = page_ + bytes_;
  void *p = mmap(nullptr, missing * slot, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (p == MAP_FAILED)
    throw LaunchError("simulator: cannot map " + std::to_string(missing) + " thread stacks of " +
                      std::to_string(bytes_ / 1024) + " KiB (" + std::to_string(missing * slot >> 20) +
                      " MiB of address space)");
  char *base = static_cast<char *>(p);
  slabs_.push_back({base, missing * slot});
  for (size_t s = 0; s < missing; ++s) {
    if (!installGuard(base + s * slot, page_)) {
      int error = errno;
      slabs_.pop_back();
      munmap(base, missing * slot);
      throw LaunchError("simulator: cannot place a guard page below each of " + std::to_string(count) +
                        " thread stacks (" + std::strerror(error) +
                        "): without guard regions (Linux 6.13 or later) each stack takes two memory "
                        "mappings, and this process may have " +
                        std::to_string(mappingLimit()) +
                        " (vm.max_map_count); launch fewer threads at once or raise that limit");
    }
  }
  for (size_t s = 0; s < missing; ++s)
    slots_.push_back(base + s * slot);
}

void FiberStacks::release() {
  for (const Slab &s : slabs_)
    munmap(s.base, s.bytes);
  slabs_.clear();
  slots_.clear();
}

} // namespace cutwin::sim
