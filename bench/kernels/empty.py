from numba import cuda


@cuda.jit
def empty(a):
    pass
