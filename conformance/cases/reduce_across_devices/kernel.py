from numba import cuda, float32

THREADS = 256


@cuda.jit
def block_sums(x, partial):
    """Each block's tree sum in shared memory: partial[b] = sum of block b's elements."""
    s = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.shape[0] else float32(0)
    cuda.syncthreads()
    stride = THREADS // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]


@cuda.jit
def sum_partials(partials, total):
    """One block: thread t adds partials t, t + THREADS, ... in order, then a tree sum."""
    s = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    acc = float32(0)
    for j in range(t, partials.shape[0], THREADS):
        acc += partials[j]
    s[t] = acc
    cuda.syncthreads()
    stride = THREADS // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        total[0] = s[0]
