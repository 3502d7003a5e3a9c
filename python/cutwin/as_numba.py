"""cutwin as `numba.cuda`: the process's `numba.cuda` (and `numba_cuda_mlir.cuda`) becomes
cutwin's, so that numba-cuda programs, notebooks and test suites run unchanged.

Switched on by any of:
  - `CUTWIN_NUMBA=1` in the environment (the package's `.pth` hook reads it at interpreter
    start, so child processes inherit the switch),
  - `python -m cutwin run prog.py [args]` / `python -m cutwin run -m module [args]`,
  - `pytest --cutwin-as-numba`,
  - `cutwin.install_as_numba()` (notebooks; before the first `numba.cuda` import).

After it, every `numba.cuda` the program reaches (`from numba import cuda`, `import
numba.cuda as c`, `numba.cuda.<x>`, `from numba.cuda.random import ...`,
`numba.cuda.cudadrv.*`) is cutwin's: the compiler, dispatchers, device arrays, streams, the
driver and host API, random, reduce, libdevice. numba itself stays numba (CPU `@jit`, its
type objects, which cutwin takes wherever it takes a type). A few numba-cuda modules that
are not CUDA implementations stay numba's where numba-cuda is installed (NUMBA_OWN: test
utilities, configuration, exception classes, type vocabulary); they are loaded only when
asked for, and numba-cuda's test helpers are pointed at cutwin's devices. Any other
numba-cuda module (its compiler passes, IR, simulator, driver, arrays) is replaced by a
module every attribute of which raises: code that needs one fails loudly; nothing ever runs
on numba's own CUDA implementation.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading
import types as pytypes
import warnings

# numba-cuda modules that stay numba-cuda's (and their submodules), where it is installed.
NUMBA_OWN = (
    "numba.cuda.testing",
    "numba.cuda.tests",
    "numba.cuda.core.config",
    "numba.cuda.core.errors",
    "numba.cuda.errors",
    "numba.cuda.types",
    "numba.cuda.np.numpy_support",
    "numba.cuda.typing.typeof",
    "numba.cuda.utils",
    "numba.cuda.cuda_paths",
    "numba.cuda.libdevicefuncs",  # the table of libdevice's signatures, in numba's types
)

# numba-cuda's own modules that import its implementation themselves (its test utilities
# import its dispatcher and driver): loaded beside numba-cuda's package, with the redirect
# out of the way. Its other own modules (test modules and their helpers among them) load
# with the redirect in place, so that their `from numba import cuda` is cutwin's.
LOADED_WITH_NUMBA_CUDA = ("numba.cuda.testing", "numba.cuda.tests.support")

# numba-cuda module -> the cutwin module that takes its place.
CUTWIN_MODULES = {
    "numba.cuda": "cutwin.cuda",
    "numba.cuda.api": "cutwin.cuda",
    "numba.cuda.random": "cutwin.cuda.random",
    "numba.cuda.args": "cutwin.cuda.args",
    "numba.cuda.fp16": "cutwin.cuda.fp16",
    "numba.cuda.bf16": "cutwin.cuda.bf16",
    "numba.cuda.libdevice": "cutwin.cuda.libdevice",
    "numba.cuda.compiler": "cutwin.cuda.compiler",
    "numba.cuda.dispatcher": "cutwin.cuda.dispatcher",
    "numba.cuda.cudadrv": "cutwin.cuda.cudadrv",
    "numba.cuda.cudadrv.driver": "cutwin.cuda.cudadrv.driver",
    "numba.cuda.cudadrv.devices": "cutwin.cuda.cudadrv.devices",
    "numba.cuda.cudadrv.drvapi": "cutwin.cuda.cudadrv.drvapi",
    "numba.cuda.cudadrv.error": "cutwin.cuda.cudadrv.error",
    "numba.cuda.cudadrv.devicearray": "cutwin.cuda.cudadrv.devicearray",
    "numba.cuda.vectorizers": "cutwin.cuda.vectorizers",
    "numba.cuda.kernels": None,
    "numba.cuda.launchconfig": "cutwin.cuda.launchconfig",
    "numba.cuda.misc": None,
    "numba.cuda.misc.special": "cutwin.cuda.special",
    "numba.cuda.memory_management": None,
    "numba.cuda._internal": "cutwin.cuda._internal",
    "numba.cuda._internal.cuda_bf16": "cutwin.cuda._internal.cuda_bf16",
    "numba.cuda._internal.cuda_fp8": "cutwin.cuda._internal.cuda_fp8",
    "numba.cuda.memory_management.nrt": "cutwin.cuda.nrt",
    "numba.cuda.extending": "cutwin.cuda.extending",
    "numba.cuda.cudaimpl": "cutwin.cuda.cudaimpl",
    "numba.cuda.kernels.reduction": "cutwin.cuda.reduction",
    "numba.cuda.kernels.transpose": "cutwin.cuda.transpose",
    "numba.cuda.vector_types": "cutwin.cuda.vector_types",
}

# Attributes of `numba.cuda` itself that come from numba-cuda when cutwin has no such name:
# configuration, the flag for a base numba install, and the subpackages above.
NUMBA_CUDA_ATTRS = {"config", "HAS_NUMBA", "types", "testing", "tests", "core", "np", "utils", "errors",
                    "cuda_paths", "implementation"}

# Other redirected modules' attributes that are numba-cuda's type vocabulary: `signature`
# builds a signature object of numba types (cutwin takes those as it takes its own).
OWN_ATTRS = {"numba.cuda": NUMBA_CUDA_ATTRS, "numba.cuda.typing": {"signature"},
             "numba.cuda.typing.templates": {"signature"}}

# Other names of numba.cuda: numba-cuda-mlir's `from numba_cuda_mlir import cuda`.
ALIASES = {"numba_cuda_mlir.cuda": "numba.cuda"}
ALIAS_PACKAGES = ("numba_cuda_mlir",)


def _is_numba_cuda(name):
    return name == "numba.cuda" or name.startswith("numba.cuda.")


def _is_numba_own(name):
    return any(name == m or name.startswith(m + ".") for m in NUMBA_OWN)


def _canonical(name):
    """`numba_cuda_mlir.cuda.random` -> `numba.cuda.random`; other names as they are."""
    for alias, target in ALIASES.items():
        if name == alias or name.startswith(alias + "."):
            return target + name[len(alias):]
    return name


class RedirectedModule(pytypes.ModuleType):
    """A `numba.cuda.*` module name served by cutwin: attributes come from the cutwin module
    (`target`, possibly none), submodules from the redirect; nothing from numba-cuda's
    implementation (`real`, where loaded, is consulted only for the names listed as
    numba-cuda's own)."""

    def __init__(self, name, target, real, own_attrs=()):
        super().__init__(name, getattr(target, "__doc__", None))
        self.__dict__["_target"] = target
        self.__dict__["_own_attrs"] = frozenset(own_attrs)
        self.__dict__["__path__"] = _numba_cuda_path(name)  # a package: submodules come through the redirect
        self._set_real(real)
        if target is not None and hasattr(target, "__file__"):
            self.__dict__["__file__"] = target.__file__

    def _set_real(self, real):
        self.__dict__["_real"] = real
        try:
            path = list(real.__path__) if real is not None and hasattr(real, "__path__") else None
        except KeyError:  # a namespace package whose parent is gone
            path = None
        if path:
            self.__dict__["__path__"] = path

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        target = self.__dict__["_target"]
        real = self.__dict__["_real"]
        if real is not None and self.__name__ == "numba.cuda" and (
                _is_type_name(real, attr) or attr in ("types", "config", "HAS_NUMBA", "testing", "tests")):
            # numba.cuda re-exports numba's type objects (numba.cuda.float32 is
            # numba.cuda.types.float32); cutwin takes them wherever it takes a type.
            return getattr(real, attr)
        if target is not None and hasattr(target, attr):
            return getattr(target, attr)
        sub = "%s.%s" % (self.__name__, attr)
        if sub in CUTWIN_MODULES or _is_numba_own(sub) or sub in sys.modules:
            try:
                return importlib.import_module(sub)
            except ImportError:
                pass
        if attr in self.__dict__["_own_attrs"]:
            if real is None and _load_numba_cuda() is not None:
                real = _REAL.get(self.__name__)
            if real is not None and hasattr(real, attr):
                return getattr(real, attr)
        raise AttributeError("%s.%s is not provided by cutwin" % (self.__name__, attr))

    def __setattr__(self, attr, value):
        # Tests monkeypatch module attributes (e.g. config values); keep them on the module
        # the code reads.
        target = self.__dict__["_target"]
        # The import system sets __spec__, __package__, __loader__ ... on the module it
        # created: those belong to the redirect, not to the cutwin module behind it.
        if target is not None and hasattr(target, attr) and not (attr.startswith("__") and attr.endswith("__")):
            setattr(target, attr, value)
        else:
            self.__dict__[attr] = value

    def __dir__(self):
        target = self.__dict__["_target"]
        return sorted(set(dir(target) if target is not None else ()) | set(self.__dict__))


def _is_type_name(real_cuda, attr):
    """numba.cuda re-exports numba's type names (`numba.cuda.float16`); those are its type
    vocabulary, not its implementation."""
    try:
        types = sys.modules["numba.cuda.types"]
        return isinstance(getattr(real_cuda, attr), types.Type)
    except (KeyError, AttributeError):
        return False


def _numba_cuda_path(name):
    """Where numba-cuda (or numba's own CUDA package) keeps the package `name`, found
    without importing it; [] where there is none. The redirect serves a name only where
    numba-cuda has such a module (or cutwin a stand-in)."""
    global _numba_cuda_dir
    if _numba_cuda_dir is None:
        _numba_cuda_dir = ""
        for package, below in (("numba_cuda", ("numba", "cuda")), ("numba", ("cuda",))):
            try:
                spec = importlib.util.find_spec(package)
            except (ImportError, ValueError):
                spec = None
            if spec is not None and spec.submodule_search_locations:
                folder = os.path.join(list(spec.submodule_search_locations)[0], *below)
                if os.path.isdir(folder):
                    _numba_cuda_dir = folder
                    break
    if not _numba_cuda_dir:
        return []
    folder = os.path.join(_numba_cuda_dir, *name.split(".")[2:])
    return [folder] if os.path.isdir(folder) else []


_numba_cuda_dir = None


class _Existing(importlib.abc.Loader):
    """Loads a module that is already made (an alias, or a module loaded on the way)."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


def _existing_spec(name, module):
    return importlib.machinery.ModuleSpec(name, _Existing(module), origin=getattr(module, "__file__", None),
                                          is_package=hasattr(module, "__path__"))


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves every `numba.cuda.*` import that is not numba-cuda's own with the redirect, and
    `numba_cuda_mlir.cuda.*` as the same modules."""

    def find_spec(self, name, path=None, target=None):
        if name in ALIAS_PACKAGES:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        canonical = _canonical(name)
        if canonical != name:
            return _existing_spec(name, importlib.import_module(canonical))
        if not _is_numba_cuda(name):
            return None
        if _is_numba_own(name):
            if _load_numba_cuda(name if name in LOADED_WITH_NUMBA_CUDA else None) is None:
                return None  # numba-cuda is absent: no such module
            if name in sys.modules:
                # Loaded beside numba-cuda: the import system, finding it in sys.modules, would
                # run its file again; it takes the module from this spec (and puts it back).
                return _existing_spec(name, sys.modules.pop(name))
            return None  # the path finders load it, with numba.cuda the redirect
        # Only names that are modules (numba-cuda's, or cutwin's stand-ins): `from
        # numba.cuda import vectorize` must fail where cutwin has no vectorize, not import
        # an empty module of that name.
        if name not in CUTWIN_MODULES and not path:
            # No such module (`from numba.cuda.x import name` asks for `numba.cuda.x.name`
            # when x lacks the attribute). Said here: numba-cuda's own redirecting finder,
            # next in line, would look for it again and again on an empty path.
            raise ModuleNotFoundError("No module named %r" % name, name=name)
        if name not in CUTWIN_MODULES and importlib.machinery.PathFinder.find_spec(name, path) is None:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        if spec.name in ALIAS_PACKAGES:
            module = pytypes.ModuleType(spec.name, "%s, served by cutwin: only its `cuda` is provided" % spec.name)
            module.__path__ = []
            return module
        with _lock:
            if spec.name not in _made:
                _made[spec.name] = redirected(spec.name)
            return _made[spec.name]

    def exec_module(self, module):
        pass


def redirected(name):
    target_name = CUTWIN_MODULES.get(name)
    target = importlib.import_module(target_name) if target_name else None
    return RedirectedModule(name, target, _REAL.get(name), OWN_ATTRS.get(name, ()))


_REAL = {}  # numba-cuda's own modules of the names redirected, where they were loaded
_made = {}  # the redirected modules made so far, by name
_lock = threading.RLock()
_finder = None
_real_loaded = False


def _replace_real_modules():
    """Puts the redirect in place of every numba-cuda implementation module in sys.modules
    (those numba-cuda's own modules loaded), keeping the redirected modules already made."""
    for name, module in list(sys.modules.items()):
        if _is_numba_cuda(name) and not _is_numba_own(name) and not isinstance(module, RedirectedModule):
            _REAL[name] = module
    for name, real in _REAL.items():
        current = _made.get(name)
        if current is None:
            current = _made[name] = redirected(name)
        current._set_real(real)
        sys.modules[name] = current
    for name, module in _made.items():
        sys.modules[name] = module
        # A parent module's attribute for a replaced child (`numba.cuda.cudadrv.driver` is
        # reached as an attribute by `import numba.cuda.cudadrv.driver as d`).
        parent, _, child = name.rpartition(".")
        if parent in _made:
            _made[parent].__dict__[child] = module
    numba = sys.modules.get("numba")
    if numba is not None and "numba.cuda" in _made:
        numba.cuda = _made["numba.cuda"]



def _load_numba_cuda(name=None):
    """Loads numba-cuda's package (once) and its own module `name` (one of
    LOADED_WITH_NUMBA_CUDA, if given) with the redirect out of the way, then puts the
    redirect back over every implementation module that came with them. Returns that module
    (numba-cuda's package without a name); None where numba-cuda (or numba's own CUDA
    package) is absent."""
    global _real_loaded
    with _lock:
        if _real_loaded:
            package = _REAL.get("numba.cuda")
            if package is None or name is None:
                return package  # None: numba-cuda is absent (its import failed before)
            loaded = sys.modules.get(name)
            if loaded is not None and not isinstance(loaded, RedirectedModule):
                return loaded
        for mod_name, module in list(sys.modules.items()):
            if isinstance(module, RedirectedModule):
                _made.setdefault(mod_name, module)
                del sys.modules[mod_name]
        sys.modules.update(_REAL)  # numba-cuda's own package and modules, while they load
        if _finder in sys.meta_path:
            sys.meta_path.remove(_finder)
        numba = sys.modules.get("numba")
        if numba is not None and isinstance(numba.__dict__.get("cuda"), RedirectedModule):
            # numba-cuda's modules reach `numba.cuda` as an attribute while they load
            if "numba.cuda" in _REAL:
                numba.cuda = _REAL["numba.cuda"]
            else:
                del numba.cuda
        try:
            _prepare_numba_cuda_import()
            module = None
            if _numba_cuda_path("numba.cuda"):  # numba-cuda (or numba's own CUDA package) is there
                try:
                    package = importlib.import_module("numba.cuda")
                    module = importlib.import_module(name) if name else package
                except Exception as e:
                    # Not marked loaded: a later import tries again and fails as loudly.
                    raise ImportError("cutwin as numba.cuda: numba-cuda's %s could not be loaded beside cutwin "
                                      "(%s: %s)" % (name or "numba.cuda", type(e).__name__, e)) from e
            _real_loaded = True
            if "numba.cuda.testing" in sys.modules:
                _testing_asks_cutwin(sys.modules["numba.cuda.testing"])
            if "numba.cuda.tests.support" in sys.modules:
                _support_asks_cutwin(sys.modules["numba.cuda.tests.support"])
        finally:
            sys.meta_path.insert(0, _finder)
            _replace_real_modules()
        return module


def _prepare_numba_cuda_import():
    import numpy as np

    if not hasattr(np, "row_stack"):  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it
        np.row_stack = np.vstack


def install():
    """Makes `numba.cuda` (and `numba_cuda_mlir.cuda`) cutwin's in this process. Idempotent.
    Call it before the first `import numba.cuda`: a `numba.cuda` imported earlier is
    replaced in sys.modules, but names already bound to it stay numba's (a warning says so)."""
    global _finder
    with _lock:
        if _finder is not None and _finder in sys.meta_path and isinstance(sys.modules.get("numba.cuda"),
                                                                          (RedirectedModule, type(None))):
            return
        import cutwin.cuda  # noqa: F401  fail here, loudly, if cutwin cannot load

        already = [n for n, m in sys.modules.items()
                   if _is_numba_cuda(n) and not _is_numba_own(n) and not isinstance(m, RedirectedModule)]
        if already:
            warnings.warn("cutwin.install_as_numba(): numba.cuda was imported before the switch; names bound to it "
                          "earlier stay numba-cuda's (import numba.cuda again, or switch before importing it)",
                          RuntimeWarning, stacklevel=2)
            _REAL.update({n: sys.modules[n] for n in already})
        _finder = _finder or _Finder()
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)
        _made["numba.cuda"] = _made.get("numba.cuda") or redirected("numba.cuda")
        _replace_real_modules()
        if "numba.cuda.testing" in sys.modules:
            _testing_asks_cutwin(sys.modules["numba.cuda.testing"])
        numba = sys.modules.get("numba")
        if numba is None and importlib.util.find_spec("numba") is not None:
            import numba
        if numba is not None:
            _route_numba_ufunc_decorators(numba)


def finder():
    """The finder that serves the redirected modules (after install())."""
    return _finder


def installed():
    """True when `numba.cuda` is cutwin's in this process."""
    import cutwin.cuda

    cuda = sys.modules.get("numba.cuda")
    return isinstance(cuda, RedirectedModule) and cuda.jit is cutwin.cuda.jit and (
        "numba" not in sys.modules or getattr(sys.modules["numba"], "cuda", None) is cuda)


def check_installed():
    """Raises unless `numba.cuda` is cutwin's."""
    if not installed():
        raise RuntimeError("numba.cuda is not cutwin's: the switch (CUTWIN_NUMBA=1, cutwin.install_as_numba()) "
                           "was not installed")


def _testing_asks_cutwin(testing):
    """numba-cuda's test helpers query its own driver and devices (compute capability,
    nvJitLink) at import; they ask cutwin's instead, so no test reaches numba-cuda's driver."""
    import cutwin.cuda.cudadrv

    testing.devices = cutwin.cuda.cudadrv.devices
    testing.driver = cutwin.cuda.cudadrv.driver


def _support_asks_cutwin(support):
    """numba-cuda's leak checks (MemoryLeakMixin) read its NRT's allocation statistics from
    its driver; they read cutwin's (python/cutwin/cuda/nrt.py)."""
    import cutwin.cuda.nrt

    support.rtsys = cutwin.cuda.nrt.rtsys


def _route_numba_ufunc_decorators(numba):
    """numba's own `vectorize`/`guvectorize` with target='cuda' are numba-cuda's entry
    points: they go to cutwin's; other targets stay numba's."""
    import cutwin.cuda

    for name in ("vectorize", "guvectorize"):
        original = getattr(numba, name, None)
        if original is None or hasattr(original, "_cutwin_routed"):
            continue

        def routed(*args, _original=original, _name=name, **kws):
            if kws.get("target") in ("cuda", "gpu"):
                return getattr(cutwin.cuda, _name)(*args, **kws)
            return _original(*args, **kws)

        routed.__wrapped__ = original
        routed._cutwin_routed = True
        setattr(numba, name, routed)
