"""`numba.cuda.cudadrv.devices`: the device list and the current context."""
import functools

from .. import memory, runtime

gpus = runtime.gpus


def get_context(devnum=None):
    """The context of device `devnum` of the current backend (the current device if None)."""
    if devnum is None:
        return memory.current_context()
    return memory.context_of(runtime._spec_for(runtime._selected_spec(), devnum))


def require_context(fn):
    """numba's decorator: the function runs in the current device's context, which stays
    current while it runs (switching device inside raises RuntimeError, as in numba)."""

    @functools.wraps(fn)
    def wrapped(*args, **kws):
        memory.current_context()
        with runtime._attached():
            return fn(*args, **kws)

    return wrapped


def reset():
    """numba's devices.reset(): as cuda.close()."""
    runtime.close()
