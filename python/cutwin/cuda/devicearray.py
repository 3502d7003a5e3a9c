"""Device arrays with numba's interface: `to_device`, `device_array(_like)`,
`copy_to_host`, slicing and views, `pinned_array`. A DeviceNDArray wraps the C++
DeviceArray (a view: shape, byte strides, an offset into a shared allocation)."""
import contextlib
import ctypes

import numpy as np

from .. import _cutwin
from . import memory, runtime
from .settings import setting


# numba.cuda.random's state record; device arrays of it are RNG states.
xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)


def _native_dtype(dtype):
    """The C++ dtype name of a NumPy dtype (a structured dtype's: numba's spelling of it)."""
    if dtype == xoroshiro128p_dtype:
        return "xoroshiro128p"
    from ..types import is_string_dtype, record_spelling
    if dtype.names or is_string_dtype(dtype):
        return record_spelling(dtype)
    return dtype.name


def _raw(host):
    """A host array as the extension takes it: record arrays as their bytes, ml_dtypes'
    numbers (bfloat16) as unsigned integers of their size, datetime64 and timedelta64 as
    their int64 counts."""
    if host.dtype.names or host.dtype.kind in "US":
        return host.view(np.uint8)
    if host.dtype.kind == "V":
        return host.view("u%d" % host.dtype.itemsize)
    if host.dtype.kind in "mM":
        return host.view(np.int64)
    return host


def _strides_for(shape, itemsize, order):
    strides, step = [0] * len(shape), itemsize
    axes = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for k in axes:
        strides[k] = step
        step *= max(shape[k], 1)
    return tuple(strides)


def _normalize_shape(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


class _Flags(dict):
    def __getattr__(self, name):
        try:
            return self[name.upper()]
        except KeyError:
            raise AttributeError(name) from None


class DeviceNDArray:
    """An array in the current device's memory (numba's DeviceNDArray)."""

    __slots__ = ("_arr", "dtype", "stream", "_writeback")
    __cuda_memory__ = True
    __cuda_ndarray__ = True

    def __init__(self, native, dtype, stream=0, writeback=None):
        self._arr = native
        self.dtype = np.dtype(dtype)
        self.stream = stream
        self._writeback = writeback  # the host array to_device copied, for to_host()

    # -- properties
    @property
    def shape(self):
        return self._arr.shape

    @property
    def strides(self):
        return self._arr.strides

    @property
    def ndim(self):
        return self._arr.ndim

    @property
    def size(self):
        return self._arr.size

    @property
    def nbytes(self):
        return self._arr.nbytes

    @property
    def alloc_size(self):
        return self._arr.span[1]

    @property
    def device_ctypes_pointer(self):
        return runtime.Address(self._arr.device_pointer)

    @property
    def gpu_data(self):
        """numba's view of the array's memory: a MemoryPointer at its first byte (this array
        keeps the memory alive)."""
        ctx = memory.context_of(runtime._canonical(self._arr.device.spec))
        begin, nbytes = self._arr.span
        return memory.MemoryPointer(ctx, self._arr.device_pointer + begin, nbytes, owner=self)

    def as_cuda_arg(self):
        """The device memory a kernel argument passes (numba's)."""
        return self.gpu_data

    @property
    def __cuda_array_interface__(self):
        """The CUDA Array Interface (version 3), for CuPy, PyTorch and friends. On the
        simulator the pointer is a host address, meaningful to cutwin (kernels, CPointer
        arguments, from_cuda_array_interface) and to no GPU library."""
        return {"shape": self.shape, "strides": None if self.is_c_contiguous() else self.strides,
                "typestr": self.dtype.str, "data": (self._arr.device_pointer if self.size else 0, False),
                "version": 3, "stream": _interface_stream(self.stream)}

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def __repr__(self):
        return "<cutwin DeviceNDArray shape=%s dtype=%s>" % (self.shape, self.dtype)

    def is_c_contiguous(self):
        return self._arr.is_c_contiguous

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """The array as a DLPack capsule, without a copy: CUDA memory of its GPU, or CPU
        memory on the simulator (whose device memory is host memory: NumPy's and PyTorch's
        from_dlpack use it in place). A consumer's `stream` waits for this array's work."""
        # (no stream: the consumer assumes the legacy default stream, on a GPU)
        if stream != -1 and (stream is not None or not self._arr.device.is_simulator):
            self._arr.device.synchronize()
        return self._arr.dlpack_view().__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        """(device type, device id): (2, N) for GPU N (kDLCUDA), (1, 0) on the simulator (kDLCPU)."""
        return (1, 0) if self._arr.device.is_simulator else (2, self._arr.device.ordinal)

    def get_ipc_handle(self):
        """An IpcArrayHandle another process can open to use this array's memory."""
        ctx = memory.context_of(runtime._canonical(self._arr.device.spec))
        ipch = ctx.get_ipc_handle(memory.MemoryPointer(ctx, self._arr.device_pointer, self._arr.span[1]))
        return IpcArrayHandle(ipch, dict(shape=self.shape, strides=self.strides, dtype=self.dtype))

    def is_f_contiguous(self):
        return self.strides == _strides_for(self.shape, self.dtype.itemsize, "F") or self.size <= 1

    @property
    def flags(self):
        """numba's flags dict: C_CONTIGUOUS, F_CONTIGUOUS (also as .c_contiguous, ...)."""
        return _Flags(C_CONTIGUOUS=self.is_c_contiguous(), F_CONTIGUOUS=self.is_f_contiguous())

    # -- copies
    def copy_to_host(self, ary=None, stream=0):
        """The array's contents as a NumPy array (into `ary` if given)."""
        if self.is_c_contiguous():
            if ary is not None and ary.flags.c_contiguous and ary.dtype == self.dtype and ary.shape == self.shape:
                self._arr.copy_to_host(_raw(ary))
                return ary
            host = np.empty(self.shape, self.dtype)
            self._arr.copy_to_host(_raw(host))
        else:
            begin, nbytes = self._arr.span
            buf = np.empty(nbytes, np.uint8)
            self._arr.copy_span_to_host(buf)
            host = np.ndarray(self.shape, self.dtype, buffer=buf, offset=-begin, strides=self.strides)
        if ary is None:
            return host
        np.copyto(ary, host.reshape(ary.shape) if host.size == ary.size else host)
        return ary

    def to_host(self, stream=0):
        """Copies the array back into the host array `to_device` made it from (numba's
        older API, kept for the programs that use it)."""
        if self._writeback is None:
            raise ValueError("to_host(): this device array was not made by to_device from a host array")
        self.copy_to_host(self._writeback, stream=stream)

    def __array__(self, dtype=None, copy=None):
        host = self.copy_to_host()
        return host if dtype is None else host.astype(dtype, copy=False)

    def bind(self, stream=0):
        """A view of this array whose operations default to `stream`."""
        return DeviceNDArray(self._arr, self.dtype, stream, self._writeback)

    def split(self, section, stream=0):
        """Views of consecutive pieces of `section` elements (the last may be shorter) of a
        one-dimensional array with unit stride, as a generator (numba's)."""
        if self.ndim != 1:
            raise ValueError("only support 1d array")
        if self.strides[0] != self.dtype.itemsize:
            raise ValueError("only support unit stride")
        stream = stream or self.stream
        for begin in range(0, self.size, section):
            end = min(begin + section, self.size)
            yield DeviceNDArray(self._arr.view([end - begin], [self.dtype.itemsize], begin * self.dtype.itemsize),
                                self.dtype, stream)

    def squeeze(self, axis=None, stream=0):
        """A view without the axes of length one (those of `axis` only, if given)."""
        axes = range(self.ndim) if axis is None else [a % self.ndim for a in np.atleast_1d(axis)]
        for a in axes:
            if axis is not None and self.shape[a] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
        keep = [k for k in range(self.ndim) if not (k in axes and self.shape[k] == 1)]
        view = self._view([self.shape[k] for k in keep], [self.strides[k] for k in keep])
        view.stream = stream or self.stream
        return view

    def getitem(self, item, stream=0):
        return self[item]

    def setitem(self, key, value, stream=0):
        self[key] = value

    def copy_to_device(self, ary, stream=0):
        """Copies a host array (or another device array) of the same shape into this one."""
        if isinstance(ary, DeviceNDArray):
            if ary.is_c_contiguous() and self.is_c_contiguous():
                self._arr.copy_from(ary._arr)
                return
            ary = ary.copy_to_host()
        ary = np.asarray(ary)
        if ary.shape != self.shape:
            ary = np.broadcast_to(ary, self.shape)
        if self.is_c_contiguous():
            self._arr.copy_from_host(_raw(np.ascontiguousarray(ary, dtype=self.dtype)))
            return
        begin, nbytes = self._arr.span
        buf = np.empty(nbytes, np.uint8)
        self._arr.copy_span_to_host(buf)  # keep the bytes between the view's elements
        view = np.ndarray(self.shape, self.dtype, buffer=buf, offset=-begin, strides=self.strides)
        view[...] = ary
        self._arr.copy_span_from_host(buf)

    # -- views
    def _view(self, shape, strides, offset=0):
        return DeviceNDArray(self._arr.view(list(shape), list(strides), offset), self.dtype, self.stream)

    def _select(self, index):
        """The view `self[index]` selects (0-d for an element), computed by NumPy on a
        stand-in array with this array's layout."""
        _check_basic(index)
        standin = np.lib.stride_tricks.as_strided(np.zeros(1, self.dtype), self.shape, self.strides)
        result = standin[index]
        if not isinstance(result, np.ndarray):  # an element: NumPy returned a scalar
            result = standin[index + (Ellipsis,) if isinstance(index, tuple) else (index, Ellipsis)]
        offset = result.__array_interface__["data"][0] - standin.__array_interface__["data"][0]
        return self._view(result.shape, result.strides, offset)

    def __getitem__(self, index):
        view = self._select(index)
        if view.ndim == 0:  # an element is copied to the host, as numba does
            return view.copy_to_host()[()]
        return view

    def __setitem__(self, index, value):
        self._select(index).copy_to_device(np.asarray(value, dtype=self.dtype))

    @property
    def T(self):
        return self.transpose()

    def transpose(self, axes=None):
        """numba's: the axes in their own order give this array; a 2-D array's transpose is
        a new C-contiguous array computed on the device (numba.cuda.kernels.transpose), so
        writes to it do not reach this array; other arrays cannot be transposed."""
        if axes is not None and tuple(axes) == tuple(range(self.ndim)):
            return self
        if self.ndim != 2:
            raise NotImplementedError("transposing a non-2D DeviceNDArray isn't supported")
        if axes is not None and set(axes) != {0, 1}:
            raise ValueError("invalid axes list %r" % (axes,))
        from .transpose import transpose

        return transpose(self)

    def reshape(self, *newshape, order="C"):
        if len(newshape) == 1 and not isinstance(newshape[0], (int, np.integer)):
            newshape = newshape[0]
        newshape = list(_normalize_shape(newshape))
        if -1 in newshape:
            known = int(np.prod([s for s in newshape if s != -1]))
            newshape[newshape.index(-1)] = self.size // known if known else 0
        if int(np.prod(newshape)) != self.size:
            raise ValueError("cannot reshape a device array of size %d into %s" % (self.size, tuple(newshape)))
        layout = "C" if self.is_c_contiguous() else "F" if self.is_f_contiguous() else None
        if layout is None or (order != layout and self.ndim > 1 and len(newshape) > 1):
            raise NotImplementedError("device arrays reshape only in their own contiguous order")
        return self._view(newshape, _strides_for(newshape, self.dtype.itemsize, order))

    def ravel(self, order="C", stream=0):
        view = self.reshape(self.size, order=order)
        view.stream = stream or self.stream
        return view

    def view(self, dtype):
        dtype = np.dtype(dtype)
        if dtype.itemsize != self.dtype.itemsize:
            raise NotImplementedError("view() keeps the item size")
        return DeviceNDArray(self._arr.view_as(_native_dtype(dtype)), dtype, self.stream)


def _check_basic(index):
    for i in index if isinstance(index, tuple) else (index,):
        if not (i is None or i is Ellipsis or isinstance(i, (slice, int, np.integer))):
            raise IndexError("device arrays take basic indexing only (integers, slices, ..., None), not %s"
                             % type(i).__name__)


# -- creation ------------------------------------------------------------------------------------


def _allocate(dev, dtype, shape):
    """A C-contiguous native array: from cutwin's allocator, or from the memory manager
    when a plugin is installed (memory.py)."""
    native_dtype = _native_dtype(dtype)
    nbytes = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
    if memory._uses_builtin_manager() or nbytes == 0:
        return _cutwin.empty(dev, native_dtype, list(shape))
    mem = memory.current_context().memalloc(nbytes)
    return _cutwin.wrap(dev, mem.device_pointer_value, native_dtype, list(shape),
                        _strides_for(shape, dtype.itemsize, "C"), mem)


def _empty(shape, dtype, order="C", strides=None, stream=0):
    dtype = np.dtype(dtype)
    shape = _normalize_shape(shape)
    dev = runtime._device()
    if strides is None and order == "C":
        return DeviceNDArray(_allocate(dev, dtype, shape), dtype, stream)
    strides = tuple(strides) if strides is not None else _strides_for(shape, dtype.itemsize, order)
    if 0 in shape:
        return DeviceNDArray(_allocate(dev, dtype, shape), dtype, stream)
    high = sum((s - 1) * st for s, st in zip(shape, strides) if st > 0) + dtype.itemsize
    low = sum((s - 1) * st for s, st in zip(shape, strides) if st < 0)
    raw = _allocate(dev, dtype, (-(-(high - low) // dtype.itemsize),))
    return DeviceNDArray(raw.view(list(shape), list(strides), -low), dtype, stream)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialised array on the current device; `stream` is the array's (its CUDA
    Array Interface names it, as numba's does)."""
    return _empty(shape, dtype, order, strides, stream)


def device_array_like(ary, stream=0):
    shape, dtype, order, strides = _like(ary)
    return _empty(shape, dtype, order, strides, stream)


def _interface_stream(stream):
    """The CUDA Array Interface's "stream" of an array on `stream`: its handle, or None for
    the default stream (the consumer need not wait)."""
    return int(stream) or None if isinstance(stream, runtime.Stream) else None


def _is_f(ary):
    return ary.flags.f_contiguous if hasattr(ary, "flags") else ary.is_f_contiguous()


def to_device(obj, stream=0, copy=True, to=None):
    """A copy of a host array on the current device (into `to` if given)."""
    if to is not None:
        to.copy_to_device(obj, stream)
        return to
    if isinstance(obj, DeviceNDArray):
        return obj
    ary = np.asarray(obj)
    if ary.dtype.hasobject:
        raise TypeError("cutwin device arrays hold numbers and records, not %s" % ary.dtype)
    order = "F" if not ary.flags.c_contiguous and ary.flags.f_contiguous else "C"
    dev = _empty(ary.shape, ary.dtype, order)
    if copy:
        dev.copy_to_device(ary)
    if isinstance(obj, np.ndarray):
        dev._writeback = obj
    return dev


class PinnedNDArray(np.ndarray):
    """A NumPy array in page-locked host memory (copies to and from the GPU run at full
    speed). The memory lives as long as the array and its views."""

    def __array_finalize__(self, obj):
        self._memory = getattr(obj, "_memory", None)
        self._stream = getattr(obj, "_stream", 0)


class MappedNDArray(PinnedNDArray):
    """A NumPy array in host memory mapped for kernels: pass it to a kernel and the kernel
    reads and writes it in place (after cuda.synchronize() the host sees the writes). It
    exports the CUDA Array Interface with the device address."""

    @property
    def __cuda_array_interface__(self):
        mem = self._memory
        device = self.ctypes.data - mem.host_pointer.value + mem.device_pointer_value
        return {"shape": self.shape, "strides": None if self.flags.c_contiguous else self.strides,
                "typestr": self.dtype.str, "data": (device, False), "version": 3,
                "stream": _interface_stream(getattr(self, "_stream", 0))}


def _host_array(cls, mem, shape, dtype, strides, order):
    dtype = np.dtype(dtype)
    shape = _normalize_shape(shape)
    nbytes = max(mem.size, 1)
    buffer = (ctypes.c_byte * nbytes).from_address(mem.host_pointer.value)
    a = np.ndarray(shape, dtype, buffer=buffer, strides=strides, order=order).view(cls)
    a._memory = mem
    return a


def _host_bytes(shape, dtype, strides):
    shape = _normalize_shape(shape)
    itemsize = np.dtype(dtype).itemsize
    if strides is None:
        return itemsize * int(np.prod(shape, dtype=np.int64))
    return sum((s - 1) * abs(st) for s, st in zip(shape, strides)) + itemsize if 0 not in shape else 0


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A NumPy array in page-locked host memory (the memory manager's memhostalloc)."""
    mem = memory.current_context().memhostalloc(_host_bytes(shape, dtype, strides))
    return _host_array(PinnedNDArray, mem, shape, dtype, strides, order)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    """A NumPy array in host memory mapped into the device: kernels use it in place."""
    mem = memory.current_context().memhostalloc(_host_bytes(shape, dtype, strides), mapped=True,
                                                portable=portable, wc=wc)
    a = _host_array(MappedNDArray, mem, shape, dtype, strides, order)
    a._stream = stream
    return a


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0, attach_global=True):
    """numba's managed (unified) memory array: a NumPy array the host and kernels both use
    in place. cutwin allocates it as mapped page-locked host memory, which has those
    semantics (kernels reach it over the bus rather than by page migration)."""
    return mapped_array(shape, dtype, strides, order, stream)


def _like(ary):
    """shape, dtype, order and strides of a new contiguous array like `ary` for the *_like
    allocators (numba-cuda's rules): a C or F array's own layout; for other views, strides
    that keep the order of the view's strides (as NumPy's zeros_like does)."""
    c = ary.flags["C_CONTIGUOUS"]
    f = ary.flags["F_CONTIGUOUS"]
    order = "F" if f and not c else "C"
    if c or f or ary.ndim <= 1:
        return ary.shape, ary.dtype, order, None
    strides = [0] * ary.ndim
    step = ary.dtype.itemsize
    for k in sorted(range(ary.ndim), key=lambda k: ary.strides[k]):
        strides[k] = step
        step *= ary.shape[k]
    return ary.shape, ary.dtype, order, tuple(strides)


def pinned_array_like(ary):
    """An empty pinned array with the shape, dtype and layout of `ary`."""
    shape, dtype, order, strides = _like(ary)
    return pinned_array(shape, dtype, strides, order)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    """An empty mapped array with the shape, dtype and layout of `ary`."""
    shape, dtype, order, strides = _like(ary)
    return mapped_array(shape, dtype, strides, order, stream=stream, portable=portable, wc=wc)


@contextlib.contextmanager
def pinned(*arrays):
    """Page-locks the host arrays for the duration of the block (the memory manager's
    mempin), so that copies of them run at full speed."""
    ctx = memory.current_context()
    # Arrays from pinned_array/mapped_array are page-locked already (the driver refuses to
    # register them twice).
    pins = [ctx.mempin(a, a.ctypes.data, a.nbytes) for a in arrays
            if a.nbytes and not isinstance(a, PinnedNDArray)]
    try:
        yield
    finally:
        for p in pins:
            p.free()


@contextlib.contextmanager
def mapped(*arrays, stream=0, portable=False, wc=False):
    """Maps the host arrays into the device for the block; yields device arrays over the
    same memory (one, or a list for several), which kernels read and write in place."""
    ctx = memory.current_context()
    maps, views = [], []
    for a in arrays:
        if isinstance(a, MappedNDArray):  # mapped already: its own device view
            views.append(as_cuda_array(a))
            continue
        a = np.asarray(a)
        m = ctx.mempin(a, a.ctypes.data, max(a.nbytes, 1), mapped=True)
        maps.append(m)
        native = _cutwin.wrap(runtime._device(), m.device_pointer_value, _native_dtype(a.dtype), list(a.shape),
                              list(a.strides), m)
        views.append(DeviceNDArray(native, a.dtype))
    try:
        yield views[0] if len(views) == 1 else views
    finally:
        runtime.synchronize()
        for m in maps:
            m.free()


class IpcArrayHandle:
    """A device array exported to other processes (DeviceNDArray.get_ipc_handle): pickle
    it to another process, which opens it (`with handle as array:` or open()/close())."""

    def __init__(self, ipc_handle, array_desc):
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc

    def open(self):
        """The array, mapped into this process's current device."""
        mem = self._ipc_handle.open(memory.current_context())
        d = self._array_desc
        return _array_at(mem.device_pointer_value, d["shape"], d["dtype"], d["strides"], mem)

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()
        return False


def _array_at(pointer, shape, dtype, strides=None, owner=None):
    dtype = np.dtype(dtype)
    shape = tuple(int(s) for s in shape)
    return from_cuda_array_interface({"shape": shape, "typestr": dtype.str, "data": (int(pointer), False),
                                      "strides": tuple(strides) if strides is not None else None,
                                      "version": 3, "descr": dtype.descr if dtype.names else None},
                                     owner=owner, sync=False)


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """A device array over memory another process exported: `handle` is the IPC handle's
    64 bytes (bytes, or a NumPy array of them), the array starts `offset` bytes into the
    allocation. Unmapped when the with-block ends."""
    dtype = np.dtype(dtype)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)
    raw = handle.tobytes() if isinstance(handle, np.ndarray) else bytes(handle)
    size = int(np.prod(shape)) * dtype.itemsize
    ipch = memory.IpcHandle(None, raw, size, offset=offset)
    mem = ipch.open(memory.current_context())
    try:
        yield _array_at(mem.device_pointer_value, shape, dtype, strides, mem)
    finally:
        ipch.close()


def is_cuda_array(obj):
    """Whether `obj` exports the CUDA Array Interface."""
    return isinstance(obj, DeviceNDArray) or hasattr(obj, "__cuda_array_interface__")


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A device array over the memory a CUDA Array Interface dict describes (no copy);
    `owner` is kept alive with it."""
    shape = tuple(int(s) for s in desc["shape"])
    dtype = np.dtype(desc["typestr"])
    if desc.get("descr") not in (None, [("", desc["typestr"])]) and dtype.names is None:
        dtype = np.dtype(desc["descr"])
    strides = desc.get("strides")
    strides = tuple(int(s) for s in strides) if strides is not None else _strides_for(shape, dtype.itemsize, "C")
    if desc.get("mask") is not None:
        raise NotImplementedError("Masked arrays are not supported")
    if dtype.byteorder not in "=|" or any(dtype.fields[f][0].byteorder not in "=|" for f in dtype.names or ()):
        raise NotImplementedError("Does not support non-native byteorder")  # (numba's words)
    ptr = desc["data"][0] or 0
    stream = desc.get("stream")
    if stream is not None:
        # The producer's stream becomes the array's; its work must be done before this
        # array is used (numba's CUDA_ARRAY_INTERFACE_SYNC, on by default).
        stream = runtime.external_stream(stream)
        if sync and setting("CUDA_ARRAY_INTERFACE_SYNC", 1):
            stream.synchronize()
    native = _cutwin.wrap(runtime._device(), int(ptr), _native_dtype(dtype), list(shape), list(strides), owner)
    return DeviceNDArray(native, dtype, stream if stream is not None else 0)


_DLPACK_DTYPES = {"bfloat16": "bfloat16", "fp8_e5m2": "float8_e5m2", "fp8_e4m3": "float8_e4m3fn",
                  "fp8_e8m0": "float8_e8m0fnu"}  # cutwin's names of ml_dtypes' types


def from_dlpack(obj):
    """A device array over the memory of a DLPack producer (an object with `__dlpack__`, or a
    capsule) on the current device, without a copy: GPU memory on a GPU, host memory on the
    simulator. The producer is kept alive with it."""
    native = _cutwin.from_dlpack(obj, runtime._device())
    name = native.dtype
    if name in _DLPACK_DTYPES:
        import ml_dtypes
        dtype = np.dtype(getattr(ml_dtypes, _DLPACK_DTYPES[name]))
    else:
        dtype = np.dtype(name)
    return DeviceNDArray(native, dtype)


def as_cuda_array(obj, sync=True):
    """A device array sharing the memory of any CUDA Array Interface producer."""
    if isinstance(obj, DeviceNDArray):
        return obj
    if not hasattr(obj, "__cuda_array_interface__"):
        raise TypeError("%r does not export the CUDA Array Interface" % type(obj).__name__)
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj, sync=sync)


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """numba's auto_device: (device array, whether a copy was made) for a device array (as
    it is), an object with the CUDA Array Interface (used in place) or host data (a
    contiguous array, or anything NumPy makes one of, numbers included)."""
    if isinstance(obj, DeviceNDArray):
        return obj, False
    if hasattr(obj, "__cuda_array_interface__") and not isinstance(obj, MappedNDArray):
        return as_cuda_array(obj), False
    ary = np.asarray(obj)
    if not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        raise ValueError("array is not contiguous: copy it (np.ascontiguousarray) before putting it on the device")
    return to_device(ary, stream, copy=copy), True
