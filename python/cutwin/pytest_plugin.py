"""The cutwin pytest plugin (registered as `cutwin.pytest_plugin` when the package is
installed): a `cutwin_backend` fixture and `--cutwin-backend=sim|gpu|both`.

A test that takes `cutwin_backend` runs once per selected backend with that backend
current, so the same kernel tests run on the simulator in CI and on both where a GPU
exists:

    def test_vadd(cutwin_backend):
        ...  # launches run on cutwin_backend ("sim" or "gpu")

The default is the simulator, or $CUTWIN_TEST_BACKEND. Asking for the GPU where there is
none is an error, not a skip.

`--cutwin-as-numba` runs a numba-cuda test suite unchanged on cutwin: `numba.cuda` is
cutwin's from before the first conftest is imported.

`--cutwin-sanitize=race|init|all` compiles every kernel the tests launch on the simulator
with the sanitizer's checks (as CUTWIN_SANITIZE does): a data race or a read of unwritten
memory fails the test that launched it with KernelRaceError or KernelUninitializedError.
"""
import os

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("cutwin")
    group.addoption("--cutwin-as-numba", action="store_true", default=False,
                    help="run the tests with numba.cuda as cutwin (as CUTWIN_NUMBA=1 does), before conftest "
                         "files and test modules are imported")
    group.addoption("--cutwin-backend", choices=("sim", "gpu", "both"), default=None,
                    help="backends for tests using the cutwin_backend fixture (default: sim, or "
                         "$CUTWIN_TEST_BACKEND)")
    group.addoption("--cutwin-sanitize", default=None, metavar="CHECKS",
                    help="the simulator's sanitizer for every kernel: race, init, all (or a comma-separated "
                         "list); as CUTWIN_SANITIZE=CHECKS")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    checks = early_config.known_args_namespace.cutwin_sanitize
    if checks:
        os.environ["CUTWIN_SANITIZE"] = checks  # (child processes too)
    if early_config.known_args_namespace.cutwin_as_numba:
        os.environ["CUTWIN_NUMBA"] = "1"  # for the tests' child processes
        from cutwin import as_numba

        as_numba.install()


def pytest_configure(config):
    # (a plugin a conftest.py registers misses pytest_load_initial_conftests; kernels compile
    # when the tests run, after this)
    checks = config.getoption("--cutwin-sanitize", None)
    if checks:
        os.environ["CUTWIN_SANITIZE"] = checks


def _selected(config):
    choice = config.getoption("--cutwin-backend") or os.environ.get("CUTWIN_TEST_BACKEND", "sim")
    return ["sim", "gpu"] if choice == "both" else [choice]


def pytest_generate_tests(metafunc):
    if "cutwin_backend" in metafunc.fixturenames:
        metafunc.parametrize("cutwin_backend", _selected(metafunc.config), indirect=True)


@pytest.fixture
def cutwin_backend(request):
    from cutwin import cuda

    name = getattr(request, "param", "sim")
    if name == "gpu" and not cuda.gpu_available():
        pytest.fail("--cutwin-backend asks for the GPU, but there is none here", pytrace=False)
    with cuda.use_backend(name):
        yield name
