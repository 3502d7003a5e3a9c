"""Child processes of the numba-cuda suite (tests that start `python -c ...` or
multiprocessing workers) get the same switch: run.py puts this folder on PYTHONPATH, and
the parent's selection.switch() set CUTWIN_NUMBA_SUITE_SELECTION.

pytest (--import-mode=importlib) names the test modules from the first folder without an
__init__.py: `cuda.tests.cudapy.test_ipc` for numba/cuda/tests/cudapy/test_ipc.py. A
worker started with spawn unpickles the test's functions by that name, so here it is the
module numba.cuda.tests.cudapy.test_ipc."""
import importlib
import importlib.abc
import importlib.util
import os
import sys


class _TestModulesByPytestName(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: `cuda.tests...` is numba.cuda.tests...; `cuda` itself, where
    no cuda-python provides it, an empty package to hold them."""
    PREFIX = "cuda.tests"

    def find_spec(self, name, path, target=None):
        if name == "cuda" or name == self.PREFIX or name.startswith(self.PREFIX + "."):
            return importlib.util.spec_from_loader(name, self, is_package=True)
        return None

    def create_module(self, spec):
        if spec.name == "cuda":
            return None  # the default: an empty module
        module = importlib.import_module("numba." + spec.name)
        self._own_spec = module.__spec__  # the import machinery sets ours; exec_module puts it back
        return module

    def exec_module(self, module):
        if module.__name__ != "cuda":
            module.__spec__ = self._own_spec  # imported under its own name already


if os.environ.get("CUTWIN_NUMBA_SUITE_SELECTION"):
    import selection

    selection.switch(os.environ["CUTWIN_NUMBA_SUITE_SELECTION"])
    sys.meta_path.append(_TestModulesByPytestName())
