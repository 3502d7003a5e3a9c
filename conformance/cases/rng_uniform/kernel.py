from numba import cuda
from numba.cuda.random import xoroshiro128p_next, xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64


@cuda.jit
def rng_uniform(states, u32, u64, raw):
    """Each thread draws from its own state: float32 uniforms, then float64, then one raw
    64-bit output."""
    i = cuda.grid(1)
    if i < states.size:
        for k in range(u32.shape[1]):
            u32[i, k] = xoroshiro128p_uniform_float32(states, i)
        for k in range(u64.shape[1]):
            u64[i, k] = xoroshiro128p_uniform_float64(states, i)
        raw[i] = xoroshiro128p_next(states, i)
