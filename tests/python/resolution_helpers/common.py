"""A helper module a test suite imports `cuda` from (as a conftest or utils module would)."""
import math as m  # noqa: F401  kernels use it as `m`

import numpy as np

from cutwin import cuda  # noqa: F401  re-exported: `from resolution_helpers.common import cuda`

FACTOR = 3
DT = np.float32
OFFSETS = np.array([0.5, -1.25, 2.0, 4.5], dtype=np.float64)


@cuda.jit(device=True)
def scale(x):
    return x * FACTOR


@cuda.jit(device=True)
def twice(x):
    # Same name as a device function in another module: each keeps its own meaning.
    return 2 * x
