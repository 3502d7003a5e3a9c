"""Read at interpreter start (cutwin-numba.pth, which then drops this module from
sys.modules: pytest marks the top-level modules of a distribution with a pytest plugin,
cutwin's, for assertion rewriting and warns about any already imported; the finder holds
what it needs). With CUTWIN_NUMBA=1 in the environment,
the first `numba.cuda` (or `numba_cuda_mlir`) import makes `numba.cuda` cutwin's
(cutwin/as_numba.py). Nothing else happens at start-up: cutwin itself is imported only
then, and an error there fails that import loudly instead of falling back to numba."""
import os
import sys


def wanted(environ=os.environ):
    return environ.get("CUTWIN_NUMBA", "").strip().lower() not in ("", "0", "false", "no", "off")


class CutwinNumbaSwitch:
    """A meta-path finder that installs cutwin as numba.cuda at the first import of it."""

    @staticmethod
    def _concerns(name):
        return name in ("numba.cuda", "numba_cuda_mlir") or name.startswith(("numba.cuda.", "numba_cuda_mlir."))

    def find_spec(self, name, path=None, target=None):
        if not self._concerns(name):
            return None
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
        try:
            from cutwin import as_numba

            as_numba.install()
        except Exception as e:
            raise ImportError("CUTWIN_NUMBA=%s asks for cutwin as numba.cuda, but cutwin could not install itself "
                              "(%s: %s); numba's own CUDA is not used instead"
                              % (os.environ.get("CUTWIN_NUMBA"), type(e).__name__, e)) from e
        return as_numba.finder().find_spec(name, path, target)


def install_if_wanted():
    if wanted() and not any(type(f).__name__ == "CutwinNumbaSwitch" for f in sys.meta_path):
        sys.meta_path.insert(0, CutwinNumbaSwitch())


install_if_wanted()
