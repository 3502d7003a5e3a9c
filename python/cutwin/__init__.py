"""cutwin: kernels written in the Numba CUDA dialect, compiled by one C++ compiler and run on
a CPU simulator (no GPU needed) or an NVIDIA GPU.

    from cutwin import cuda        # in place of: from numba import cuda
"""
from . import _toolkit

_toolkit.configure()  # libdevice, libNVVM, NVRTC: a toolkit's, else NVIDIA's pip packages' (cutwin[cu13])

from . import errors, types  # noqa: F401,E402
from .types import *  # noqa: F401,F403  (from cutwin import float32, void, ...)
from . import cuda  # noqa: F401,E402
from . import debug  # noqa: F401,E402  breakpoints in kernels: the prompt and cutwin.debug.on_breakpoint
from .cuda.dispatcher import cpu_jit as jit  # noqa: E402  numba.jit: CPU functions kernels can call
njit = jit


def install_as_numba():
    """Makes this process's `numba.cuda` (and `numba_cuda_mlir.cuda`) cutwin's, for notebooks
    and scripts: call it before the first `numba.cuda` import (cutwin/as_numba.py)."""
    from . import as_numba

    as_numba.install()

__version__ = "0.1.0"
