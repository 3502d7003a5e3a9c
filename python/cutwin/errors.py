"""The exceptions cutwin raises. Faults inside kernels subclass the builtin exception
numba-cuda raises for the same fault (an out-of-bounds index is an IndexError), so code
that catches numba's exceptions keeps working."""


class CutwinError(RuntimeError):
    """Base of cutwin's errors."""


class CompileError(CutwinError):
    """A kernel that cannot be compiled (syntax, unsupported construct, typing). The
    message is "file:line:col: error: ..." with the source line; `file`, `line`, `col`
    and `msg` (the bare message) are attributes."""


#: numba's name for typing errors.
TypingError = CompileError


class LaunchError(CutwinError):
    """A launch the device refuses (configuration, resources)."""


class DeviceError(CutwinError):
    """No such device, out of memory, failed copies."""


class KernelError(CutwinError):
    """A fault inside a running kernel. Attributes: `kernel`, `file`, `line`, `thread` and
    `block` (3-tuples), `detail` (the message without the location)."""


class KernelIndexError(KernelError, IndexError):
    """An index out of bounds inside a kernel (bounds checks on)."""


class KernelAssertionError(KernelError, AssertionError):
    """A failed `assert` inside a kernel (debug kernels)."""
