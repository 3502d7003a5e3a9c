"""Host values kernels take as constants: numbers, strings, tuples of them, NumPy arrays
(frozen into the kernel's constant memory when it compiles) and device arrays (captured by
address), as numba takes a kernel's globals and default arguments."""
import numpy as np

from ..types import record_spelling
from .devicearray import DeviceNDArray, as_cuda_array

_CONST_ARRAY_DTYPES = frozenset(
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128".split())


_captured = {}  # id -> device array kernels captured by address (kept alive with the process)


def enum_member(member, value):
    """An enum member for the compiler: `value` (its value, converted) with its class, which
    is part of its type as in numba: members of different classes are never `is` each other,
    and a plain Enum's member equals only its own class's members."""
    cls = type(member)
    return {"enum": "%s:%s" % (cls.__module__, cls.__qualname__), "int": isinstance(member, int), "value": value}


def host_constant(v):
    """A global's value as the compiler takes it, or None if it is not a constant."""
    for base in (bool, int, float, str):  # (bool first: it is an int)
        if isinstance(v, base):
            # its plain value (a subclass's too, e.g. the int members of cuda.bindings' FastEnum)
            return base(v)
    if isinstance(v, (np.bool_, np.integer, np.floating)):
        # numba types a NumPy scalar by its dtype: np.float32(0.5) stays float32.
        return {"scalar": v.item(), "dtype": v.dtype.name}
    if isinstance(v, tuple):
        # Tuples of numbers, strings, arrays and tuples of them (numba's literal_unroll
        # iterates such heterogeneous tuples); NumPy scalars in a tuple are Python numbers.
        items = [x.item() if isinstance(x, np.generic) else host_constant(x) for x in v]
        if any(x is None or (isinstance(x, dict) and "scalar" in x) for x in items):
            return None
        return tuple(items)
    if isinstance(v, DeviceNDArray) or (hasattr(v, "__cuda_array_interface__") and not isinstance(v, np.ndarray)):
        # A device array in a kernel's globals (cutwin's, or any object with the CUDA Array
        # Interface) is captured by address, as numba captures it: the kernel reads and
        # writes that memory (kept alive by the dispatcher).
        d = v if isinstance(v, DeviceNDArray) else as_cuda_array(v)
        if d.ndim <= 32 and d.dtype.name in _CONST_ARRAY_DTYPES:
            _captured[id(v)] = v
            return {"device_pointer": d._arr.device_pointer, "dtype": d.dtype.name, "shape": list(d.shape),
                    "strides": list(d.strides)}
    if isinstance(v, np.ndarray) and v.ndim <= 32 and (v.dtype.name in _CONST_ARRAY_DTYPES or v.dtype.names):
        # Global arrays are frozen into the kernel's constant memory when it compiles,
        # as numba does: later changes to the host array do not reach compiled kernels.
        # Arrays of records travel as their bytes, with numba's spelling of the record.
        a = np.require(v, requirements="C")  # (ascontiguousarray makes a 0-d array 1-d)
        if a.dtype.names:
            try:
                dtype = record_spelling(a.dtype)
            except TypeError:
                return None  # fields kernels cannot hold: the name is host-only, with a reason
            return {"dtype": dtype, "shape": a.shape, "data": a.tobytes()}
        return {"dtype": a.dtype.name, "shape": a.shape, "data": a.tobytes()}
    return None
