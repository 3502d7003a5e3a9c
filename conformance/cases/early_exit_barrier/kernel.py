from numba import cuda, float32

THREADS = 128


@cuda.jit
def early_exit_barrier(x, out):
    """Threads past the end return before the barrier and the rest of their block meets
    there: since sm_70 a barrier waits only for threads that have not exited. The last
    block keeps one whole warp and 8 lanes of the next; its last two warps exit whole."""
    s = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = x.shape[0]
    if i >= n:
        return
    s[t] = x[i]
    cuda.syncthreads()
    last = min(THREADS - 1, n - 1 - (i - t))  # the block's last thread that stayed
    out[i] = s[t] + s[last - t]  # another thread's value: the barrier ordered the writes
