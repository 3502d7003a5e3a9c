"""numba.cuda.random: xoroshiro128+ random numbers in kernels.

The host creates one state per thread with `create_xoroshiro128p_states`; kernels draw
with the xoroshiro128p_* functions (compiled by cutwin; calling them on the host raises).
States and numbers are bit-identical to numba-cuda's."""
from .. import _cutwin
from . import runtime
from .devicearray import DeviceNDArray, device_array, xoroshiro128p_dtype

__all__ = ["xoroshiro128p_dtype", "xoroshiro128p_type", "create_xoroshiro128p_states",
           "init_xoroshiro128p_states", "init_xoroshiro128p_state", "xoroshiro128p_next",
           "xoroshiro128p_jump", "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
           "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64"]

xoroshiro128p_type = xoroshiro128p_dtype  # numba's record type; cutwin names it by its dtype


def _uint64(v, what):
    v = int(v)
    if v < 0:
        v &= (1 << 64) - 1  # numba converts with uint64(): wraps
    if v >= 1 << 64:
        raise OverflowError("%s must fit in 64 bits" % what)
    return v


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A device array of `n` RNG states: state 0 seeded from `seed` and advanced by
    `subsequence_start` jumps of 2**64 steps, each further state one jump after the last."""
    if int(n) < 0:
        raise ValueError("n must not be negative")
    # Allocated like every device array (through the memory manager in use), then filled.
    states = device_array(int(n), xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Re-seeds an existing device array of states in place."""
    if not isinstance(states, DeviceNDArray) or states.dtype != xoroshiro128p_dtype:
        raise TypeError("init_xoroshiro128p_states needs a device array of xoroshiro128p states")
    _cutwin.init_xoroshiro128p_states(states._arr, _uint64(seed, "seed"),
                                      _uint64(subsequence_start, "subsequence_start"))


def _device_only(name):
    def fn(*args, **kwargs):
        raise TypeError("%s() is a device function: call it inside a @cuda.jit kernel" % name)
    fn.__name__ = fn.__qualname__ = name
    return fn


init_xoroshiro128p_state = _device_only("init_xoroshiro128p_state")
xoroshiro128p_next = _device_only("xoroshiro128p_next")
xoroshiro128p_jump = _device_only("xoroshiro128p_jump")
xoroshiro128p_uniform_float32 = _device_only("xoroshiro128p_uniform_float32")
xoroshiro128p_uniform_float64 = _device_only("xoroshiro128p_uniform_float64")
xoroshiro128p_normal_float32 = _device_only("xoroshiro128p_normal_float32")
xoroshiro128p_normal_float64 = _device_only("xoroshiro128p_normal_float64")
