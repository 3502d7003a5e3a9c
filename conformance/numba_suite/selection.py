"""numba.cuda as cutwin for numba-cuda's own test suite: the package's switch
(cutwin.as_numba, as CUTWIN_NUMBA=1 installs it), numba-cuda's test utilities loaded, and,
for the simulator selection, numba-cuda's configuration saying it runs on its simulator, so
that tests select and skip as they do under NUMBA_ENABLE_CUDASIM=1 (without loading that
simulator). Used by plugin.py and, in child processes, by sitecustomize.py."""
import os

SELECTION_VARIABLE = "CUTWIN_NUMBA_SUITE_SELECTION"


def switch(selection):
    os.environ["CUTWIN_NUMBA"] = "1"
    os.environ[SELECTION_VARIABLE] = selection
    from cutwin import as_numba

    as_numba.install()
    import numba.cuda.testing  # noqa: F401  numba-cuda's own utilities, pointed at cutwin's devices
    import numba.cuda.tests.support  # noqa: F401
    import numba.cuda.np.numpy_support  # noqa: F401
    import numba.cuda.typing.typeof  # noqa: F401
    from numba.cuda.core import config

    if selection == "sim":
        config.ENABLE_CUDASIM = True
        # skip_on_cudasim marks what numba's Python simulator cannot do; cutwin's simulator
        # runs those tests too.
        numba.cuda.testing.skip_on_cudasim = lambda reason: (lambda test: test)
    as_numba.check_installed()
