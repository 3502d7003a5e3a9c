"""Signatures and types in any of numba's spellings (text, cutwin's or numba's type and
Signature objects, NumPy dtypes and scalar classes, tuples of argument types) as numba
signature text, the form cutwin's compiler reads, and as cutwin's Signature objects."""
import numpy as np

from .. import types as ct


def type_text(v):
    """numba signature text of a type object - cutwin's, numba's (numba.core.types or
    numba.cuda.types), a NumPy dtype or scalar class - or None if `v` is not a type kernels
    can use."""
    if isinstance(v, ct.Type):
        return str(v)
    try:
        if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
            return str(ct.from_dtype(v))
    except (KeyError, TypeError):
        return None
    return _numba_type_text(v)


def is_numba_type(v):
    return type(v).__module__.startswith(("numba.core.types", "numba.cuda.types", "numba.types")) or any(
        c.__module__.startswith(("numba.core.types", "numba.cuda.types")) and c.__name__ == "Type"
        for c in type(v).__mro__)


def _numba_type_text(v):
    if not is_numba_type(v):
        return None
    cls = type(v).__name__
    name = getattr(v, "name", None)
    if cls in ("Integer", "Float", "Complex", "Boolean", "BooleanLiteral", "IntegerLiteral"):
        base = name if cls in ("Integer", "Float", "Complex", "Boolean") else str(getattr(v, "literal_type", name))
        if base == "bool":
            base = "boolean"
        return base if hasattr(ct, base) else None
    if cls == "Bfloat16":  # numba-cuda's __nv_bfloat16
        return "bfloat16"
    if cls in ("NPDatetime", "NPTimedelta"):  # datetime64[D], timedelta64[ns], ...
        return str(v)
    if cls == "NoneType" or name in ("none", "void"):
        return "void"
    if cls == "Record":  # numba's spelling is cutwin's (the compiler reads and checks it)
        return str(v)
    if cls == "CPointer":
        inner = _numba_type_text(v.dtype)
        return "CPointer(%s)" % inner if inner else None
    if cls == "Array" and hasattr(v, "ndim"):
        inner = _numba_type_text(v.dtype)
        if inner is None:
            return None
        dims = [":"] * v.ndim
        if v.layout == "C":
            dims[-1] = "::1"
        elif v.layout == "F":
            dims[0] = "::1"
        return "%s[%s]" % (inner, ", ".join(dims))
    return None


def signature_text(sig):
    """numba signature text of a signature: a string, cutwin's or numba's Signature object,
    or a tuple of argument types."""
    if isinstance(sig, str):
        return sig
    if isinstance(sig, ct.Signature):
        return str(sig)
    if isinstance(sig, (tuple, list)):
        args = [_required_type_text(a) for a in sig]
        return "(%s,)" % args[0] if len(args) == 1 else "(%s)" % ", ".join(args)
    if hasattr(sig, "args") and hasattr(sig, "return_type"):
        args = ", ".join(_required_type_text(a) for a in sig.args)
        return "%s(%s)" % (_required_type_text(sig.return_type), args)
    raise TypeError("not a signature: %r" % (sig,))


def is_signature(sig):
    """A signature in any of numba's spellings: text, a Signature object (cutwin's or
    numba's), or a tuple of argument types (not a list of signatures)."""
    if isinstance(sig, (str, ct.Signature)):
        return True
    if isinstance(sig, tuple):
        return all(type_text(t) is not None for t in sig)
    return hasattr(sig, "args") and hasattr(sig, "return_type") and not callable(sig)


def as_signature(sig):
    """cutwin's Signature object of a signature in any of numba's spellings."""
    if isinstance(sig, ct.Signature):
        return sig
    return ct.parse_signature(signature_text(sig))


def _required_type_text(t):
    text = type_text(t)
    if text is None:
        raise TypeError("cutwin does not support the type %s in signatures" % (t,))
    return text


def compile_signature_text(sig):
    """numba signature text of `sig` for compiling one function, in any of numba's
    spellings (text, Signature objects of cutwin or numba, a tuple of argument types, one
    argument type); without a return type, the argument list alone."""
    if type_text(sig) is not None and not isinstance(sig, (str, tuple)):
        sig = (sig,)  # one argument type, as numba also takes
    sig = as_signature(sig)
    if sig.return_type is None:
        return "(%s)" % "".join("%s, " % a for a in sig.args)
    return str(sig)
