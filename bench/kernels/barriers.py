from numba import cuda


@cuda.jit
def barriers(out, rounds):
    t = cuda.threadIdx.x
    acc = 0
    for r in range(rounds):
        acc += t
        cuda.syncthreads()
    out[cuda.grid(1)] = acc
