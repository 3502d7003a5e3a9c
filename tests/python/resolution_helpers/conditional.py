"""Names bound by a try/except and an if at module level, and a star import."""
try:
    from cutwin import cuda
except ImportError:  # pragma: no cover - the fallback a numba program would have
    from numba import cuda

if cuda is not None:
    import cmath as cm
else:  # pragma: no cover
    cm = None

from resolution_helpers.common import *  # noqa: F401,F403,E402  (scale, FACTOR, DT, m, ...)


@cuda.jit(device=True)
def polar_radius(z):
    return cm.polar(z)[0]
