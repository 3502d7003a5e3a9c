"""cutwin as numba.cuda (cutwin/as_numba.py): CUTWIN_NUMBA=1, `python -m cutwin run`,
`pytest --cutwin-as-numba` and cutwin.install_as_numba() make every `numba.cuda` of a
process cutwin's, unchanged numba-cuda code runs on it, numba's CPU @jit keeps working, and
nothing falls back to numba's own CUDA. Each case runs in a fresh interpreter, whose site
reads cutwin-numba.pth as it would from site-packages."""
import os
import subprocess
import sys
import textwrap

import pytest

import cutwin

HAS_NUMBA = subprocess.run([sys.executable, "-c", "import numba"], capture_output=True).returncode == 0
needs_numba = pytest.mark.skipif(not HAS_NUMBA, reason="numba is not installed (the switch is tested without it "
                                 "through numba_cuda_mlir below)")
# numba-cuda's test utilities import on their own (they need filecheck, and the CUDA runtime's
# pip packages where no toolkit is installed); without them they cannot load beside cutwin either.
HAS_NUMBA_CUDA_TESTING = subprocess.run(
    [sys.executable, "-c", "import numpy as np; np.row_stack = np.vstack; import numba.cuda.testing"],
    capture_output=True, env={k: v for k, v in os.environ.items() if k != "CUTWIN_NUMBA"}).returncode == 0
needs_numba_cuda_testing = pytest.mark.skipif(not HAS_NUMBA_CUDA_TESTING, reason="numba-cuda's test utilities do "
                                              "not import here (filecheck or the CUDA runtime missing)")

# Where cutwin-numba.pth and the package are: site-packages when installed, else the build tree.
CUTWIN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(cutwin.__file__)))


@pytest.fixture
def python(tmp_path):
    """Runs code in a fresh interpreter; its site reads CUTWIN_DIR's .pth files."""
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    (site_dir / "sitecustomize.py").write_text("import site\nsite.addsitedir(%r)\n" % CUTWIN_DIR)

    def run(code=None, args=(), numba=True, env=None, check=True):
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("CUTWIN_NUMBA", "NUMBA_ENABLE_CUDASIM"))}
        environ["PYTHONPATH"] = os.pathsep.join([str(site_dir), CUTWIN_DIR])
        environ["CUTWIN_BACKEND"] = "sim"
        if numba:
            environ["CUTWIN_NUMBA"] = "1"
        environ.update(env or {})
        cmd = [sys.executable] + (["-c", textwrap.dedent(code)] if code is not None else []) + list(args)
        proc = subprocess.run(cmd, capture_output=True, text=True, env=environ, cwd=str(tmp_path), timeout=300)
        if check and proc.returncode != 0:
            raise AssertionError("exit %d\n%s\n%s" % (proc.returncode, proc.stdout, proc.stderr))
        return proc

    return run


def broken_package(tmp_path, package, message):
    """The child's environment with `package` shadowed by one whose import raises
    ImportError(message)."""
    broken = tmp_path / ("broken-" + package)
    (broken / package).mkdir(parents=True)
    (broken / package / "__init__.py").write_text("raise ImportError(%r)\n" % message)
    return {"PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(broken), CUTWIN_DIR])}


# Checks, in the child, that numba.cuda is cutwin's and that a kernel written for numba-cuda
# gives NumPy's result; prints OK.
KERNEL_CHECK = """
    import sys
    import numpy as np
    import cutwin
    from numba import cuda

    assert cuda.jit is cutwin.cuda.jit, cuda.jit

    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    x = np.arange(100, dtype=np.float32)
    y = np.ones(100, dtype=np.float32)
    d_out = cuda.device_array_like(x)
    saxpy[4, 32](np.float32(2.5), cuda.to_device(x), cuda.to_device(y), d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), np.float32(2.5) * x + y)
    print("OK")
"""


@needs_numba
def test_environment_variable_makes_every_numba_cuda_cutwins(python):
    out = python(KERNEL_CHECK + """
    import numba
    import numba.cuda as c
    from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32
    from numba.cuda.cudadrv.driver import Device
    import numba.cuda.cudadrv.devicearray as devicearray
    from numba_cuda_mlir import cuda as mlir_cuda
    import numba_cuda_mlir.cuda.random as mlir_random

    assert c is cuda and numba.cuda is cuda and mlir_cuda is cuda
    assert create_xoroshiro128p_states is cutwin.cuda.random.create_xoroshiro128p_states
    assert mlir_random.xoroshiro128p_uniform_float32 is xoroshiro128p_uniform_float32
    assert numba.cuda.to_device is cutwin.cuda.to_device
    assert Device(0).name == cutwin.cuda.get_current_device().name
    assert devicearray.DeviceNDArray is cutwin.cuda.DeviceNDArray
    # No numba.cuda module of the process is numba-cuda's implementation.
    from cutwin import as_numba
    for name, module in list(sys.modules.items()):
        if name.startswith("numba.cuda"):
            assert isinstance(module, as_numba.RedirectedModule) or as_numba._is_numba_own(name), name
    assert "numba.cuda.simulator" not in sys.modules and "numba.cuda.cudadrv.nvvm" not in sys.modules

    @numba.njit  # numba's CPU compiler is untouched
    def cpu_add(a, b):
        return a + b

    assert cpu_add(2, 3) == 5
    print("ALL")
    """)
    assert out.stdout.split() == ["OK", "ALL"]


@needs_numba
def test_without_the_switch_numba_cuda_stays_numbas(python):
    out = python("""
    import numpy as np
    np.row_stack = getattr(np, "row_stack", np.vstack)
    from numba import cuda
    import cutwin
    print(cuda.jit is cutwin.cuda.jit, type(cuda).__name__)
    """, numba=False, env={"CUTWIN_NUMBA": "0"})
    assert out.stdout.split() == ["False", "module"]


def test_numba_cuda_mlir_spelling(python):
    """`from numba_cuda_mlir import cuda` is cutwin's (numba-cuda-mlir need not be installed,
    and its compiler is never loaded where it is)."""
    out = python("""
    import numpy as np
    import cutwin
    from numba_cuda_mlir import cuda

    @cuda.jit
    def square(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * a[i]

    a = np.arange(10, dtype=np.int32)
    square[1, 32](a)
    np.testing.assert_array_equal(a, np.arange(10) ** 2)
    print(cuda.jit is cutwin.cuda.jit)
    """, env={"PYTHONNOUSERSITE": "1"})
    assert out.stdout.split() == ["True"]


@needs_numba
def test_python_m_cutwin_run_and_child_processes(python, tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent(KERNEL_CHECK) + textwrap.dedent("""
        import subprocess
        print(sys.argv[1:])
        child = subprocess.run([sys.executable, "-c",
                                "from numba import cuda; import cutwin; print(cuda.jit is cutwin.cuda.jit)"],
                               capture_output=True, text=True)
        print(child.stdout.strip(), child.stderr.strip()[-300:])
    """))
    out = python(args=["-m", "cutwin", "run", str(prog), "first", "--second"], numba=False)
    assert out.stdout.split("\n")[:3] == ["OK", "['first', '--second']", "True "]


@needs_numba
def test_install_as_numba_in_a_notebook(python):
    out = python("""
    import cutwin
    cutwin.install_as_numba()
    """ + KERNEL_CHECK, numba=False)
    assert out.stdout.split() == ["OK"]


@needs_numba
def test_install_after_numba_cuda_was_imported_warns_and_replaces(python):
    out = python("""
    import warnings
    import numpy as np
    np.row_stack = getattr(np, "row_stack", np.vstack)
    import numba.cuda as early
    import cutwin
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cutwin.install_as_numba()
    from numba import cuda
    print(early.jit is cutwin.cuda.jit, cuda.jit is cutwin.cuda.jit,
          any("imported before the switch" in str(w.message) for w in caught))
    """, numba=False)
    assert out.stdout.split() == ["False", "True", "True"]


@needs_numba
def test_pytest_option(python, tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text("from numba import cuda  # imported before any test module\n")
    (suite / "test_it.py").write_text(textwrap.dedent("""
        import numpy as np
        from numba import cuda
        import cutwin

        @cuda.jit
        def fill(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = 1.5

        def test_numba_cuda_is_cutwin():
            assert cuda.jit is cutwin.cuda.jit
            a = np.zeros(8)
            fill[1, 8](a)
            assert (a == 1.5).all()
    """))
    out = python(args=["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "cutwin.pytest_plugin",
                       "--cutwin-as-numba", str(suite)], numba=False)
    assert "1 passed" in out.stdout


@needs_numba_cuda_testing
def test_numba_cuda_test_utilities_ask_cutwin(python):
    """numba.cuda.testing (numba-cuda's own, where installed) reaches cutwin's devices."""
    out = python("""
    from numba.cuda.testing import CUDATestCase, skip_on_cudasim
    import numba.cuda.testing as testing
    from numba import cuda
    import cutwin
    print(cuda.jit is cutwin.cuda.jit, testing.driver is cutwin.cuda.cudadrv.driver,
          issubclass(CUDATestCase, __import__("unittest").TestCase))
    """)
    assert out.stdout.split() == ["True", "True", "True"]


@needs_numba_cuda_testing
def test_numba_cudas_own_helper_modules_see_cutwin(python):
    """numba-cuda's own modules that are not its implementation (its tests' helpers among
    them) are loaded with the switch in place: their `from numba import cuda` is cutwin's,
    whatever loaded numba-cuda's test utilities first."""
    out = python("""
    import numba.cuda.testing
    from numba.cuda.tests.cudapy import recursion_usecases
    import cutwin
    print(recursion_usecases.cuda.jit is cutwin.cuda.jit, type(recursion_usecases.fib1).__module__)
    """)
    assert out.stdout.split() == ["True", "cutwin.cuda.dispatcher"]


@needs_numba
def test_numba_cuda_internals_are_not_provided(python):
    out = python("""
    import numba.cuda.lowering as lowering
    try:
        lowering.Lower
    except AttributeError as e:
        print(e)
    """)
    assert "numba.cuda.lowering.Lower is not provided by cutwin" in out.stdout


@needs_numba
def test_numba_cuda_utilities_that_cannot_load_fail_loudly(python, tmp_path):
    """A numba-cuda test utility that cannot import (here: its filecheck dependency hidden)
    is an ImportError naming the cause, never numba-cuda's module run with the switch half in
    place."""
    out = python("""
    for attempt in range(2):  # a second try fails as loudly as the first
        try:
            import numba.cuda.testing
        except ImportError as e:
            print(attempt, "numba-cuda's numba.cuda.testing could not be loaded beside cutwin" in str(e),
                  "filecheck is hidden" in str(e.__cause__))
    """, env=broken_package(tmp_path, "filecheck", "filecheck is hidden"))
    assert out.stdout.split() == ["0", "True", "True", "1", "True", "True"]


@needs_numba
def test_a_switch_that_cannot_install_itself_fails_loudly(python, tmp_path):
    out = python("from numba import cuda\nprint(cuda)",
                 env=broken_package(tmp_path, "cutwin", "the extension cannot be loaded"), check=False)
    assert out.returncode != 0
    assert "CUTWIN_NUMBA=1 asks for cutwin as numba.cuda, but cutwin could not install itself" in out.stderr
    assert "the extension cannot be loaded" in out.stderr


@needs_numba
def test_names_cutwin_lacks_are_import_errors(python):
    """`from numba.cuda.x import name` where cutwin's x has no such name is an ImportError
    naming it, never a RecursionError (numba-cuda's own finder, asked for a submodule
    `x.name` on an empty path, looks for it again and again)."""
    out = python("""
    try:
        from numba.cuda.mathimpl import lower
    except ImportError as e:
        print(type(e).__name__, "cannot import name 'lower'" in str(e))
    """)
    assert out.stdout.split() == ["ImportError", "True"]


@needs_numba
def test_extension_api_registrations_import_and_kernels_name_them(python):
    """numba's extension API (typeof_impl, register_model, make_attribute_wrapper,
    type_callable, cudaimpl.lower) accepts registrations, so modules defining extensions
    import; a kernel using the extended type fails to compile naming it, and the process's
    other kernels run."""
    out = python("""
    import numpy as np
    from numba import cuda
    from numba.cuda import types
    from numba.cuda.extending import (core_models, make_attribute_wrapper, register_model, type_callable,
                                      typeof_impl)
    from numba.cuda.cudaimpl import lower

    class Point:
        pass

    class PointType(types.Type):
        def __init__(self):
            super().__init__(name="PointType")

    @typeof_impl.register(Point)
    def typeof_point(val, c):
        return PointType()

    @register_model(PointType)
    class PointModel(core_models.StructModel):
        pass

    make_attribute_wrapper(PointType, "x", "x")

    @type_callable(Point)
    def type_point(context):
        return lambda x: PointType()

    @lower(Point, types.int64)
    def lower_point(context, builder, sig, args):
        raise AssertionError("numba's lowering hooks never run")

    @cuda.jit
    def uses_point(out):
        p = Point(1)  # noqa: F841
        out[0] = 1

    @cuda.jit
    def plain(out):
        out[0] = 2

    out = np.zeros(1)
    try:
        uses_point[1, 1](out)
    except Exception as e:
        print(type(e).__name__, "'Point': Point is a numba extension (typeof_impl.register, type_callable, lower)" in str(e))
    plain[1, 1](out)
    print(out[0])
    """)
    assert out.stdout.split() == ["CompileError", "True", "2.0"]
