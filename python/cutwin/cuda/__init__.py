"""`from cutwin import cuda`: numba.cuda's API on cutwin. Kernels written for numba-cuda
run unchanged on the simulator (no GPU needed) or on an NVIDIA GPU; see docs/python.md
for the backend choice and the differences from numba-cuda."""
from ..errors import (CompileError, CutwinError, DeviceError, KernelAssertionError, KernelError,  # noqa: F401
                      KernelIndexError, KernelRaceError, KernelUninitializedError, LaunchError, TypingError)
from ..types import *  # noqa: F401,F403  numba exposes its types through numba.cuda too
from .. import types  # noqa: F401  (from numba.cuda import types)
from .args import In, InOut, Out  # noqa: F401
from .devicearray import from_dlpack  # noqa: F401,E402
from .devicearray import (DeviceNDArray, MappedNDArray, PinnedNDArray, as_cuda_array, device_array,  # noqa: F401
                          device_array_like, from_cuda_array_interface, is_cuda_array, managed_array, mapped,
                          mapped_array, mapped_array_like, open_ipc_array, pinned, pinned_array,
                          pinned_array_like, to_device)
from .memory import (AutoFreePointer, BaseCUDAMemoryManager, CutwinMemoryManager, GetIpcHandleMixin,  # noqa: F401
                     HostOnlyCUDAMemoryManager, IpcHandle, MappedMemory, MemoryInfo, MemoryPointer,
                     PinnedMemory, current_context, set_memory_manager)
from .compiler import compile, compile_for_current_device, compile_ptx, compile_ptx_for_current_device  # noqa: F401
from .dispatcher import DeviceFunction, Dispatcher, jit  # noqa: F401
from .foreign import declare_device  # noqa: F401
from .linkable_code import Archive, CUSource, Cubin, Fatbin, LinkableCode, LTOIR, Object, PTXSource  # noqa: F401
from .intrinsics import *  # noqa: F401,F403
from . import random  # noqa: F401,E402  cuda.random.xoroshiro128p_* as numba spells it
from . import libdevice  # noqa: F401,E402  cuda.libdevice.<name>: libdevice functions in kernels
from . import fp16  # noqa: F401,E402  cuda.fp16.hadd etc.: CUDA's float16 functions in kernels
from . import bf16  # noqa: F401,E402  cuda.bf16.hadd etc.: CUDA's bfloat16 functions in kernels
from . import cudadrv  # noqa: F401,E402  cuda.cudadrv.driver / drvapi names
from .cudadrv import devices, driver  # noqa: F401,E402  cuda.devices.get_context(), cuda.driver, as numba has them
from .cudadrv.devices import require_context  # noqa: F401,E402
from .reduction import Reduce, reduce  # noqa: F401,E402
from .special import carray, farray, literal_unroll  # noqa: F401,E402
from . import launchconfig  # noqa: F401,E402
from .vectorizers import guvectorize, vectorize  # noqa: F401,E402
from .runtime import (Event, Stream, close, current_backend, default_stream, detect, event,  # noqa: F401
                      event_elapsed_time, external_stream, get_current_device, gpu_available, gpus, is_available, list_devices,
                      legacy_default_stream, per_thread_default_stream, select_device, set_simulated_devices,
                      simulated_devices, stream, synchronize, use_backend)


def is_supported_version():
    return True


def is_float16_supported():
    """float16 arrays, scalars, operators and the `cuda.fp16` functions work on every backend."""
    return True


def is_bfloat16_supported():
    """bfloat16 scalars, arrays (ml_dtypes' dtype on the host) and operators work on every
    backend and architecture (computed in float32 and rounded once)."""
    return True


def is_fp8_supported():
    """fp8_e5m2, fp8_e4m3 and fp8_e8m0 (construction, conversions, the cvt_* functions) work
    on every backend and architecture: they are integer and float operations."""
    return True


from . import fp8  # noqa: F401,E402  cuda.fp8: CUDA's 8-bit floats in kernels
from . import vector_types as _vector_types  # noqa: E402,F401  cuda.double4 is cuda.float64x4
