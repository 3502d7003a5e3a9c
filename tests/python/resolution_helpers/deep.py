"""Device functions that call a device function of a third module, under another name."""
from resolution_helpers import common as c
from resolution_helpers.common import scale as triple

import cutwin.cuda as gpu


@gpu.jit(device=True)
def twice(x):
    return x + x + c.FACTOR - c.FACTOR


@gpu.jit(device=True)
def scaled_plus(x, y):
    return triple(x) + twice(y)
