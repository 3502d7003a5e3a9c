"""numba.cuda.extending as cutwin has it. numba's extension API registers typing and
lowering hooks written against numba's compiler internals (its data models, type
inference templates and LLVM IR builder); cutwin's compiler is C++ and runs none of them.
The registration functions here accept such hooks, so that modules defining extensions
import and their other kernels run; a kernel that uses an extended type or function fails
to compile, naming it (`extension_reason`)."""
import functools

_extended = {}  # id(obj) -> (obj, the hooks registered for it), for compile errors


def _note(obj, how):
    entry = _extended.get(id(obj))
    if entry is None or entry[0] is not obj:
        entry = _extended[id(obj)] = (obj, [])
    if how not in entry[1]:
        entry[1].append(how)


def extension_reason(obj):
    """Why a kernel cannot use `obj`, if numba's extension API registered it; else None."""
    entry = _extended.get(id(obj))
    if entry is None or entry[0] is not obj:
        return None
    return ("%s is a numba extension (%s); cutwin compiles kernels in C++ and cannot run numba's "
            "typing and lowering hooks" % (getattr(obj, "__name__", repr(obj)), ", ".join(entry[1])))


@functools.singledispatch
def typeof_impl(val, c):
    """numba's typeof registry: registering a class notes it as an extension type."""
    raise ValueError("no numba type for %r" % (val,))


_register_typeof = typeof_impl.register


def _typeof_register(cls, func=None):
    _note(cls, "typeof_impl.register")
    return _register_typeof(cls, func) if func is not None else _register_typeof(cls)


typeof_impl.register = _typeof_register


def type_callable(func):
    _note(func, "type_callable")
    return lambda typer: typer


def register_model(fe_type_class):
    _note(fe_type_class, "register_model")
    return lambda model: model


def make_attribute_wrapper(typeclass, struct_attr, python_attr):
    _note(typeclass, "make_attribute_wrapper")


class _Model:
    def __init__(self, dmm, fe_type, members=None):
        self.fe_type, self.members = fe_type, members


class core_models:  # noqa: N801 - numba's module name
    """numba.cuda.datamodel.models: the base classes extension models derive from."""
    DataModel = StructModel = PrimitiveModel = OpaqueModel = _Model


models = core_models
