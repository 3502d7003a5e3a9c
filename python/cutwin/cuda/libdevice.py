"""numba.cuda.libdevice: NVIDIA's libdevice functions, called directly from kernels.

`libdevice.<name>(...)` calls `__nv_<name>` with the signature libdevice declares (integers
signed, as numba-cuda types them); pointer parameters come back as results, after the
function's value: `s, c = libdevice.sincosf(x)`, `m, e = libdevice.frexp(x)`. The same
libdevice runs on the simulator and on the GPU, so both give the same bits. The names are
checked when a kernel is compiled; on the host these are stubs that raise."""


from .kernel_only import KernelOnly


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    stub = KernelOnly("libdevice." + name, NotImplementedError)
    globals()[name] = stub
    return stub
