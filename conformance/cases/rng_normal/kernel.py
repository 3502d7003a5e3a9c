from numba import cuda
from numba.cuda.random import xoroshiro128p_normal_float32, xoroshiro128p_normal_float64


@cuda.jit
def rng_normal(states, n32, n64):
    """Normal draws: float32 then float64, interleaved, from each thread's state."""
    i = cuda.grid(1)
    if i < states.size:
        for k in range(n32.shape[1]):
            n32[i, k] = xoroshiro128p_normal_float32(states, i)
            n64[i, k] = xoroshiro128p_normal_float64(states, i)
