"""numba.cuda.misc.special's names that kernels use (`literal_unroll`) and numba's numpy_support
carray/farray: kernel functions with their host meaning."""


def literal_unroll(container):
    """In a kernel, `for x in literal_unroll(t)` runs its body once per element of the tuple
    `t`, each copy typed for its element (the elements may differ in type). On the host, as
    in numba, it is the container itself."""
    return container


def _pointer_dtype(ptr, dtype):
    """The address and element dtype of a ctypes pointer (`dtype` where given)."""
    import ctypes

    import numpy as np

    ptr = getattr(ptr, "_as_parameter_", ptr)
    want = None if dtype is None else np.dtype(dtype)
    if isinstance(ptr, ctypes.c_void_p):
        if want is None:
            raise TypeError("explicit dtype required for void* argument")
        return ptr.value or 0, want
    if isinstance(ptr, ctypes._Pointer):
        own = np.dtype(ptr._type_)
        if want is not None and want != own:
            raise TypeError("mismatching dtype '%s' for pointer %s" % (want, ptr))
        return ctypes.cast(ptr, ctypes.c_void_p).value or 0, own
    raise TypeError("expected a ctypes pointer, got %r" % (ptr,))


def carray(ptr, shape, dtype=None):
    """A NumPy array over the memory at `ptr` with `shape`, in C order. In a kernel, `ptr`
    is a CPointer argument and the result an array over its data; on the host, a ctypes
    pointer (numba's numpy_support.carray)."""
    import ctypes

    import numpy as np

    address, dt = _pointer_dtype(ptr, dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    nbytes = int(dt.itemsize * np.prod(shape, dtype=np.intp))
    buf = (ctypes.c_byte * nbytes).from_address(address)
    return np.frombuffer(buf, dt).reshape(shape)


def farray(ptr, shape, dtype=None):
    """carray() in Fortran order: `shape` as given, the first index varying fastest."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return carray(ptr, shape[::-1], dtype).T
