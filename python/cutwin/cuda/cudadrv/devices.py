"""`numba.cuda.cudadrv.devices`: the device list and the current context."""
import functools

from .. import memory, runtime

gpus = runtime.gpus


def get_context(devnum=None):
    """The context of device `devnum` of the current backend (the current device if None)."""
    if devnum is None:
        return memory.current_context()
    return runtime.list_devices()[devnum].get_primary_context()


def require_context(fn):
    """numba's decorator that makes sure a context exists; cutwin's always does."""

    @functools.wraps(fn)
    def wrapped(*args, **kws):
        memory.current_context()
        return fn(*args, **kws)

    return wrapped


def reset():
    """Waits for the current device (cutwin keeps its devices open)."""
    runtime.synchronize()
