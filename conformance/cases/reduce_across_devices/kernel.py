from numba import cuda, float32

THREADS = 256


@cuda.jit(device=True)
def tree_sum(s, t):
    """The block's threads (t their index) add s[0:THREADS] into s[0], halving each round."""
    cuda.syncthreads()
    stride = THREADS // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2


@cuda.jit
def block_sums(x, partial):
    """Each block's sum of its elements: partial[b] for block b."""
    s = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.shape[0] else float32(0)
    tree_sum(s, t)
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]


@cuda.jit
def sum_partials(partials, total):
    """One block: thread t adds partials t, t + THREADS, ... in order, then the tree."""
    s = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    acc = float32(0)
    for j in range(t, partials.shape[0], THREADS):
        acc += partials[j]
    s[t] = acc
    tree_sum(s, t)
    if t == 0:
        total[0] = s[0]
