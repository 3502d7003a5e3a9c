"""Small conversions the debugger's parts share."""
import contextlib

import numpy as np


def plain_numbers():
    """NumPy scalars shown as numbers (`9`, not `np.int64(9)`), as NumPy 1 showed them."""
    if int(np.__version__.split(".")[0]) < 2:
        return contextlib.nullcontext()  # NumPy 1 shows them so
    return np.printoptions(legacy="1.25")


def thread_index(t):
    """A thread or block index given as x, (x,), (x, y) or (x, y, z), as (x, y, z)."""
    if isinstance(t, (int, np.integer)):
        t = (t,)
    t = tuple(int(v) for v in t)
    if not 1 <= len(t) <= 3:
        raise ValueError("an index has 1 to 3 components, not %r" % (t,))
    return t + (0,) * (3 - len(t))
