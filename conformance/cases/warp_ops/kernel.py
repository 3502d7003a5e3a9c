from numba import cuda


@cuda.jit
def warp_ops(vi, vl, vf, vd, b, shuf_i, shuf_l, shuf_f, shuf_d, votes, sums, counts):
    """Every warp operation on full warps and on the partial last warp of each block
    (80 threads: 32 + 32 + 16): shuffles of int32, int64, float32 and float64 (NaN
    payloads, -0.0, lanes and deltas below 0 and above 31), votes, match on 32- and 64-bit
    values, a partial mask, lanemask_lt, a butterfly sum and a warp-aggregated atomic."""
    t = cuda.grid(1)
    lane = cuda.laneid
    first = cuda.threadIdx.x - lane
    lanes = min(32, cuda.blockDim.x - first)
    mask = -1 if lanes == 32 else (1 << lanes) - 1
    shuf_i[t, 0] = cuda.shfl_sync(mask, vi[t], b[t, 0])
    shuf_i[t, 1] = cuda.shfl_up_sync(mask, vi[t], b[t, 1])
    shuf_i[t, 2] = cuda.shfl_down_sync(mask, vi[t], b[t, 2])
    shuf_i[t, 3] = cuda.shfl_xor_sync(mask, vi[t], b[t, 3])
    shuf_l[t, 0] = cuda.shfl_sync(mask, vl[t], b[t, 0])
    shuf_l[t, 1] = cuda.shfl_up_sync(mask, vl[t], b[t, 1])
    shuf_l[t, 2] = cuda.shfl_down_sync(mask, vl[t], b[t, 2])
    shuf_l[t, 3] = cuda.shfl_xor_sync(mask, vl[t], b[t, 3])
    shuf_f[t, 0] = cuda.shfl_sync(mask, vf[t], b[t, 0])
    shuf_f[t, 1] = cuda.shfl_up_sync(mask, vf[t], b[t, 1])
    shuf_f[t, 2] = cuda.shfl_down_sync(mask, vf[t], b[t, 2])
    shuf_f[t, 3] = cuda.shfl_xor_sync(mask, vf[t], b[t, 3])
    shuf_d[t, 0] = cuda.shfl_sync(mask, vd[t], b[t, 0])
    shuf_d[t, 1] = cuda.shfl_up_sync(mask, vd[t], b[t, 1])
    shuf_d[t, 2] = cuda.shfl_down_sync(mask, vd[t], b[t, 2])
    shuf_d[t, 3] = cuda.shfl_xor_sync(mask, vd[t], b[t, 3])

    pred = vi[t] % 3 == 0
    votes[t, 0] = cuda.ballot_sync(mask, pred)
    votes[t, 1] = cuda.all_sync(mask, pred)
    votes[t, 2] = cuda.any_sync(mask, pred)
    votes[t, 3] = cuda.eq_sync(mask, vl[t] > 0)
    votes[t, 4] = cuda.match_any_sync(mask, vi[t] % 4)
    votes[t, 5] = cuda.match_any_sync(mask, vl[t] >> 61)
    m, same = cuda.match_all_sync(mask, vl[t] >> 62)
    votes[t, 6] = m
    votes[t, 7] = same
    votes[t, 8] = cuda.lanemask_lt()
    if lane % 2 == 0:
        votes[t, 9] = cuda.ballot_sync(mask & 0x55555555, pred)
        votes[t, 10] = cuda.any_sync(mask & 0x55555555, vi[t] < 0)

    # Butterfly sum: every lane ends with the warp's sum, each in its own order.
    s = vd[t]
    offset = lanes // 2
    while offset > 0:
        s += cuda.shfl_xor_sync(mask, s, offset)
        offset //= 2
    sums[t] = s

    # Warp-aggregated atomic: one add per warp for the lanes that want a slot.
    want = vi[t] % 5 != 0
    group = cuda.ballot_sync(mask, want)
    if want:
        leader = cuda.ffs(group) - 1
        base = 0
        if lane == leader:
            base = cuda.atomic.add(counts, 0, cuda.popc(group))
        base = cuda.shfl_sync(group, base, leader)
        votes[t, 11] = cuda.popc(group & cuda.lanemask_lt())
