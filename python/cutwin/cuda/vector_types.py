"""numba.cuda.vector_types: numba-cuda's vector types by name (`vector_types["float32x4"]`),
each with its element type (`base_type`), its element count and field names, and the
constructor kernels call (`user_facing_object`: `cuda.float32x4`). Kernels build vectors
with the constructors and read their fields (`v.x`); docs/language.md."""
import sys

from .. import types as ct

_ELEMENTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
_FIELDS = ("x", "y", "z", "w")
# CUDA's names of the element types (C's, as numba-cuda maps them); the compiler's table is
# frontend/builtins/vector_types.cpp.
_ALIASES = {"char": "int8", "short": "int16", "int": "int32", "long": "int64", "longlong": "int64",
            "uchar": "uint8", "ushort": "uint16", "uint": "uint32", "ulong": "uint64", "ulonglong": "uint64",
            "float": "float32", "double": "float64"}


class VectorType:
    """A vector type: `name` ("float32x4"), `base_type`, `num_elements`, `attr_names` and the
    constructor kernels call."""

    def __init__(self, name, base_type, num_elements, user_facing_object):
        self.name = name
        self.base_type = base_type
        self.num_elements = num_elements
        self.attr_names = _FIELDS[:num_elements]
        self.user_facing_object = user_facing_object

    def __repr__(self):
        return "<vector type %s>" % self.name


def _vector_types():
    """The types by name; `cuda.double4` becomes the same object as `cuda.float64x4` (a
    constructor's `aliases` lists its other names), as in numba-cuda."""
    cuda = sys.modules["cutwin.cuda"]
    out = {}
    for element in _ELEMENTS:
        for n in range(1, 5):
            name = "%sx%d" % (element, n)
            constructor = getattr(cuda, name)
            constructor.aliases = ["%s%d" % (a, n) for a, e in _ALIASES.items() if e == element]
            for alias in constructor.aliases:
                setattr(cuda, alias, constructor)
            out[name] = VectorType(name, getattr(ct, element), n, constructor)
    return out


vector_types = _vector_types()
