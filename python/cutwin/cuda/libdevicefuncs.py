"""numba.cuda.libdevicefuncs: the libdevice functions kernels can call, as numba-cuda lists
them: `functions` maps `__nv_<name>` to (return type, [arg(name, ty, is_ptr), ...]), and
`create_signature` gives the signature kernels call it with (pointer parameters become
extra results). Read from the toolkit's libdevice when first used."""
from collections import namedtuple

from .. import types as ct

arg = namedtuple("arg", ("name", "ty", "is_ptr"))

_functions = None


def _load():
    global _functions
    if _functions is None:
        from .. import _cutwin

        _functions = {}
        for name, ret, params in _cutwin.libdevice_functions():
            args = [arg(name="a%d" % k, ty=getattr(ct, ty), is_ptr=out) for k, (ty, out) in enumerate(params)]
            _functions["__nv_" + name] = (getattr(ct, ret), args)
    return _functions


def create_signature(retty, args):
    """The signature of `cuda.libdevice.<name>`: results (the value, then what pointer
    parameters receive; a tuple of several) of the other parameters."""
    results = [a.ty for a in args if a.is_ptr]
    if retty != ct.void:
        results.insert(0, retty)
    ret = ct.Tuple(results) if len(results) > 1 else results[0]
    return ct.Signature(ret, [a.ty for a in args if not a.is_ptr])


def __getattr__(name):
    if name == "functions":
        return _load()
    raise AttributeError(name)
