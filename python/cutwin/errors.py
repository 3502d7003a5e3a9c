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

_compatible_classes = {}

# Exception classes of numba-cuda and NVIDIA's CUDA bindings that programs catch: cutwin's
# errors are raised as those too where the program has them loaded.
_FOREIGN = {
    "CompileError": [("numba.core.errors", "TypingError"), ("numba.cuda.core.errors", "TypingError")],
    "LaunchError": [("cuda.core._utils.cuda_utils", "CUDAError"), ("numba.cuda.cudadrv.driver", "CudaAPIError")],
}


def compatible_class(name):
    """The class cutwin's error `name` is raised as: itself, and also the classes of
    numba-cuda (or CUDA's Python bindings) code catches for the same error where those are
    loaded (numba.core.errors.TypingError for compile errors, cuda.core's CUDAError for
    refused launches), so a program whose numba.cuda import changed still catches them."""
    import sys

    base = globals()[name]
    bases = []
    for mod, attr in _FOREIGN.get(name, ()):
        cls = getattr(sys.modules.get(mod), attr, None)
        if isinstance(cls, type) and issubclass(cls, Exception) and cls not in bases and not issubclass(base, cls):
            bases.append(cls)
    if not bases:
        return base
    key = (name,) + tuple(bases)
    cls = _compatible_classes.get(key)
    if cls is None:
        try:
            cls = type(name, (base,) + tuple(bases), {"__module__": __name__, "__doc__": base.__doc__})
        except TypeError:
            cls = base
        _compatible_classes[key] = cls
    return cls


def compile_error_class():
    return compatible_class("CompileError")


class NumbaWarning(UserWarning):
    """numba's name: a compile-time warning (a print() of more than 32 items). Raised as
    numba-cuda's own class where numba-cuda is loaded."""


class NumbaPerformanceWarning(UserWarning):
    """numba's name: a launch likely to run slowly on a GPU (a small grid, implicit copies
    of host arrays). Raised as numba-cuda's own class where numba-cuda is loaded."""


class NumbaInvalidConfigWarning(UserWarning):
    """numba's name: options that do not go together (debug=True with optimisation, debug
    with lineinfo). Raised as numba-cuda's own class where numba-cuda is loaded."""


class SignatureMismatchError(CutwinError, TypeError):
    """A launch whose argument types no declared signature takes (numba: a TypeError,
    "No matching definition for argument type(s) ...")."""


class LaunchError(CutwinError):
    """A launch the device refuses (configuration, resources). `code` is the driver's name
    for the error where the message gives one ("CUDA_ERROR_INVALID_VALUE"), `msg` the
    message: the attributes numba-cuda's CudaAPIError has, which this is raised as too."""

    def __init__(self, message="", code=None):
        CutwinError.__init__(self, message)
        self.msg = message
        if code is None:
            import re

            found = re.search(r"CUDA_ERROR_[A-Z_]+", message)
            code = found.group(0) if found else None
        self.code = code

    def __str__(self):
        return self.msg


class DeviceError(CutwinError):
    """No such device, out of memory, failed copies."""


class KernelError(CutwinError):
    """A fault inside a running kernel. Attributes: `kernel`, `file`, `line`, `thread` and
    `block` (3-tuples), `detail` (the message without the location)."""


class KernelIndexError(KernelError, IndexError):
    """An index out of bounds inside a kernel (bounds checks on)."""


class KernelAssertionError(KernelError, AssertionError):
    """A failed `assert` inside a kernel (debug kernels)."""


class KernelTimeoutError(KernelError, TimeoutError):
    """The simulator's watchdog stopped a launch that ran longer than CUTWIN_SIM_TIMEOUT
    seconds (or the launch option); `detail` says where the thread named was."""


class KernelRaceError(KernelError):
    """The simulator's sanitizer (`sanitize=`, CUTWIN_SANITIZE) found a data race: two
    accesses of different threads to one element, at least one a write, that nothing
    orders. The message names both (thread, block, file:line, read/write/atomic) and the
    element; `detail` is it without the location."""


class KernelUninitializedError(KernelError):
    """The simulator's sanitizer found a read of memory nothing wrote: shared memory at a
    block's start, a local array, a device_array() before any copy or kernel wrote it."""


class KernelInterrupted(KeyboardInterrupt):
    """Ctrl-C during a simulator launch: a KeyboardInterrupt (not an Exception, so that
    `except Exception` does not swallow it) with a KernelError's attributes - `kernel`,
    `file`, `line`, `thread`, `block`, `detail` - naming where the thread was."""


_raised = {}


def kernel_exception_class(detail):
    """The class of a `raise` inside a kernel: a KernelError that is also the builtin
    exception the kernel raised (`raise ValueError("...")` is caught by `except
    ValueError`), named from `detail` ("ValueError: text")."""
    import builtins

    name = detail.split(":", 1)[0].strip()
    base = getattr(builtins, name, None)
    if not (isinstance(base, type) and issubclass(base, Exception)) or issubclass(base, KernelError):
        return KernelError
    cls = _raised.get(name)
    if cls is None:
        cls = _raised[name] = type("Kernel" + name, (KernelError, base),
                                   {"__doc__": "A `raise %s` inside a kernel." % name, "__module__": __name__})
    return cls


_user_raised = {}


def _numba_style_message(err):
    """numba-cuda's words for a user exception raised in a kernel ("In function 'f', file
    F, line L, tid=[x, y, z] ctaid=[x, y, z]: message"), with the calling kernel added
    when the raise is in a device function."""
    import re

    m = re.search(r" in (\S+)( \(called from kernel (\S+)\))?, thread ", str(err))
    fn = m.group(1) if m else getattr(err, "kernel", "?")
    caller = " (called from kernel '%s')" % m.group(3) if m and m.group(3) else ""
    detail = getattr(err, "detail", "") or ""
    msg = detail.split(":", 1)[1].strip() if ":" in detail else ""
    tid = list(getattr(err, "thread", (0, 0, 0)))
    ctaid = list(getattr(err, "block", (0, 0, 0)))
    return "In function '%s', file %s, line %s%s, tid=%s ctaid=%s%s" % (
        fn, getattr(err, "file", "?"), getattr(err, "line", "?"), caller, tid, ctaid, ": " + msg if msg else "")


def as_user_exception(err, classes):
    """A kernel's `raise MyError(...)` as the user's own class (numba-cuda raises it so):
    a KernelError that is also `classes[name]`, with kernel, line, thread and block still
    in the message. `err` itself if its class is not one of `classes`."""
    name = (getattr(err, "detail", "") or "").split(":", 1)[0].strip()
    cls = classes.get(name)
    if cls is None:
        return err
    key = (cls, type(err))
    sub = _user_raised.get(key)
    if sub is None:
        try:
            sub = type(cls.__name__, (type(err), cls), {"__module__": cls.__module__})
        except TypeError:  # an incompatible layout: the user's class alone
            sub = cls
        _user_raised[key] = sub
    text = _numba_style_message(err)
    new = sub.__new__(sub, text)
    new.args = (text,)
    for attr in ("kernel", "file", "line", "thread", "block", "detail"):
        if hasattr(err, attr):
            try:
                setattr(new, attr, getattr(err, attr))
            except AttributeError:
                pass
    return new
