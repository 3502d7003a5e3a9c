// The simulator's device arena on its own (backend_sim/device_arena.h): its limit on
// mappings and the heap it falls back to. test_device_memory.cpp tests it through kernels.
#include "backend_sim/device_arena.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

using cutwin::sim::DeviceArena;

// The arena maps a bounded number of regions (most of a process's vm.max_map_count belongs
// to the JIT, stacks and the host's allocator): beyond, released regions are unmapped to make
// room, and with none left an allocation comes from the heap, unguarded, but still works.
TEST(DeviceMemory, AnArenaAtItsMappingLimitFallsBackToTheHeapAndKeepsWorking) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  DeviceArena arena(4);
  std::vector<unsigned char *> blocks;
  for (int i = 0; i < 10; ++i) {
    auto *p = static_cast<unsigned char *>(arena.allocate(1000));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
    EXPECT_EQ(std::count(p, p + 1000, 0), 1000) << "allocation " << i << " is not zeroed";
    std::memset(p, i + 1, 1000);
    blocks.push_back(p);
  }
  EXPECT_EQ(arena.mappedRegions(), 4u); // the other six came from the heap
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(std::count(blocks[i], blocks[i] + 1000, i + 1), 1000) << "allocation " << i;
  // A mapped one ends at its guard page (1,000 bytes round up to 1,024).
  EXPECT_DEATH(static_cast<volatile unsigned char *>(blocks[0])[1024] = 1, "");
  for (unsigned char *p : blocks)
    arena.release(p);
  arena.guardReleased(); // as before a launch: the four regions are guarded, still mapped
  EXPECT_EQ(arena.mappedRegions(), 4u);
  // Allocations of another size unmap guarded regions to make room and are guarded again.
  std::vector<unsigned char *> larger;
  for (int i = 0; i < 4; ++i) {
    larger.push_back(static_cast<unsigned char *>(arena.allocate(3 * 4096 + 512)));
    EXPECT_EQ(std::count(larger[i], larger[i] + 3 * 4096 + 512, 0), 3 * 4096 + 512);
  }
  EXPECT_EQ(arena.mappedRegions(), 4u);
  EXPECT_DEATH(static_cast<volatile unsigned char *>(larger[3])[3 * 4096 + 512] = 1, "");
  for (unsigned char *p : larger)
    arena.release(p);
}
