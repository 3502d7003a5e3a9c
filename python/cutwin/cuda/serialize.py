"""Pickling kernels, device functions and CUDA ufuncs by value, as numba does: a jit
function travels as its Python function's code, the globals and closure values that code
names, and its options and signatures; unpickling rebuilds the function and compiles it
again where it is first used (in this process or another: multiprocessing, dask). Modules
among the globals travel by name."""
import importlib
import marshal
import types

from .resolve import code_names


class _ModuleByName:
    """A module in a function's globals or closure: imported again by name."""

    def __init__(self, name):
        self.name = name


def _portable(v):
    return _ModuleByName(v.__name__) if isinstance(v, types.ModuleType) else v


def _local(v):
    return importlib.import_module(v.name) if isinstance(v, _ModuleByName) else v


def function_state(fn):
    """What rebuilds the Python function `fn` (picklable where its globals' values are)."""
    code = fn.__code__
    globs = {n: _portable(fn.__globals__[n]) for n in sorted(code_names(code)) if n in fn.__globals__}
    cells = tuple(_portable(c.cell_contents) for c in fn.__closure__ or ())
    return (marshal.dumps(code), fn.__name__, fn.__qualname__, fn.__module__, globs, fn.__defaults__, cells,
            fn.__kwdefaults__)


def rebuild_function(state):
    code_bytes, name, qualname, module, globs, defaults, cells, kwdefaults = state
    code = marshal.loads(code_bytes)
    g = {k: _local(v) for k, v in globs.items()}
    g["__name__"] = module
    g["__builtins__"] = __builtins__
    closure = tuple(types.CellType(_local(v)) for v in cells) or None
    fn = types.FunctionType(code, g, name, defaults, closure)
    fn.__qualname__ = qualname
    fn.__module__ = module
    fn.__kwdefaults__ = kwdefaults
    return fn
