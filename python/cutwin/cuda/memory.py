"""External memory management: numba's EMM plugin interface on cutwin.

Every device allocation the Python package makes (device_array, to_device, NumPy
arguments copied for a launch, reduction scratch) and every pinned or mapped host buffer
comes from the current device's memory manager. The built-in one, CutwinMemoryManager,
uses cutwin's allocator; `set_memory_manager(cls)` or the environment variable
NUMBA_CUDA_MEMORY_MANAGER (or CUTWIN_CUDA_MEMORY_MANAGER) naming a module with a
`_numba_memory_manager` class installs a plugin such as RMM's. On the simulator device
memory is host memory, so a plugin may hand out any host buffer; on a GPU, device memory
from any allocator (CuPy, RMM, ...)."""
import abc
import contextlib
import ctypes
import importlib
import os
import threading
import weakref
from collections import namedtuple

from .. import _cutwin
from . import runtime

MemoryInfo = namedtuple("MemoryInfo", "free total")
"""Free and total device memory, in bytes."""

_CU_MEMHOSTALLOC_PORTABLE, _CU_MEMHOSTALLOC_DEVICEMAP, _CU_MEMHOSTALLOC_WRITECOMBINED = 1, 2, 4


def _address(pointer):
    if isinstance(pointer, ctypes.c_void_p):
        return pointer.value or 0
    return int(pointer or 0)


class DevicePointer(ctypes.c_void_p):
    """A device address as ctypes holds it, which `int()` reads too (numba-cuda's
    CUdeviceptr: `int(a.gpu_data.device_pointer)`)."""

    def __int__(self):
        return self.value or 0

    __index__ = __int__


class MemoryPointer:
    """Device memory owned by a memory manager, freed by `finalizer` when this object
    goes (or at `free()`)."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        self.device_pointer = DevicePointer(_address(pointer))
        self.handle = self.device_pointer
        self.size = size
        self._cuda_memsize_ = size
        self.is_managed = finalizer is not None
        self.refct = 1
        self._owner = owner
        self._finalizer = weakref.finalize(self, finalizer) if finalizer is not None else None

    @property
    def owner(self):
        return self if self._owner is None else self._owner

    def __eq__(self, other):
        # the same memory: an array and its views (`a.view(np.int64).gpu_data == a.gpu_data`)
        if not isinstance(other, MemoryPointer):
            return NotImplemented
        return self.device_pointer_value == other.device_pointer_value and self.size == other.size

    def __hash__(self):
        return hash((self.device_pointer_value, self.size))

    @property
    def device_pointer_value(self):
        return self.device_pointer.value or 0

    @property
    def device_ctypes_pointer(self):
        return self.device_pointer

    def own(self):
        return self

    def free(self):
        """Releases the memory now (the finalizer runs once)."""
        if self._finalizer is not None:
            self._finalizer()

    def view(self, start, stop=None):
        stop = self.size if stop is None else stop
        if not 0 <= start <= stop <= self.size:
            raise IndexError("view [%d:%d] outside an allocation of %d bytes" % (start, stop, self.size))
        return MemoryPointer(self.context, self.device_pointer_value + start, stop - start, owner=self.owner)


class AutoFreePointer(MemoryPointer):
    """A MemoryPointer whose memory goes when its reference count reaches zero."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refct -= 1  # the creator's reference is not counted


class MappedMemory(MemoryPointer):
    """Host memory mapped into the device's address space: `host_pointer` for the host,
    `device_pointer` for kernels (the same address on the simulator)."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        host = _address(pointer)
        self.host_pointer = ctypes.c_void_p(host)
        self._bufptr_, self._buflen_ = host, size
        device = context._native.host_device_pointer(host) if host else 0
        super().__init__(context, device, size, owner=owner, finalizer=finalizer)
        self.handle = self.host_pointer


class PinnedMemory:
    """Page-locked host memory (not mapped for kernels)."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        self.host_pointer = ctypes.c_void_p(_address(pointer))
        self.handle = self.host_pointer
        self.size = size
        self._bufptr_, self._buflen_ = self.host_pointer.value or 0, size
        self._owner = owner
        self._finalizer = weakref.finalize(self, finalizer) if finalizer is not None else None

    @property
    def owner(self):
        return self if self._owner is None else self._owner

    def own(self):
        return self

    def free(self):
        if self._finalizer is not None:
            self._finalizer()


class IpcMemHandle(bytes):
    """The 64 bytes of an IPC handle, which numba's code reads as `handle.reserved`."""

    @property
    def reserved(self):
        return bytes(self)


class IpcHandle:
    """An inter-process handle to device memory (64 opaque bytes from cuIpcGetMemHandle;
    on the simulator, the memory file of simulator/ipc_memory.h), `offset` bytes into the
    allocation it names. It pickles (without `base`, the memory of the exporting process),
    so it can be sent to another process, which opens it on any of its devices."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base, self.handle, self.size = base, IpcMemHandle(bytes(handle)), size
        self.source_info, self.offset = source_info, offset
        self._opened = None  # (context, mapped base) while open

    def open(self, context=None):
        """Maps the memory into this process (not the one that exported it) on `context`'s
        device: a MemoryPointer to the handle's `size` bytes. Unmapped by close()."""
        if self.base is not None:
            raise ValueError("opening IpcHandle from original process")
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened")
        ctx = context or current_context()
        base = ctx._native.ipc_open(bytes(self.handle))
        self._opened = (ctx, base)
        return MemoryPointer(ctx, base + self.offset, self.size)

    # numba opens directly where the device reaches the memory, else it stages a copy
    # through the source device; a device reaches any other's memory once the handle is
    # open (the driver enables peer access lazily, as the simulator has it anyway).
    open_direct = open_staged = open

    def open_array(self, context, shape, dtype, strides=None):
        """A device array over the memory (open() and a view of it)."""
        from .devicearray import _array_at

        mem = self.open(context)
        with runtime._on_device(mem.context.spec):
            return _array_at(mem.device_pointer_value, (shape,) if isinstance(shape, int) else shape, dtype,
                             strides, mem)

    def close(self):
        if self._opened is None:
            raise ValueError("IpcHandle not opened")
        ctx, base = self._opened
        self._opened = None
        ctx._native.ipc_close(base)

    def __getstate__(self):
        return {"handle": bytes(self.handle), "size": self.size, "source_info": self.source_info,
                "offset": self.offset}

    def __setstate__(self, state):
        self.__init__(None, state["handle"], state["size"], state["source_info"], state["offset"])


class BaseCUDAMemoryManager(abc.ABC):
    """The interface an EMM plugin implements (numba's). `context` is the device's
    context, passed as a keyword argument."""

    def __init__(self, *args, **kwargs):
        if "context" not in kwargs:
            raise RuntimeError("Memory manager requires a context")
        self.context = kwargs.pop("context")

    @abc.abstractmethod
    def memalloc(self, size):
        """Device memory of `size` bytes: a MemoryPointer."""

    @abc.abstractmethod
    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        """Page-locked host memory: MappedMemory if `mapped`, else PinnedMemory."""

    @abc.abstractmethod
    def mempin(self, owner, pointer, size, mapped=False):
        """Page-locks existing host memory of `owner`: MappedMemory or PinnedMemory."""

    @abc.abstractmethod
    def initialize(self):
        """Called once before the first allocation."""

    @abc.abstractmethod
    def get_ipc_handle(self, memory):
        """An IpcHandle for a MemoryPointer from memalloc."""

    @abc.abstractmethod
    def get_memory_info(self):
        """MemoryInfo(free, total)."""

    @abc.abstractmethod
    def reset(self):
        """Frees everything this manager allocated."""

    @abc.abstractmethod
    def defer_cleanup(self):
        """A context manager during which freeing may be postponed."""

    @property
    @abc.abstractmethod
    def interface_version(self):
        """1, the EMM interface version this plugin implements."""


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """The host side done for a plugin that manages device memory only: page-locked and
    mapped host memory through the device, tracked so that reset() frees it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allocations = {}  # host address -> the memory object's finalizer

    def _host_memory(self, address, size, mapped, owner, finalizer):
        cls = MappedMemory if mapped else PinnedMemory
        mem = cls(self.context, address, size, owner=owner, finalizer=finalizer)
        self.allocations[address] = mem._finalizer
        return mem

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        flags = ((_CU_MEMHOSTALLOC_DEVICEMAP if mapped else 0) | (_CU_MEMHOSTALLOC_PORTABLE if portable else 0)
                 | (_CU_MEMHOSTALLOC_WRITECOMBINED if wc else 0))
        native = self.context._native
        address = native.allocate_host(size, flags)
        allocations = self.allocations

        def release():
            allocations.pop(address, None)
            native.release_host(address)
        return self._host_memory(address, size, mapped, None, release)

    def mempin(self, owner, pointer, size, mapped=False):
        address = _address(pointer)
        native = self.context._native
        native.register_host(address, size, _CU_MEMHOSTALLOC_DEVICEMAP if mapped else 0)
        allocations = self.allocations

        def release():
            allocations.pop(address, None)
            native.unregister_host(address)
        return self._host_memory(address, size, mapped, owner, release)

    def reset(self):
        for finalizer in list(self.allocations.values()):
            if finalizer is not None:
                finalizer()
        self.allocations.clear()

    @contextlib.contextmanager
    def defer_cleanup(self):
        yield


class GetIpcHandleMixin:
    """get_ipc_handle() through the driver (cuMemGetAddressRange, cuIpcGetMemHandle)."""

    def get_ipc_handle(self, memory):
        pointer = memory.device_pointer_value
        handle, base, size = self.context._native.ipc_handle(pointer)
        return IpcHandle(memory, handle, memory.size, offset=pointer - base)


class CutwinMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """The built-in memory manager: cutwin's own device allocator."""

    def initialize(self):
        pass

    def memalloc(self, size):
        raw = _cutwin.empty(self.context._native, "uint8", [max(int(size), 1)])
        # The finalizer's closure holds the buffer: it lives exactly as long as the pointer.
        return MemoryPointer(self.context, raw.device_pointer, size, finalizer=lambda: raw)

    def get_memory_info(self):
        return MemoryInfo(*self.context._native.memory_info())

    @property
    def interface_version(self):
        return 1


NumbaCUDAMemoryManager = CutwinMemoryManager  # numba's name for its built-in manager


class PendingDeallocs:
    """numba's queue of frees a context postpones (`context.deallocations`). cutwin frees
    device memory when its last reference goes, so nothing is ever queued here; code that
    clears the queue or disables it for a while (stumpy does between runs) works as on
    numba-cuda."""

    def __init__(self):
        self._disabled = 0

    def add_item(self, dtor, *args, size=0):
        """Frees at once (numba postpones until its queue fills)."""
        dtor(*args)

    def clear(self):
        """Frees what is pending: nothing, since cutwin never postpones a free."""

    @contextlib.contextmanager
    def disable(self):
        self._disabled += 1
        try:
            yield
        finally:
            self._disabled -= 1

    @property
    def is_disabled(self):
        return self._disabled > 0

    def __len__(self):
        return 0


class Context:
    """numba's context of a device: its memory manager and what goes through it."""

    def __init__(self, spec):
        self.spec = spec
        self._native = runtime._open(spec)
        self.device = runtime._info(spec)
        self._manager = None
        self.deallocations = PendingDeallocs()

    def synchronize(self):
        self._native.synchronize()

    def push(self):
        """numba makes its context current with push/pop; cutwin's device is current per thread."""

    def pop(self):
        pass

    def get_default_stream(self):
        return runtime.default_stream()

    get_legacy_default_stream = get_per_thread_default_stream = get_default_stream

    def create_stream(self):
        with runtime.use_backend(self.spec):
            return runtime.stream()

    def create_external_stream(self, ptr):
        with runtime.use_backend(self.spec):
            return runtime.external_stream(ptr)

    def create_event(self, timing=True):
        with runtime.use_backend(self.spec):
            return runtime.event(timing)

    def __eq__(self, other):
        return isinstance(other, Context) and other.spec == self.spec

    def __hash__(self):
        return hash(self.spec)

    @property
    def memory_manager(self):
        if self._manager is None:
            manager = _manager_class()(context=self)
            if manager.interface_version != 1:
                raise RuntimeError("EMM plugin %s implements interface version %r; cutwin supports 1"
                                   % (type(manager).__name__, manager.interface_version))
            manager.initialize()
            self._manager = manager
        return self._manager

    def memalloc(self, size):
        return self.memory_manager.memalloc(size)

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        return self.memory_manager.memhostalloc(size, mapped=mapped, portable=portable, wc=wc)

    def mempin(self, owner, pointer, size, mapped=False):
        return self.memory_manager.mempin(owner, pointer, size, mapped=mapped)

    def get_memory_info(self):
        return self.memory_manager.get_memory_info()

    def get_ipc_handle(self, memory):
        return self.memory_manager.get_ipc_handle(memory)

    def can_access_peer(self, peer_device):
        """Whether kernels of this context's device can reach the memory of device
        `peer_device` (its number) once peer access is enabled."""
        return self.device.can_access_peer(int(peer_device))

    def enable_peer_access(self, peer_context, flags=0):
        """Lets kernels of this context's device use arrays of `peer_context`'s device
        (cuCtxEnablePeerAccess); without it cutwin refuses such a launch, where a GPU
        would fault with an illegal address."""
        if flags != 0:
            raise ValueError("enable_peer_access takes flags=0 (the driver's only value)")
        self._native.enable_peer_access(peer_context._native)

    def disable_peer_access(self, peer_context):
        self._native.disable_peer_access(peer_context._native)

    def reset(self):
        self.memory_manager.reset()

    def defer_cleanup(self):
        return self.memory_manager.defer_cleanup()

    def __repr__(self):
        return "<cutwin context %s>" % self.spec


_lock = threading.Lock()
_contexts = {}
_configured = None  # the class set_memory_manager installed
# Read once, like numba: the plugin module the environment names (or None).
_ENVIRONMENT_PLUGIN = (os.environ.get("CUTWIN_CUDA_MEMORY_MANAGER") or os.environ.get("NUMBA_CUDA_MEMORY_MANAGER")
                       or None)
if _ENVIRONMENT_PLUGIN == "default":
    _ENVIRONMENT_PLUGIN = None


def _manager_class():
    if _configured is not None:
        return _configured
    name = _ENVIRONMENT_PLUGIN
    if name is None:
        return CutwinMemoryManager
    try:
        module = importlib.import_module(name)
    except ImportError as e:
        raise RuntimeError("cannot import the EMM plugin module %r named by the environment: %s" % (name, e)) from e
    cls = getattr(module, "_numba_memory_manager", None)
    if cls is None:
        raise RuntimeError("EMM plugin module %r has no _numba_memory_manager" % name)
    return cls


def current_context():
    """The current device's context (its memory manager is created on first use)."""
    return context_of(runtime._selected_spec())


def context_of(spec):
    """The context of device `spec` ("sim", "sim:1", "gpu:0", ...)."""
    with _lock:
        ctx = _contexts.get(spec)
        if ctx is None:
            ctx = _contexts[spec] = Context(spec)
        return ctx


runtime.set_context_maker(current_context)


def set_memory_manager(mm_plugin):
    """Makes `mm_plugin` (a BaseCUDAMemoryManager subclass) the memory manager of every
    device from now on; memory allocated before stays with its manager. None restores
    the built-in manager (or the one the environment names)."""
    global _configured
    if mm_plugin is not None and not (isinstance(mm_plugin, type) and issubclass(mm_plugin, BaseCUDAMemoryManager)):
        raise TypeError("set_memory_manager takes a subclass of BaseCUDAMemoryManager, not %r" % (mm_plugin,))
    with _lock:
        _configured = mm_plugin
        _contexts.clear()


def _uses_builtin_manager():
    """True when allocations may skip the manager (the built-in one): the fast path."""
    return _configured is None and _ENVIRONMENT_PLUGIN is None
