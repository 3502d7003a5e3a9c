"""numba's type objects, as far as kernels and signatures use them: scalar types
(`float32`, `int64`, ...), array types (`float32[:, ::1]`), signatures
(`void(float32[:], int32)`) and `void`. `str()` gives numba's signature text, which is
what the C++ frontend reads. Called with a value in host code, a scalar type converts it
like the NumPy scalar type of the same name (`float32(1.5)`)."""
import re

import numpy as np

__all__ = []  # filled below: every type name


class Type:
    """A numba type, known by its canonical name."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    def __repr__(self):
        return self.name

    def __eq__(self, other):
        if isinstance(other, Type):
            return str(self) == str(other)
        # numba's type objects: equal where they name the same type (numba.cuda.types.none
        # is void, float32[::1] the array type)
        from .cuda.signatures import is_numba_type, type_text

        return is_numba_type(other) and type_text(other) == str(self)

    def __hash__(self):
        return hash(str(self))

    def __call__(self, *args):
        if args and all(isinstance(a, (Type, str)) for a in args) or not args:
            return Signature(self, args)
        raise TypeError("%s(...) takes types (a signature) or one value to convert" % self.name)


class Scalar(Type):
    """int8 ... uint64, float32, float64, complex64, complex128, boolean."""

    @property
    def dtype(self):
        if self.name == "bfloat16":  # NumPy has none: ml_dtypes' (numba-cuda's too)
            try:
                import ml_dtypes
            except ImportError:
                raise TypeError("bfloat16 arrays and host values need the ml_dtypes package") from None
            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype("bool" if self.name == "boolean" else self.name)

    def __call__(self, *args):
        if len(args) == 1 and not isinstance(args[0], (Type, str)):
            return self.dtype.type(args[0])
        return Type.__call__(self, *args)

    def __getitem__(self, index):
        index = index if isinstance(index, tuple) else (index,)
        if not all(isinstance(s, slice) and s.start is None and s.stop is None for s in index):
            raise TypeError("array types are written with slices only: float32[:], float32[:, ::1]")
        steps = [s.step for s in index]
        if any(step not in (None, 1) for step in steps):
            raise TypeError("an array type's slice step must be empty or 1 (C layout)")
        layout = "C" if steps[-1] == 1 and all(s is None for s in steps[:-1]) else "A"
        if layout == "A" and len(steps) > 1 and steps[0] == 1 and all(s is None for s in steps[1:]):
            layout = "F"
        if layout == "A" and any(s == 1 for s in steps):
            raise TypeError("only the first or the last dimension can be marked contiguous (::1)")
        return Array(self, len(index), layout)


class _RecordType(Type):
    """A record type known by numba's spelling of it (read from signature text)."""

    __getitem__ = Scalar.__getitem__  # array types: rec[:]

    @property
    def itemsize(self):
        return int(self.name.rsplit(";", 2)[1])


class Record(_RecordType):
    """numba's Record: a NumPy structured dtype as a kernel type, named by numba's spelling
    (`Record(a[type=float64;offset=0],b[type=int32;offset=8];16;True)`). Fields are numbers,
    nested arrays of them, or records. `Record(dtype)[:]` is an array type, as with scalars."""

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)
        Type.__init__(self, record_spelling(self.dtype))


def record_spelling(dtype):
    """numba's spelling of a structured dtype's record type; TypeError for fields kernels
    cannot hold (strings, bytes, dates, objects)."""
    dtype = np.dtype(dtype)
    if is_string_dtype(dtype):  # NumPy's fixed-length strings: a record of their code units
        count = dtype.itemsize // (4 if dtype.kind == "U" else 1)
        field, unit = ("__unichr__", "uint32") if dtype.kind == "U" else ("__char__", "uint8")
        return "Record(%s[type=nestedarray(%s, (%d,));offset=0];%d;False)" % (field, unit, count, dtype.itemsize)
    fields = []
    for name in dtype.names:
        ftype, offset = dtype.fields[name][:2]
        fields.append("%s[type=%s;offset=%d]" % (name, _field_spelling(ftype, name), offset))
    return "Record(%s;%d;%s)" % (",".join(fields), dtype.itemsize, bool(dtype.isalignedstruct))


def is_string_dtype(dtype):
    """NumPy's fixed-length str ('U') and bytes ('S') dtypes, which kernels store
    constant strings into (numba's UnicodeCharSeq and CharSeq)."""
    return dtype.kind in "US" and dtype.itemsize > 0 and dtype.byteorder in "=<|"


def _field_spelling(ftype, name):
    if is_string_dtype(ftype):
        return record_spelling(ftype)
    if ftype.subdtype is not None:
        base, shape = ftype.subdtype
        return "nestedarray(%s, %s)" % (_field_spelling(base, name), tuple(shape))
    if ftype.names:
        return record_spelling(ftype)
    if ftype.kind in "biufc" and ftype.name in _SCALAR_NAMES:
        return "bool" if ftype.kind == "b" else ftype.name
    if ftype.kind == "V" and ftype.name == "bfloat16":
        return "bfloat16"
    raise TypeError("record field '%s' has dtype %s; cutwin's records hold numbers, nested arrays and records"
                    % (name, ftype))


_SCALAR_NAMES = frozenset("bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 "
                          "complex64 complex128".split())


class Array(Type):
    """An array type: element type, dimensions, layout 'C' or 'F' (contiguous) or 'A' (any)."""

    def __init__(self, dtype, ndim, layout="A"):
        self.dtype, self.ndim, self.layout = dtype, ndim, layout
        dims = [":"] * ndim
        if layout == "C":
            dims[-1] = "::1"
        elif layout == "F":
            dims[0] = "::1"
        Type.__init__(self, "%s[%s]" % (dtype, ", ".join(dims)))


class CPointer(Type):
    """numba's `CPointer(dtype)`: a raw pointer argument, given an address (an int, e.g.
    from `__cuda_array_interface__["data"][0]`) and indexed like a C pointer."""

    def __init__(self, dtype):
        if not isinstance(dtype, Scalar):
            raise TypeError("CPointer() takes a scalar type, e.g. CPointer(uint8)")
        self.dtype = dtype
        Type.__init__(self, "CPointer(%s)" % dtype)


class Tuple(Type):
    """numba's `Tuple(int64, float32)` (also `Tuple((int64, float32))`): a tuple type."""

    def __init__(self, *types):
        if len(types) == 1 and isinstance(types[0], (tuple, list)):
            types = tuple(types[0])
        if not all(isinstance(t, Type) for t in types):
            raise TypeError("Tuple() takes types")
        self.types = tuple(types)
        if self.types and all(t == self.types[0] for t in self.types):
            Type.__init__(self, "UniTuple(%s, %d)" % (self.types[0], len(self.types)))
        else:
            Type.__init__(self, "Tuple(%s)" % ", ".join(str(t) for t in self.types))

    def __len__(self):
        return len(self.types)

    def __iter__(self):
        return iter(self.types)

    def __getitem__(self, k):
        return self.types[k]


def UniTuple(dtype, count):
    """numba's `UniTuple(int64, 2)`: `count` elements of one type."""
    if not isinstance(count, int) or count < 0:
        raise TypeError("UniTuple() takes a type and a count")
    return Tuple(*([dtype] * count))


class Signature:
    """`ret(args...)`: numba's signature object; str() is its text."""

    def __init__(self, return_type, args):
        self.return_type, self.args = return_type, tuple(args)

    def __str__(self):
        args = ", ".join(str(a) for a in self.args)
        if self.return_type is None:  # a bare tuple: one element needs its comma
            return "(%s,)" % args if len(self.args) == 1 else "(%s)" % args
        return "%s(%s)" % (self.return_type, args)

    __repr__ = __str__


void = Type("void")
none = void
boolean = Scalar("boolean")
bool_ = b1 = boolean
int8, int16, int32, int64 = (Scalar("int%d" % b) for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (Scalar("uint%d" % b) for b in (8, 16, 32, 64))
float32, float64 = Scalar("float32"), Scalar("float64")
complex64, complex128 = Scalar("complex64"), Scalar("complex128")
c8, c16 = complex64, complex128
i1, i2, i4, i8 = int8, int16, int32, int64
u1, u2, u4, u8 = uint8, uint16, uint32, uint64
f4, f8 = float32, float64
byte, short, intc, intp, int_, long_ = int8, int16, int32, int64, int64, int64
uintc, uintp, uint = uint32, uint64, uint64
single, double = float32, float64
float_ = float32  # numba's alias (NumPy's float_ is float64)
ubyte, ushort, ulong, longlong, ulonglong = uint8, uint16, uint64, int64, uint64
# Half precision: float16, and bfloat16 (numba-cuda's __nv_bfloat16; on the host ml_dtypes').
float16 = half = f2 = Scalar("float16")
bfloat16 = Scalar("bfloat16")

__all__ = [n for n, v in list(globals().items()) if isinstance(v, Type)] + ["CPointer", "Tuple", "UniTuple",
                                                                           "Record"]


def numpy_dtype(name):
    """The NumPy dtype of a kernel element type's name ("float32", "bfloat16": ml_dtypes')."""
    return bfloat16.dtype if name == "bfloat16" else np.dtype(name)


def parse_signature(text):
    """A signature from numba's text form ("void(float32[:], int32)", or a bare argument
    tuple "(float32[:], int32)"): the text is a Python expression over the type names."""
    names = {n: globals()[n] for n in __all__}
    names["__builtins__"] = {}
    names["datetime64"], names["timedelta64"] = datetime64, timedelta64
    text = _name_records(text, names)
    text = re.sub(r"\b(datetime64|timedelta64)\[(\w+)\]", r'\1["\2"]', text)  # the unit as a string
    try:
        sig = eval(text, names)  # noqa: S307 - only type names are in scope
    except Exception as e:
        raise TypeError("invalid signature %r: %s" % (text, e)) from None
    if isinstance(sig, tuple):
        return Signature(None, sig)
    if isinstance(sig, Signature):
        return sig
    raise TypeError("invalid signature %r" % text)


def _name_records(text, names):
    """`text` with each `Record(...)` spelling replaced by a name bound in `names` to its type
    (the spelling is not a Python expression)."""
    out, pos = [], 0
    while True:
        at = text.find("Record(", pos)
        if at < 0:
            return "".join(out) + text[pos:]
        depth, end = 0, at
        for end in range(at + len("Record"), len(text)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
        name = "_record%d" % len(names)
        names[name] = _RecordType(text[at:end + 1])
        out.append(text[pos:at] + name)
        pos = end + 1


TIME_UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns")


class _TimeKind:
    """`datetime64` / `timedelta64`: subscripted by a unit (`datetime64["D"]`, in signature
    text `datetime64[D]`), the type of that unit."""

    def __init__(self, kind):
        self.kind = kind

    def __getitem__(self, unit):
        if unit not in TIME_UNITS:
            raise TypeError("%s takes a unit among %s, not %r" % (self.kind, ", ".join(TIME_UNITS), unit))
        return Scalar("%s[%s]" % (self.kind, unit))

    def __repr__(self):
        return self.kind


datetime64, timedelta64 = _TimeKind("datetime64"), _TimeKind("timedelta64")


def from_dtype(dtype):
    """The type of a NumPy dtype: a scalar type, or a Record for a structured dtype."""
    dtype = np.dtype(dtype)
    if dtype.names or is_string_dtype(dtype):
        return Record(dtype)
    if dtype.kind in "mM":  # datetime64[D], timedelta64[ns], ...
        unit = np.datetime_data(dtype)[0]
        if unit not in TIME_UNITS:
            raise TypeError("kernels take datetime64 and timedelta64 in the units %s, not %s"
                            % (", ".join(TIME_UNITS), dtype))
        return Scalar(dtype.name)
    return boolean if dtype == np.bool_ else globals()[dtype.name]


def typeof(value):
    """The type numba gives a kernel argument: arrays by dtype, dimensions and layout,
    Python ints int64, floats float64, bools boolean, NumPy scalars their dtype."""
    if isinstance(value, bool):
        return boolean
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return float64
    if isinstance(value, complex):
        return complex128
    if isinstance(value, np.generic):
        return from_dtype(value.dtype)
    shape = getattr(value, "shape", None)
    if shape is not None:
        layout = "C" if _is_c_contiguous(value) else "F" if len(shape) > 1 and _is_f_contiguous(value) else "A"
        return Array(from_dtype(value.dtype), len(shape), layout)
    raise TypeError("cutwin cannot pass a %s to a kernel" % type(value).__name__)


def _is_f_contiguous(a):
    flags = getattr(a, "flags", None)
    if flags is not None and hasattr(flags, "f_contiguous"):
        return flags.f_contiguous
    return a.is_f_contiguous()


def _is_c_contiguous(a):
    flags = getattr(a, "flags", None)
    if flags is not None and hasattr(flags, "c_contiguous"):
        return flags.c_contiguous
    return a.is_c_contiguous()


def as_dtype(t):
    """The NumPy dtype of a scalar type."""
    return t.dtype
