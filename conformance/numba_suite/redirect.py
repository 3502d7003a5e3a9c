"""`numba.cuda`, redirected to cutwin, for running numba-cuda's own test suite.

After `install()`, every `numba.cuda` a test module reaches (`from numba import cuda`,
`import numba.cuda`, `numba.cuda.<x>`, `from numba.cuda.random import ...`) is cutwin's:
the compiler, dispatchers, device arrays, streams, the driver, random, reduce, libdevice.
numba-cuda itself supplies only what is not a CUDA implementation - its test utilities
(`numba.cuda.testing`, `numba.cuda.tests`), its configuration and exception classes, and
its type vocabulary (`numba.cuda.types`, `numpy_support.from_dtype`, `typing.signature`,
`typeof`), which cutwin accepts
wherever it takes a type. Any other numba-cuda module (its compiler passes, IR, typing
templates, simulator, driver, device arrays) is replaced by a module every attribute of
which raises: a test that needs one fails; it never runs on numba's own implementation.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys
import types as pytypes

# numba-cuda modules that stay numba-cuda's (and their submodules).
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

# numba-cuda module -> the cutwin module that takes its place.
CUTWIN_MODULES = {
    "numba.cuda": "cutwin.cuda",
    "numba.cuda.random": "cutwin.cuda.random",
    "numba.cuda.args": "cutwin.cuda.args",
    "numba.cuda.libdevice": "cutwin.cuda.libdevice",
    "numba.cuda.compiler": "cutwin.cuda.compiler",
    "numba.cuda.dispatcher": "cutwin.cuda.dispatcher",
    "numba.cuda.cudadrv": "cutwin.cuda.cudadrv",
    "numba.cuda.cudadrv.driver": "cutwin.cuda.cudadrv.driver",
    "numba.cuda.cudadrv.drvapi": "cutwin.cuda.cudadrv.drvapi",
    "numba.cuda.cudadrv.error": "cutwin.cuda.cudadrv.error",
    "numba.cuda.vectorizers": "cutwin.cuda.vectorizers",
    "numba.cuda.cudadrv.devicearray": "cutwin.cuda.devicearray",
    "numba.cuda.kernels.reduction": "cutwin.cuda.reduction",
}

# Attributes of `numba.cuda` itself that come from numba-cuda when cutwin has no such name:
# configuration, the flag for a base numba install, and the subpackages above.
NUMBA_CUDA_ATTRS = {"config", "HAS_NUMBA", "types", "testing", "tests", "core", "np", "utils", "errors",
                    "cuda_paths", "implementation"}

# Other redirected modules' attributes that are numba-cuda's type vocabulary: `signature`
# builds a signature object of numba types (cutwin takes those as it takes its own).
OWN_ATTRS = {"numba.cuda": NUMBA_CUDA_ATTRS, "numba.cuda.typing": {"signature"},
             "numba.cuda.typing.templates": {"signature"}}


def _is_numba_own(name):
    return any(name == m or name.startswith(m + ".") for m in NUMBA_OWN)


class NotProvided(Exception):
    """A numba-cuda implementation module a test reached; cutwin does not provide it."""


class RedirectedModule(pytypes.ModuleType):
    """A `numba.cuda.*` module name served by cutwin: attributes come from the cutwin module
    (`target`, possibly none), submodules from the redirect; nothing from numba-cuda's
    implementation (`real` is consulted only for the names listed as numba-cuda's own)."""

    def __init__(self, name, target, real, own_attrs=()):
        super().__init__(name, getattr(target, "__doc__", None))
        self.__dict__["_target"] = target
        self.__dict__["_real"] = real
        self.__dict__["_own_attrs"] = frozenset(own_attrs)
        if real is not None and hasattr(real, "__path__"):
            self.__dict__["__path__"] = list(real.__path__)
        if target is not None and hasattr(target, "__file__"):
            self.__dict__["__file__"] = target.__file__

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
        if real is not None and attr in self.__dict__["_own_attrs"] and hasattr(real, attr):
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


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves every `numba.cuda.*` import that is not numba-cuda's own with the redirect."""

    def find_spec(self, name, path=None, target=None):
        if not (name == "numba.cuda" or name.startswith("numba.cuda.")) or _is_numba_own(name):
            return None
        # Only names that are modules (numba-cuda's, or cutwin's stand-ins): `from
        # numba.cuda import vectorize` must fail where cutwin has no vectorize, not import
        # an empty module of that name.
        if name not in CUTWIN_MODULES and importlib.machinery.PathFinder.find_spec(name, path) is None:
            return None
        return importlib.machinery.ModuleSpec(name, self)

    def create_module(self, spec):
        return redirected(spec.name)

    def exec_module(self, module):
        pass


def redirected(name):
    target_name = CUTWIN_MODULES.get(name)
    target = importlib.import_module(target_name) if target_name else None
    real = _REAL.get(name)
    return RedirectedModule(name, target, real, OWN_ATTRS.get(name, ()))


_REAL = {}


def install(simulator_selection=False):
    """Imports numba-cuda's test utilities (which load parts of numba-cuda), then puts cutwin
    in place of every numba-cuda implementation module. With `simulator_selection`,
    numba-cuda's configuration says it runs on its simulator, so that tests select and skip
    as they do under `NUMBA_ENABLE_CUDASIM=1` (without loading that simulator)."""
    import numpy as np

    if not hasattr(np, "row_stack"):  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it
        np.row_stack = np.vstack
    import numba.cuda  # noqa: F401  numba-cuda's own, for its utilities
    import numba.cuda.testing  # noqa: F401
    import numba.cuda.tests.support  # noqa: F401
    import numba.cuda.np.numpy_support  # noqa: F401
    import numba.cuda.typing.typeof  # noqa: F401
    from numba.cuda.core import config

    if simulator_selection:
        config.ENABLE_CUDASIM = True
        # skip_on_cudasim marks what numba's Python simulator cannot do; cutwin's simulator
        # runs those tests too.
        numba.cuda.testing.skip_on_cudasim = lambda reason: (lambda test: test)
    for name in list(sys.modules):
        if (name == "numba.cuda" or name.startswith("numba.cuda.")) and not _is_numba_own(name):
            _REAL[name] = sys.modules[name]
    for name in _REAL:
        sys.modules[name] = redirected(name)
    for name, module in list(sys.modules.items()):
        # A parent module's attribute for a replaced child (`numba.cuda.cudadrv.driver` is
        # reached as an attribute by `import numba.cuda.cudadrv.driver as d`).
        parent, _, child = name.rpartition(".")
        if name in _REAL and parent in sys.modules and isinstance(sys.modules[parent], RedirectedModule):
            sys.modules[parent].__dict__[child] = module
    import numba

    numba.cuda = sys.modules["numba.cuda"]
    sys.meta_path.insert(0, _Finder())
    _route_numba_ufunc_decorators(numba)
    _testing_asks_cutwin(numba.cuda.testing)


class _CutwinDevices:
    """What numba-cuda's test helpers ask of its `devices` module (the current context's
    device, for compute-capability skips), answered by cutwin's current device."""

    class _Context:
        @property
        def device(self):
            import cutwin.cuda

            return cutwin.cuda.get_current_device()

    def get_context(self, devnum=None):
        return self._Context()


def _testing_asks_cutwin(testing):
    """numba-cuda's test helpers query its own driver (compute capability, nvJitLink) at
    import; they ask cutwin's device instead, so no test reaches numba-cuda's driver."""
    import cutwin.cuda.cudadrv.driver

    testing.devices = _CutwinDevices()
    testing.driver = cutwin.cuda.cudadrv.driver


def _route_numba_ufunc_decorators(numba):
    """numba's own `vectorize`/`guvectorize` with target='cuda' are numba-cuda's entry
    points: they go to cutwin's; other targets stay numba's."""
    import cutwin.cuda

    for name in ("vectorize", "guvectorize"):
        original = getattr(numba, name)

        def routed(*args, _original=original, _name=name, **kws):
            if kws.get("target") in ("cuda", "gpu"):
                return getattr(cutwin.cuda, _name)(*args, **kws)
            return _original(*args, **kws)

        routed.__wrapped__ = original
        setattr(numba, name, routed)


def check_installed():
    """Raises unless `numba.cuda` is cutwin's (used by the runner before collecting)."""
    import numba

    cuda = sys.modules.get("numba.cuda")
    import cutwin.cuda

    if not isinstance(cuda, RedirectedModule) or numba.cuda is not cuda or cuda.jit is not cutwin.cuda.jit:
        raise RuntimeError("numba.cuda is not redirected to cutwin")
