"""A NumPy reference of numba.cuda.random's xoroshiro128+ (the oracle for cutwin's RNG):
splitmix64 seeding, the 2**64-step jump, next(), and the uniform conversions. Vectorised
over many states; written from the algorithm's description, not from any implementation."""
import numpy as np

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)
JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)


def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


def seed_state(seed):
    with np.errstate(over="ignore"):
        z = np.uint64(seed % 2**64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return np.array([z]), np.array([z])


def next_u64(s0, s1):
    """Advances the states (arrays, in place) and returns the outputs."""
    with np.errstate(over="ignore"):
        r = s0 + s1
    x = s1 ^ s0
    s0[:] = _rotl(s0, 55) ^ x ^ (x << np.uint64(14))
    s1[:] = _rotl(x, 36)
    return r


def jump(s0, s1):
    t0, t1 = np.zeros_like(s0), np.zeros_like(s1)
    for w in JUMP:
        for b in range(64):
            if (w >> b) & 1:
                t0 ^= s0
                t1 ^= s1
            next_u64(s0, s1)
    s0[:], s1[:] = t0, t1


def states(n, seed, subsequence_start=0):
    """(s0, s1) arrays of n states, as create_xoroshiro128p_states makes them."""
    s0, s1 = seed_state(seed)
    for _ in range(subsequence_start):
        jump(s0, s1)
    out0, out1 = np.empty(n, np.uint64), np.empty(n, np.uint64)
    for i in range(n):
        out0[i], out1[i] = s0[0], s1[0]
        jump(s0, s1)
    return out0, out1


def uniform_float64(x):
    return (x >> np.uint64(11)).astype(np.float64) * 2.0**-53


def uniform_float32(x):
    return uniform_float64(x).astype(np.float32)
