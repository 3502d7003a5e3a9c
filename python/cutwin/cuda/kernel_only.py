"""Host stubs of names that mean something in kernels only: `cuda.grid`, `cuda.threadIdx`,
`cuda.fp16.hadd`, `libdevice.sinf`, ... cutwin's compiler reads a kernel from its source
(and finds a stub it meets among the kernel's globals by identity), so on the host these
only exist; calling one raises, as in numba-cuda. Their names come from the compiler's
registry (`_cutwin.cuda_kernel_only_names`, `_cutwin.builtin_function_names`)."""


class KernelOnly:
    """A name usable in kernels only; `path` is how kernels spell it ("cuda.fp16.hadd")."""

    def __init__(self, path, error=RuntimeError):
        self._path = path
        self._error = error
        self.__name__ = self.__qualname__ = path.rsplit(".", 1)[-1]

    def __call__(self, *args, **kwargs):
        raise self._error("%s() can only be used inside a kernel or device function" % self._path)

    def __getattr__(self, attr):  # cuda.threadIdx.x, cuda.atomic.add, ...
        if attr.startswith("__"):
            raise AttributeError(attr)
        return KernelOnly("%s.%s" % (self._path, attr), self._error)

    def __repr__(self):
        return "<kernel-only %s>" % self._path


def define(namespace, prefix, names, error=RuntimeError):
    """Binds a stub for each name in a module's namespace; returns the names (its __all__)."""
    names = list(names)
    for name in names:
        namespace[name] = KernelOnly(prefix + name, error)
    return names
