"""numba.cuda.args: hints for how a host array argument travels (`cuda.In(a)` is copied to
the device only, `cuda.Out(a)` only back, `cuda.InOut(a)` both ways, as a bare NumPy array
is). `to_device(retr, stream)` gives the device array the kernel gets and appends to
`retr` what runs after the launch (the copy back)."""
import numpy as np

from .devicearray import as_cuda_array, device_array_like, to_device


class ArgHint:
    def __init__(self, value):
        self.value = value

    def to_device(self, retr, stream=0):
        raise NotImplementedError


def _on_device(value):
    return not isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__")


class In(ArgHint):
    """Copied to the device before the launch, not back."""

    def to_device(self, retr, stream=0):
        if _on_device(self.value):
            return as_cuda_array(self.value)
        dev = to_device(self.value, stream)
        retr.append(lambda: dev)  # kept alive until the launch is done
        return dev


class Out(ArgHint):
    """Copied back to the host array after the launch (not to the device before it)."""

    copy_input = False

    def to_device(self, retr, stream=0):
        value = self.value
        if _on_device(value):
            return as_cuda_array(value)
        dev = to_device(value, stream) if self.copy_input else device_array_like(value)
        if value.flags.writeable:
            retr.append(lambda: dev.copy_to_host(value, stream))
        return dev


class InOut(Out):
    """Copied to the device and back (what a bare NumPy argument gets)."""

    copy_input = True


def wrap_arg(value, default=InOut):
    return value if isinstance(value, ArgHint) else default(value)


__all__ = ["In", "Out", "InOut", "ArgHint", "wrap_arg"]
