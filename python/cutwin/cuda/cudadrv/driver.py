"""`numba.cuda.cudadrv.driver`: devices, contexts and the memory classes EMM plugins build
on, over cutwin's devices (the driver calls themselves are made in C++, runtime/)."""
from ..memory import (AutoFreePointer, BaseCUDAMemoryManager, Context, GetIpcHandleMixin,  # noqa: F401
                      HostOnlyCUDAMemoryManager, IpcHandle, MappedMemory, MemoryInfo, MemoryPointer,
                      NumbaCUDAMemoryManager, PendingDeallocs, PinnedMemory)
from .. import runtime
from ..memory import _address
from ..runtime import Event, Stream  # noqa: F401,E402
from .error import CudaDriverError, CudaSupportError  # noqa: F401,E402


class CudaAPIError(CudaDriverError):
    """A driver call returned an error code."""

    def __init__(self, code, msg):
        self.code, self.msg = code, msg
        super().__init__(code, msg)

    def __str__(self):
        return "[%s] %s" % (self.code, self.msg)


def _have_nvjitlink():
    """cutwin links device code with the CUDA driver's linker, not nvJitLink."""
    return False


def Device(devnum):
    """numba's `Device(devnum)`: device `devnum` of the current backend (the simulator is
    device 0 of its backend)."""
    devices = runtime.list_devices()
    if not 0 <= int(devnum) < len(devices):
        raise CudaSupportError("no CUDA device %d (the %s backend has %d)"
                               % (devnum, runtime.current_backend(), len(devices)))
    return devices[int(devnum)]


def host_pointer(obj):
    """The address of a host buffer (a NumPy array or anything with the buffer protocol)."""
    import numpy as np

    return np.asarray(obj).ctypes.data if not isinstance(obj, int) else obj


def device_pointer(obj):
    """The device address of a device array, a MemoryPointer or an address."""
    if hasattr(obj, "device_pointer_value"):  # a MemoryPointer
        return obj.device_pointer_value
    return _address(getattr(obj, "device_ctypes_pointer", obj))


def _bytes_at(obj, size):
    """`size` bytes of device memory at `obj` (a device array, a MemoryPointer or an address),
    as a cutwin array of the device they belong to (the current device for a bare address):
    the simulator's sanitizer counts the bytes written on that device."""
    from ... import _cutwin

    if hasattr(obj, "_arr"):
        device = obj._arr.device
    elif getattr(obj, "context", None) is not None and hasattr(obj.context, "_native"):
        device = obj.context._native
    else:
        device = runtime._device()
    return _cutwin.wrap(device, int(device_pointer(obj)), "uint8", [int(size)], [1], None)


def _host_bytes(obj, size):
    import numpy as np

    return np.frombuffer(memoryview(obj).cast("B"), np.uint8, count=int(size))


def host_to_device(dst, src, size, stream=0):
    """numba's driver call: copies `size` bytes from host buffer `src` to device memory `dst`."""
    if size:
        _bytes_at(dst, size).copy_from_host(_host_bytes(src, size))


def device_to_host(dst, src, size, stream=0):
    """numba's driver call: copies `size` bytes from device memory `src` to host buffer `dst`."""
    if size:
        _bytes_at(src, size).copy_to_host(_host_bytes(dst, size))


def device_to_device(dst, src, size, stream=0):
    """numba's driver call: copies `size` bytes between device allocations (of any devices:
    a peer copy between two)."""
    if size:
        _bytes_at(dst, size).copy_from(_bytes_at(src, size))


def _raise_driver_not_found():
    raise CudaSupportError("CUDA driver library cannot be found (cutwin runs kernels on its simulator where "
                           "there is no GPU)")


class _Driver:
    """numba's `driver` object: what code asks of it (is CUDA available, how many devices).
    cutwin's driver calls are made in C++, so code that replaces attributes of this object
    changes nothing cutwin does."""

    @property
    def is_available(self):
        return runtime.is_available()

    def get_device_count(self):
        return len(runtime.list_devices())

    def get_device(self, devnum=0):
        return Device(devnum)

    def list_devices(self):
        return runtime.list_devices()

    def __repr__(self):
        return "<cutwin driver (calls made in C++)>"


driver = _Driver()
