"""numba.cuda.cudaimpl as cutwin has it: `lower` registers a lowering hook of numba's
extension API (see cutwin.cuda.extending); cutwin accepts and never runs it."""
from .extending import _note


def lower(func, *argtypes):
    _note(func, "lower")
    return lambda impl: impl


lower_attr = lower_constant = lower
