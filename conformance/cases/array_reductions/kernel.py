import numpy as np
from numba import cuda


@cuda.jit
def array_reductions(x, stats, spread, views):
    """NumPy's reductions of each thread's row (numba's order: one pass in C order), and the
    same row seen through reshape, transpose and view. The standard deviation is
    `var ** 0.5`, libdevice's pow (within 2 ulp of the correctly rounded root)."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        row = x[i]
        stats[i, 0] = row.sum()
        stats[i, 1] = np.mean(row)
        stats[i, 2] = np.var(row)
        spread[i] = row.std()
        stats[i, 3] = np.min(row)
        stats[i, 4] = row.max()
        stats[i, 5] = np.nansum(row)
        stats[i, 6] = np.count_nonzero(row)
        grid = row.reshape(4, -1)  # a 4 x 6 view of the row
        t = grid.T
        views[i, 0] = t[5, 3] - grid[1, 2]
        views[i, 1] = grid.transpose((1, 0))[2, 1]
        views[i, 2] = row.view(np.int32)[11]
