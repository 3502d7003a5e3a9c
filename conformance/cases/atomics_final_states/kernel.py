from numba import cuda, int32


@cuda.jit
def atomics_final_states(x, f, bins, ints, uints, floats):
    """Order-independent final states of every atomic operation under contention: a
    shared-memory histogram, signed max/min/sub, unsigned bit operations and wrapping
    inc/dec, float add of exact quarters and NaN-aware max/min."""
    counts = cuda.shared.array(32, int32)
    t = cuda.threadIdx.x
    if t < 32:
        counts[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        cuda.atomic.add(counts, v % 32, 1)
        cuda.atomic.max(ints, 0, v)
        cuda.atomic.min(ints, 1, v)
        cuda.atomic.sub(ints, 2, v)
        cuda.atomic.add(ints, 3, v)
        cuda.atomic.and_(uints, 0, ~(1 << (i % 60)))
        cuda.atomic.or_(uints, 1, 1 << (i % 60))
        cuda.atomic.xor(uints, 2, i)
        cuda.atomic.inc(uints, 3, 12)
        cuda.atomic.dec(uints, 4, 7)
        cuda.atomic.max(uints, 5, v)
        g = f[i]
        cuda.atomic.add(floats, 0, 0.25)
        cuda.atomic.max(floats, 1, g)
        cuda.atomic.min(floats, 2, g)
        cuda.atomic.nanmax(floats, 3, g)
        cuda.atomic.nanmin(floats, 4, g)
    cuda.syncthreads()
    if t < 32:
        cuda.atomic.add(bins, t, counts[t])
