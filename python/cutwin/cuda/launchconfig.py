"""numba.cuda.launchconfig: the launch configuration a kernel is being compiled for, for
code that runs while a launch compiles (numba's extension authors read it). A launch that
must compile a new specialisation calls its dispatcher's `_compile_for_args(*args)` with
the configuration current (per thread); `capture_compile_config(dispatcher)` records it."""
import contextlib
import threading

_local = threading.local()


class LaunchConfig:
    """The launch being compiled: its dispatcher, griddim and blockdim (three ints each),
    stream, dynamic shared memory and arguments."""

    __slots__ = ("dispatcher", "griddim", "blockdim", "stream", "sharedmem", "args")

    def __init__(self, dispatcher, griddim, blockdim, stream, sharedmem, args):
        self.dispatcher, self.griddim, self.blockdim = dispatcher, griddim, blockdim
        self.stream, self.sharedmem, self.args = stream, sharedmem, args

    def __repr__(self):
        return "LaunchConfig(%s, griddim=%s, blockdim=%s)" % (
            getattr(self.dispatcher, "__name__", self.dispatcher), self.griddim, self.blockdim)


def current_launch_config():
    """The configuration of the launch this thread is compiling for, or None."""
    return getattr(_local, "config", None)


def ensure_current_launch_config():
    """current_launch_config(), which must exist (RuntimeError otherwise)."""
    config = current_launch_config()
    if config is None:
        raise RuntimeError("no launch configuration is current: this runs only while a launch compiles its kernel")
    return config


@contextlib.contextmanager
def launch_config(config):
    """Makes `config` current in this thread for the block."""
    previous = current_launch_config()
    _local.config = config
    try:
        yield config
    finally:
        _local.config = previous


@contextlib.contextmanager
def capture_compile_config(dispatcher):
    """Records the configuration of the launch that compiles `dispatcher` within the block
    (`capture["config"]`); the dispatcher's own `_compile_for_args` is back afterwards."""
    capture = {"config": None}
    original = dispatcher._compile_for_args

    def wrapped(*args, **kws):
        capture["config"] = current_launch_config()
        return original(*args, **kws)

    dispatcher._compile_for_args = wrapped
    try:
        yield capture
    finally:
        dispatcher.__dict__.pop("_compile_for_args", None)
