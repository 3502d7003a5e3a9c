#include "backend_sim/warp_ops.h"

#include "frontend/ir/intrinsics.h"

namespace cutwin::sim {

using ir::WarpOp;

namespace {
bool in(uint32_t set, unsigned lane) { return lane < 32 && (set >> lane & 1u); }
} // namespace

void computeWarpOp(uint32_t group, const WarpRequest req[32], uint64_t out[32]) {
  unsigned first = unsigned(__builtin_ctz(group));
  auto op = WarpOp(req[first].op & ir::kWarpOpMask);
  bool wide = req[first].op & ir::kWarpWide;
  uint64_t bits = wide ? ~uint64_t(0) : 0xffffffffu;
  uint32_t ballot = 0;
  bool allEqual = true;
  for (unsigned l = 0; l < 32; ++l)
    if (in(group, l)) {
      ballot |= uint32_t(req[l].value != 0) << l;
      allEqual = allEqual && (req[l].value & bits) == (req[first].value & bits);
    }
  for (unsigned l = 0; l < 32; ++l) {
    if (!in(group, l))
      continue;
    const WarpRequest &r = req[l];
    unsigned b = r.b & 31u; // PTX takes the low five bits of the lane operand
    uint64_t result = 0;
    switch (op) {
    case WarpOp::ShflIdx:
    case WarpOp::ShflUp:
    case WarpOp::ShflDown:
    case WarpOp::ShflXor: {
      int src = op == WarpOp::ShflIdx    ? int(b)
                : op == WarpOp::ShflUp   ? int(l) - int(b)
                : op == WarpOp::ShflDown ? int(l + b)
                                         : int(l ^ b);
      bool valid = src >= 0 && src <= 31 && in(group, unsigned(src));
      result = (valid ? req[src].value : r.value) & bits;
      break;
    }
    case WarpOp::VoteAll: result = ballot == group; break;
    case WarpOp::VoteAny: result = ballot != 0; break;
    case WarpOp::VoteUni: result = ballot == 0 || ballot == group; break;
    case WarpOp::Ballot: result = ballot; break;
    case WarpOp::MatchAny: {
      uint32_t same = 0;
      for (unsigned k = 0; k < 32; ++k)
        if (in(group, k) && (req[k].value & bits) == (r.value & bits))
          same |= 1u << k;
      result = same;
      break;
    }
    // Lanes of the mask that do not exist (a partial warp) are not in the result, as on
    // the H200 (a block of 10 threads matching under 0xffffffff gets 0x3ff).
    case WarpOp::MatchAll: result = allEqual ? (r.mask & group) : 0; break;
    case WarpOp::ActiveMask: result = group; break;
    case WarpOp::SyncWarp: break;
    }
    out[l] = result;
  }
}

void completeLockstep(WarpLane *lanes, uint32_t count) {
  uint32_t group = count == 32 ? ~0u : (1u << count) - 1;
  auto op = WarpOp(lanes[0].request.op & ir::kWarpOpMask);
  uint64_t bits = lanes[0].request.op & ir::kWarpWide ? ~uint64_t(0) : 0xffffffffu;
  switch (op) {
  case WarpOp::ShflIdx:
  case WarpOp::ShflUp:
  case WarpOp::ShflDown:
  case WarpOp::ShflXor: {
    uint64_t value[32];
    for (uint32_t l = 0; l < count; ++l)
      value[l] = lanes[l].request.value;
    for (uint32_t l = 0; l < count; ++l) {
      unsigned b = lanes[l].request.b & 31u;
      int src = op == WarpOp::ShflIdx    ? int(b)
                : op == WarpOp::ShflUp   ? int(l) - int(b)
                : op == WarpOp::ShflDown ? int(l + b)
                                         : int(l ^ b);
      bool valid = src >= 0 && uint32_t(src) < count;
      lanes[l].result = (valid ? value[src] : value[l]) & bits;
    }
    return;
  }
  case WarpOp::VoteAll:
  case WarpOp::VoteAny:
  case WarpOp::VoteUni:
  case WarpOp::Ballot:
  case WarpOp::MatchAny:
  case WarpOp::MatchAll:
  case WarpOp::ActiveMask:
  case WarpOp::SyncWarp: break;
  }
  WarpRequest req[32];
  uint64_t out[32];
  for (uint32_t l = 0; l < count; ++l)
    req[l] = lanes[l].request;
  computeWarpOp(group, req, out);
  for (uint32_t l = 0; l < count; ++l)
    lanes[l].result = out[l];
}

} // namespace cutwin::sim
