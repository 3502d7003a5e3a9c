from numba import cuda


@cuda.jit
def empty0():
    pass


@cuda.jit
def empty1(a):
    pass


@cuda.jit
def empty4(a, b, c, d):
    pass
