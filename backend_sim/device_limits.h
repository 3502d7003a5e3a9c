/// The simulated device: the limits launches are checked against, as on an H200 (sm_90).
#pragma once

#include <cstdint>
#include <string>

namespace cutwin::sim {

struct DeviceLimits {
  std::string name = "cutwin simulator (sm_90 limits)";
  unsigned multiprocessors = 132;
  unsigned maxThreadsPerBlock = 1024;
  unsigned maxBlockDim[3] = {1024, 1024, 64};
  uint64_t maxGridDim[3] = {2147483647ull, 65535, 65535};
  uint64_t sharedPerBlock = 48 * 1024;       ///< static shared memory
  uint64_t sharedPerBlockOptin = 227 * 1024; ///< static + dynamic
  unsigned warpSize = 32;
  unsigned maxThreadsPerMultiprocessor = 2048;
  unsigned maxBlocksPerMultiprocessor = 32;
  uint64_t sharedPerMultiprocessor = 228 * 1024;
  uint64_t sharedReservedPerBlock = 1024; ///< the driver's share of each block's shared memory
  /// Local memory per thread (local arrays, stack): a frame of this size or more is refused
  /// at launch, as an H100 refuses it (CUDA_ERROR_INVALID_VALUE). Below it a GPU refuses what
  /// its free memory cannot hold for every resident thread (OUT_OF_MEMORY: 313,456 bytes on
  /// an H100 80 GB), which depends on the card; the simulator bounds its stacks by its own
  /// budget instead.
  uint64_t localPerThread = 512 * 1024;
};

} // namespace cutwin::sim
