from numba import cuda, int32

BINS = 256


@cuda.jit
def histogram(x, bins):
    # A block histogram in shared memory (atomics on shared memory), then one atomic per
    # bin and block into the global histogram. Blocks of BINS threads.
    h = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    h[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < x.size:
        cuda.atomic.add(h, x[i], 1)
        i += cuda.gridsize(1)
    cuda.syncthreads()
    cuda.atomic.add(bins, t, h[t])
