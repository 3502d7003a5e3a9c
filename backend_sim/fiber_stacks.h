/// The stacks simulated threads run on, each with a guard page below it, so that a thread
/// that outgrows its stack faults (reported as a stack overflow) instead of writing into
/// its neighbour's.
///
/// A cooperative launch at the GPU's limit keeps every thread of the grid resident, up to
/// 2,048 per multiprocessor: 270,336 stacks at once. A guard page made with mprotect splits
/// the mapping, two mappings per stack, far past Linux's default limit of 65,530 per
/// process (vm.max_map_count). Stacks therefore come in slabs, one mapping each, whose guard
/// pages are guard regions (MADV_GUARD_INSTALL, Linux 6.13): marks in the page tables that
/// fault like PROT_NONE without splitting the mapping. On older kernels the guard pages
/// fall back to mprotect, and a launch that would exceed the mapping limit is refused with
/// an error saying so, never run without guards.
#pragma once

#include <cstddef>
#include <vector>

namespace cutwin::sim {

class FiberStacks {
public:
  FiberStacks() = default;
  FiberStacks(const FiberStacks &) = delete;
  FiberStacks &operator=(const FiberStacks &) = delete;
  ~FiberStacks() { release(); }

  /// Makes stacks 0..count-1 of `bytes` each available (reusing those there are, when of
  /// that size). Throws LaunchError if the system cannot map them with their guards.
  void reserve(size_t count, size_t bytes);
  /// The top (highest address, exclusive) of stack `i` < the count reserved.
  char *top(size_t i) const { return slots_[i] + page_ + bytes_; }
  /// Each stack's size: what was asked, rounded up to whole pages.
  size_t bytes() const { return bytes_; }

private:
  void release();
  struct Slab {
    char *base;
    size_t bytes;
  };
  size_t bytes_ = 0; ///< usable bytes per stack (a multiple of the page size)
  size_t page_ = 0;
  std::vector<Slab> slabs_;
  std::vector<char *> slots_; ///< each stack's guard page; the stack lies above it
};

} // namespace cutwin::sim
