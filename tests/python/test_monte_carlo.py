"""Monte Carlo integration as numba-cuda's documentation does it: one uniform draw per
thread, a device function for the integrand, a reduction for the sum."""
import math

import numpy as np

from cutwin import cuda
from cutwin.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32


@cuda.jit(device=True)
def integrand(x):
    return math.exp(-x * x)


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.jit
def sample(out, rng_states, lower, upper):
    gid = cuda.grid(1)
    if gid < len(out):
        x = xoroshiro128p_uniform_float32(rng_states, gid) * (upper - lower) + lower
        out[gid] = integrand(x)


def integrate(lower, upper, nsamps, seed=42):
    out = cuda.device_array(nsamps, np.float32)
    states = create_xoroshiro128p_states(nsamps, seed=seed)
    sample.forall(nsamps)(out, states, lower, upper)
    return sum_reduce(out) * (upper - lower) / nsamps


def test_integral_of_a_gaussian(cutwin_backend):
    n = 200_000
    got = integrate(0.0, 2.0, n)
    exact = math.sqrt(math.pi) / 2 * math.erf(2.0)
    assert abs(got - exact) < 5 * 2.0 * 0.3 / math.sqrt(n)  # within 5 standard errors
    assert integrate(0.0, 2.0, n) == got  # same seed, same number
