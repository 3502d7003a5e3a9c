"""Resolution by value: what each free name of a kernel or device function IS in the
running program, read from the live function object (its globals, closure cells and
builtins), as numba does. The compiler gets each function's own source (for its body and
locations) and, per name, a binding: a module, a module member (`math.sin`,
`cuda.atomic.add`), a constant, a type, another jit function (compiled from its own file,
wherever it is defined), a foreign function, an exception class, or a reason the name is
host-only. Import statements play no part: `from helpers import cuda`, star imports,
conditional imports, closures and functions from other modules all work.
"""
import ast
import builtins
import collections
import collections.abc
import dis
import enum
import inspect
import itertools
import linecache
import sys
import textwrap
import types as pytypes

from ..errors import CompileError
from .extending import extension_reason
from .foreign import ForeignFunction
from .host_values import enum_member, host_constant
from .signatures import is_numba_type, type_text

# Modules whose members kernels may use, indexed by object identity (first wins).
_MEMBER_MODULES = ("cutwin.cuda", "cutwin.cuda.random", "cutwin.cuda.libdevice", "cutwin.cuda.fp16", "cutwin.cuda.bf16",
                   "cutwin.cuda.fp8",
                   "math",
                   "cmath", "numpy", "operator", "pdb")
_member_index = None


def _members():
    global _member_index
    if _member_index is None:
        index = {}
        for name in _MEMBER_MODULES:
            mod = sys.modules.get(name) or __import__(name, fromlist=["_"])
            for attr in dir(mod):
                if attr.startswith("_") and attr not in getattr(mod, "__all__", ()):  # cuda.fp16.__hadd
                    continue
                v = getattr(mod, attr, None)
                if callable(v) or isinstance(v, type):
                    index.setdefault(id(v), (v, name, [attr]))
        _member_index = index
    return _member_index


# Modules the compiler knows the members of itself (see frontend/sema/builtins.cpp).
_KNOWN_PREFIXES = ("math", "cmath", "numpy", "numba", "cutwin", "operator", "pdb")


def module_path(mod):
    """The import path the compiler knows a module by."""
    return mod.__name__


def code_names(code):
    """Every name a function's code uses as a global or an attribute (nested code too)."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, pytypes.CodeType):
            names |= code_names(c)
    return names


def global_names(code):
    """Names a function's code reads as globals (LOAD_GLOBAL / LOAD_NAME), including
    those of nested code objects (comprehensions)."""
    names = set()
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            names.add(ins.argval)
    for c in code.co_consts:
        if isinstance(c, pytypes.CodeType):
            names |= global_names(c)
    return names


def free_values(fn):
    """name -> live value of every free name `fn` uses: closure cells and globals (builtins
    only where the program rebinds them; the compiler knows Python's own)."""
    values = {}
    code = fn.__code__
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            values[name] = cell.cell_contents
        except ValueError:
            values[name] = _Unassigned(name)
    g = fn.__globals__
    b = g.get("__builtins__", builtins)
    b = b.__dict__ if isinstance(b, pytypes.ModuleType) else b
    for name in global_names(code):
        if name in values:
            continue
        if name in g:
            values[name] = g[name]
        elif name in b and b[name] is not getattr(builtins, name, None):
            values[name] = b[name]
    return values


class _Unassigned:
    def __init__(self, name):
        self.name = name


# ---- values --------------------------------------------------------------------------------------

def _is_exception_class(v):
    return isinstance(v, type) and issubclass(v, BaseException)


def binding(name, v, unit_of, attrs=frozenset(), depth=0):
    """The compiler's binding of `name` (value `v`); `unit_of(fn_like)` returns the id of
    the function unit of a jit function, or None if it is not one. `attrs` are the
    attribute names the function uses: a module's members among them go along (the
    compiler takes them for modules it does not know itself)."""
    if isinstance(v, _Unassigned):
        return {"kind": "host", "text": "free variable '%s' is used before it is assigned" % name}
    if isinstance(v, pytypes.ModuleType):
        b = {"kind": "module", "path": module_path(v)}
        if depth < 4 and not module_path(v).startswith(_KNOWN_PREFIXES):
            b["members"] = {a: binding("%s.%s" % (name, a), getattr(v, a), unit_of, attrs, depth + 1)
                            for a in sorted(attrs) if not a.startswith("__") and hasattr(v, a)}
        return b
    if isinstance(v, ForeignFunction):
        return {"kind": "foreign", "foreign_name": v.name, "text": str(v.sig), "link": list(v.link), "abi": v.abi}
    uid = unit_of(v)
    if uid is not None:
        return {"kind": "function", "text": uid}
    if isinstance(v, enum.Enum):  # a member: its value, typed with its class
        c = host_constant(v.value)
        if c is not None:
            return {"kind": "constant", "value": enum_member(v, c)}
    if isinstance(v, type) and (issubclass(v, enum.Enum) or (issubclass(v, int) and isinstance(
            getattr(v, "__members__", None), collections.abc.Mapping))):
        # the class: its members by name (also int enums of other kinds: cuda.bindings' FastEnum)
        return {"kind": "module", "path": "enum %s" % v.__qualname__,
                "members": {m: binding("%s.%s" % (name, m), getattr(v, m), unit_of) for m in v.__members__}}
    c = host_constant(v)
    if c is not None:
        return {"kind": "constant", "value": c}
    t = type_text(v)
    if t is not None:
        return {"kind": "type", "text": t}
    if _is_exception_class(v):
        return {"kind": "exception", "text": v.__name__}
    kernel_only = getattr(type(v), "__name__", "") == "_KernelOnly" and hasattr(v, "_name")
    if kernel_only:
        return {"kind": "member", "path": "cutwin.cuda", "attrs": v._name.split(".")}
    if (isinstance(v, pytypes.FunctionType) and v.__name__ in ("carray", "farray")
            and getattr(v, "__module__", "") in ("numba.np.numpy_support", "numba.cuda.np.numpy_support")):
        return {"kind": "member", "path": "cutwin.cuda", "attrs": [v.__name__]}  # numba's, as cutwin's
    hit = _members().get(id(v))
    if hit is not None and hit[0] is v:
        return {"kind": "member", "path": hit[1], "attrs": list(hit[2])}
    if type(v).__name__ == "FFI" and type(v).__module__.startswith("cffi"):  # ffi.from_buffer in kernels
        return {"kind": "module", "path": "cffi.FFI"}
    if type(v).__name__ == "CPUDispatcher" and not getattr(v, "_can_compile", True):
        # numba's: an explicit signature compiles the function for the CPU only
        return {"kind": "host", "text": "Untyped global name '%s': using cpu function on device, but its "
                                        "signature is explicit, which compiles it for the CPU only "
                                        "(numba.jit without a signature compiles it for kernels too)" % name}
    reason = extension_reason(v) or extension_reason(type(v))
    if reason is not None:
        return {"kind": "host", "text": "'%s': %s" % (name, reason)}
    if is_numba_type(v):
        return {"kind": "host", "text": "'%s' is the numba type %s, which cutwin does not support in kernels yet"
                % (name, v)}
    if isinstance(v, pytypes.FunctionType):
        return {"kind": "host", "text": "'%s' is a plain Python function; decorate it with "
                                        "@cuda.jit(device=True) to call it from a kernel" % name}
    # numba's words ("Untyped global name"), for code and people that look for them
    return {"kind": "host", "text": "Untyped global name '%s': it is a %s object, which kernels cannot use" % (
        name, type(v).__name__)}


# ---- source ----------------------------------------------------------------------------------------

# Source text given to exec()/compile() under a generated name ("<string>"), the latest
# first: Python keeps no copy, and a kernel defined by exec'ing a string is compiled from
# it. An audit hook (PEP 578) sees each compilation; only texts that define functions are
# kept, a bounded number of them.
_exec_sources = collections.deque(maxlen=1024)


def _remember_compiled_source(event, args):
    if event != "compile" or not args or not isinstance(args[1], str) or not args[1].startswith("<"):
        return
    src = args[0]
    if isinstance(src, (bytes, bytearray)):
        if b"def " not in src and b"lambda" not in src:
            return
        try:
            src = bytes(src).decode("utf-8")
        except UnicodeDecodeError:
            return
    elif not isinstance(src, str) or ("def " not in src and "lambda" not in src):
        return
    _exec_sources.appendleft((args[1], src))


sys.addaudithook(_remember_compiled_source)


def _code_objects(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, pytypes.CodeType):
            yield from _code_objects(c)


def _fingerprint(code):
    """What identifies a function's code: bytecode, names and constants (those of nested
    code objects too). Bytecode alone is not enough: texts made from one template (an
    `exec` per operator) differ only in the names they use."""
    consts = tuple(_fingerprint(c) if isinstance(c, pytypes.CodeType) else (type(c).__name__, repr(c))
                   for c in code.co_consts)
    return (code.co_name, code.co_firstlineno, code.co_code, code.co_names, code.co_varnames,
            code.co_freevars, consts)


def _exec_source_lines(code):
    """The lines of the exec'd text that compiled `code` (the same code at the same place),
    or []."""
    want = _fingerprint(code)
    for filename, src in list(_exec_sources):
        if filename != code.co_filename:
            continue
        try:
            top = compile(src, filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        for c in _code_objects(top):
            if c.co_name == code.co_name and _fingerprint(c) == want:
                return src.splitlines(True)
    return []


def _source_lines(fn):
    """The lines of the file (or cell, or `python -c` text, or exec'd string) `fn` was
    defined in."""
    code = fn.__code__
    filename = code.co_filename
    lines = linecache.getlines(filename, fn.__globals__)
    if not lines and filename.startswith("<"):
        lines = _exec_source_lines(code)
    if not lines and filename == "<string>" and "-c" in getattr(sys, "orig_argv", ()):
        argv = sys.orig_argv
        lines = (argv[argv.index("-c") + 1] + "\n").splitlines(True)
    if not lines:
        raise CompileError(
            "cannot read the source of '%s' (%s): cutwin compiles kernels from their Python source; define "
            "the function in a file, exec its source after importing cutwin, or register generated source with "
            "linecache (linecache.cache[filename] = (len(text), None, text.splitlines(True), filename))"
            % (fn.__qualname__, filename))
    return lines


def function_source(fn):
    """(text, filename, name): text that defines `fn` with its `def` at its own line and
    columns (the lines before it blank), without its decorators - the host has applied
    them - and the name it defines. A lambda becomes a `def` of its expression on its line."""
    lines = _source_lines(fn)
    code = fn.__code__
    first = code.co_firstlineno
    if first > len(lines):
        raise CompileError("cannot read the source of '%s': %s has no line %d (was the file changed?)" % (
            fn.__qualname__, code.co_filename, first))
    name = code.co_name  # the def's own name: generated functions get another __name__
    if name == "<lambda>":
        return _lambda_source(fn, lines), code.co_filename, LAMBDA_NAME
    block = inspect.getblock(lines[first - 1:])
    try:
        tree = ast.parse(textwrap.dedent("".join(block)))
    except SyntaxError:
        tree = None
    def_line = first
    if tree is not None and tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        if tree.body[0].name != name:
            raise CompileError("%s:%d: the source there defines '%s', not '%s'" % (
                code.co_filename, first, tree.body[0].name, name))
        def_line = first + tree.body[0].lineno - 1
    body = block[def_line - first:]
    return "\n" * (def_line - 1) + "".join(body), code.co_filename, name


LAMBDA_NAME = "_lambda_"

_generated = itertools.count()


def define_generated(text, label, scope):
    """Runs generated source `text` (kernels cutwin writes around a user's function) in
    `scope`, registered with linecache under a unique name from `label`, so that its
    functions compile from it like any source; returns `scope`."""
    filename = "<cutwin %s #%d>" % (label, next(_generated))
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), scope)
    return scope


def _lambda_source(fn, lines):
    """`def _lambda_(params): return <body>` on the lambda's line, found there by its
    parameter names."""
    code = fn.__code__
    first = code.co_firstlineno
    params = list(code.co_varnames[:code.co_argcount])
    text = textwrap.dedent("".join(inspect.getblock(lines[first - 1:])))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        tree = ast.parse("(" + text.strip().rstrip(",") + ")") if text.strip() else None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == params:
            return "\n" * (first - 1) + "def %s(%s): return %s\n" % (LAMBDA_NAME, ", ".join(params),
                                                                      ast.unparse(node.body))
    raise CompileError("cannot find the source of the lambda at %s:%d" % (code.co_filename, first))


# ---- units -------------------------------------------------------------------------------------------

def _defaults(fn):
    """Parameter name -> default value, for the defaults kernels can use (constants and
    None); the compiler evaluates no default expression itself."""
    code = fn.__code__
    names = code.co_varnames[:code.co_argcount]
    out = {}
    for name, v in zip(names[len(names) - len(fn.__defaults__ or ()):], fn.__defaults__ or ()):
        c = None if v is None else host_constant(v)
        if c is not None or v is None:
            out[name] = c
    return out


class World:
    """What a kernel reaches: its function units (the root's first), the exception classes
    they name (by the name they use) and the foreign functions they call."""

    def __init__(self):
        self.units, self.exceptions, self.foreign = [], {}, []


def function_units(root, declaration_of):
    """The World of `root` (a jit function object): its unit and those of every jit function
    it reaches through its names. `declaration_of(obj)` returns (py_func, declaration dict)
    for jit function objects, or None for anything else."""
    world, ids, queue = World(), {}, []

    def unit_of(v):
        d = declaration_of(v)
        if d is None:
            return None
        py_func, decl = d
        key = id(py_func)
        if key not in ids:
            ids[key] = str(len(ids))
            queue.append((py_func, decl, ids[key]))
        return ids[key]

    unit_of(root)
    while queue:
        py_func, decl, uid = queue.pop(0)
        text, filename, fname = function_source(py_func)
        names = {}
        attrs = code_names(py_func.__code__)
        for name, v in sorted(free_values(py_func).items()):
            b = binding(name, v, unit_of, attrs)
            names[name] = b
            if b["kind"] == "exception":
                world.exceptions[name] = v
            elif b["kind"] == "foreign" and v not in world.foreign:
                world.foreign.append(v)
        world.units.append({"id": uid, "file": filename, "source": text, "function": fname,
                            "declaration": decl, "names": names, "defaults": _defaults(py_func)})
    return world
