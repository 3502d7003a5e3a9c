/// The simulator's warp operations, apart from fibers: what one lane asked for, and the
/// results of one operation for the lanes that take part in it, by the rules of PTX's
/// shfl.sync, vote.sync, match.sync and activemask on a 32-lane warp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cutwin::sim {

/// One lane's request: a `cutwin.warp` call's operands (see frontend/ir/intrinsics.h).
struct WarpRequest {
  uint32_t op = 0;   ///< WarpOp, with kWarpWide for 64-bit values
  uint32_t mask = 0; ///< the lanes that must take part
  uint64_t value = 0;
  uint32_t b = 0; ///< source lane, delta or xor mask
};

/// A lane of a kernel cut at its barriers and warp operations (barrier_regions.h): its
/// request, stored before it stops at the operation; its result, loaded where it resumes.
struct WarpLane {
  WarpRequest request;
  uint64_t result = 0;
};
static_assert(sizeof(WarpLane) == 32 && offsetof(WarpLane, result) == 24);

/// Computes `out[l]` for every lane `l` of `group` (the lanes taking part, all asking for
/// the same operation). Shuffles from a lane outside `group` (undefined in CUDA) give the
/// caller's own value.
void computeWarpOp(uint32_t group, const WarpRequest req[32], uint64_t out[32]);

/// One warp's operation in lockstep: its `count` lanes (32, or fewer in a block's last,
/// partial warp) all asked for the same operation under a mask naming all of them; each
/// lane's result goes to its WarpLane. The results are computeWarpOp's (shuffles read the
/// lanes directly).
void completeLockstep(WarpLane *lanes, uint32_t count);

} // namespace cutwin::sim
