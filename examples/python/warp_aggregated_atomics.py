"""Stream compaction with warp-aggregated atomics: the threads whose element passes the
filter need an output slot each. Instead of one atomic per thread, each warp counts its
takers with ballot_sync, its first taker reserves them all with one atomic add, and
shfl_sync hands the base slot to the others, who take their rank among the warp's takers
(popc of the takers below them).

    python examples/python/warp_aggregated_atomics.py [n]
"""
import sys

import numpy as np

from cutwin import cuda


@cuda.jit
def compact_positive(x, out, count):
    i = cuda.grid(1)
    take = i < x.size and x[i] > 0
    takers = cuda.ballot_sync(0xFFFFFFFF, take)
    if take:
        leader = cuda.ffs(takers) - 1
        base = 0
        if cuda.laneid == leader:
            base = cuda.atomic.add(count, 0, cuda.popc(takers))
        base = cuda.shfl_sync(takers, base, leader)
        out[base + cuda.popc(takers & cuda.lanemask_lt())] = x[i]


def main(n=1_000_000):
    x = np.random.default_rng(4).standard_normal(n)
    out = np.zeros(n)
    count = np.zeros(1, np.int32)
    threads = 256
    compact_positive[(n + threads - 1) // threads, threads](x, out, count)
    want = x[x > 0]
    assert count[0] == want.size
    # slots are taken warp by warp in whatever order the warps run: compare as sets
    np.testing.assert_array_equal(np.sort(out[:count[0]]), np.sort(want))
    print("warp_aggregated_atomics: %d of %d elements kept OK" % (count[0], n))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
