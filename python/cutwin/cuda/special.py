"""numba.cuda.misc.special's names that kernels use: `literal_unroll`."""


def literal_unroll(container):
    """In a kernel, `for x in literal_unroll(t)` runs its body once per element of the tuple
    `t`, each copy typed for its element (the elements may differ in type). On the host, as
    in numba, it is the container itself."""
    return container
