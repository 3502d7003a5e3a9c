"""The cutwin pytest plugin (registered as `cutwin.pytest_plugin` when the package is
installed): a `cutwin_backend` fixture and `--cutwin-backend=sim|gpu|both`.

A test that takes `cutwin_backend` runs once per selected backend with that backend
current, so the same kernel tests run on the simulator in CI and on both where a GPU
exists:

    def test_vadd(cutwin_backend):
        ...  # launches run on cutwin_backend ("sim" or "gpu")

The default is the simulator, or $CUTWIN_TEST_BACKEND. Asking for the GPU where there is
none is an error, not a skip.
"""
import os

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("cutwin")
    group.addoption("--cutwin-backend", choices=("sim", "gpu", "both"), default=None,
                    help="backends for tests using the cutwin_backend fixture (default: sim, or "
                         "$CUTWIN_TEST_BACKEND)")


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
