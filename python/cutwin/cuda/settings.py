"""numba's configuration settings that cutwin honours, and numba's performance warnings.

A setting is read from numba-cuda's configuration module where the program has it loaded
(under the numba switch, or a numba-cuda test overriding it: its values and defaults then
apply, as they would on numba-cuda), else from the environment variable numba reads
(`NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=1`). Without either, cutwin's default is off: numba's
warnings are about GPU occupancy and copies, and a program written for cutwin asks for them.
"""
import os
import sys
import warnings

_CONFIG_MODULE = "numba.cuda.core.config"


_ENV_KEYS = {}  # setting -> its environment variable "NUMBA_" + name, as os.environ keys its data
# os.environ.get costs a microsecond when the variable is absent (an exception inside); its
# own dict (CPython's, kept by os.environ's writes) answers at once. Elsewhere: get().
_ENVIRON_DATA = getattr(os.environ, "_data", None)
_ENCODE_KEY = getattr(os.environ, "encodekey", None)


def setting(name, default=0):
    """numba's setting `name` (`CUDA_LOW_OCCUPANCY_WARNINGS`, ...), as an int. Read on every
    call (programs and tests change them), cheaply: launches ask."""
    config = sys.modules.get(_CONFIG_MODULE)
    if config is not None:
        value = getattr(config, name, None)
        if value is not None:
            return int(value)
    key = _ENV_KEYS.get(name)
    if key is None:
        key = _ENV_KEYS[name] = "NUMBA_" + name
        if isinstance(_ENVIRON_DATA, dict) and _ENCODE_KEY is not None:
            key = _ENV_KEYS[name] = _ENCODE_KEY(key)
    if isinstance(key, str):
        value = os.environ.get(key)
    else:
        value = _ENVIRON_DATA.get(key)
        value = os.environ.decodevalue(value) if value is not None else None
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        return default


def _warning_class(name):
    """numba-cuda's warning class where it is loaded (what programs filter), else cutwin's."""
    errors = sys.modules.get("numba.cuda.core.errors")
    cls = getattr(errors, name, None)
    if isinstance(cls, type) and issubclass(cls, Warning):
        return cls
    from .. import errors as cutwin_errors

    return getattr(cutwin_errors, name)


def numba_program():
    """Is numba-cuda's configuration loaded (a program written for numba, or the switch)?"""
    return _CONFIG_MODULE in sys.modules


def warn_invalid_config(debug, opt, lineinfo, stacklevel=3):
    """numba's warnings for options that do not go together, in programs written for numba
    (numba_program()): cutwin compiles debug kernels unoptimised (-opt=0) whatever `opt`
    says, and with full debug information when lineinfo is asked for too."""
    if not numba_program():
        return
    cls = _warning_class("NumbaInvalidConfigWarning")
    if debug and opt:
        warnings.warn(cls("debug=True with opt=True is not supported by CUDA: cutwin compiles this kernel "
                          "without optimisation - set debug=False or opt=False."), stacklevel=stacklevel)
    if debug and lineinfo:
        warnings.warn(cls("debug and lineinfo are mutually exclusive. Use debug to get full debug info (cutwin "
                          "does, for this kernel), or lineinfo for line info only with code generation "
                          "unaffected."), stacklevel=stacklevel)


def warn_low_occupancy(griddim):
    """numba's warning for grids of fewer than 128 blocks (when asked for)."""
    if not setting("CUDA_LOW_OCCUPANCY_WARNINGS"):
        return
    size = 1
    for d in griddim:
        size *= d
    if size < 128:  # numba's threshold: about twice the SMs of a large GPU
        warnings.warn(_warning_class("NumbaPerformanceWarning")(
            "Grid size %d will likely result in GPU under-utilization due to low occupancy." % size), stacklevel=3)


def warn_implicit_copy():
    """numba's warning for a host array a launch copies to the device and back."""
    if setting("CUDA_WARN_ON_IMPLICIT_COPY"):
        warnings.warn(_warning_class("NumbaPerformanceWarning")(
            "Host array used in CUDA kernel will incur copy overhead to/from device."), stacklevel=4)
