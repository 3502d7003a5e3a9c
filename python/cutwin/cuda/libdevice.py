"""numba.cuda.libdevice: NVIDIA's libdevice functions, called directly from kernels.

`libdevice.<name>(...)` calls `__nv_<name>` with the signature libdevice declares (integers
signed, as numba-cuda types them); pointer parameters come back as results, after the
function's value: `s, c = libdevice.sincosf(x)`, `m, e = libdevice.frexp(x)`. The same
libdevice runs on the simulator and on the GPU, so both give the same bits. The names are
checked when a kernel is compiled; on the host these are stubs that raise."""


class _Stub:
    """A libdevice function outside a kernel."""

    def __init__(self, name):
        self.__name__ = name
        self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        raise NotImplementedError("libdevice.%s() can only be called in a kernel or device function"
                                  % self.__name__)

    def __repr__(self):
        return "<libdevice function %s>" % self.__name__


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    stub = _Stub(name)
    globals()[name] = stub
    return stub
