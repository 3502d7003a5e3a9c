from numba import cuda, float32, int32

THREADS = 48


@cuda.jit
def spin_chain(x, out):
    """Each thread waits for the next thread of its block to publish its result (a flag
    in shared memory, read atomically), then adds its own value: the last thread goes
    first and the result runs down the block. A GPU runs it since sm_70, where every
    thread makes progress of its own even when its warp's other lanes wait; a scheduler
    that ran thread 0 to completion first would wait forever."""
    ready = cuda.shared.array(THREADS, int32)
    partial = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    ready[t] = 0
    cuda.syncthreads()
    v = x[i]
    if t < THREADS - 1:
        while cuda.atomic.add(ready, t + 1, 0) == 0:
            pass
        cuda.threadfence_block()
        v = v + partial[t + 1]
    partial[t] = v
    cuda.threadfence_block()
    cuda.atomic.exch(ready, t, 1)
    out[i] = v
