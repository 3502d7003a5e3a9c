"""The Python examples: each checks its results against NumPy on every selected backend,
and each is a numba-cuda program but for its import line (run under numba's simulator
with only that line changed, or under numba-cuda on a GPU for the warp examples)."""
import importlib.util
import os
import subprocess
import sys

import pytest

from cutwin import cuda

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python")
NAMES = ["vadd", "matmul", "block_sum", "grid3d", "random_fill", "random_3d", "heat_1d", "sessionize",
         "warp_reduce", "warp_aggregated_atomics"]
# numba's simulator has no warp operations: these run under numba-cuda on a GPU where
# there is one; elsewhere the test checks that numba's simulator indeed lacks them.
WARP = {"warp_reduce": "shfl_down_sync", "warp_aggregated_atomics": "ballot_sync"}
SMALL = {"vadd": ["1000"], "matmul": ["20", "17", "35"], "block_sum": ["3000"], "grid3d": ["6", "5", "7"],
         "random_fill": ["2000"], "random_3d": ["10", "9", "11"],
         # numba's simulator syncs a grid of one block only
         "heat_1d": ["201", "50"], "sessionize": ["64"], "warp_reduce": ["5000"],
         "warp_aggregated_atomics": ["5000"]}


def load(name):
    spec = importlib.util.spec_from_file_location("example_" + name, os.path.join(EXAMPLES, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", NAMES)
def test_example_against_numpy(name, cutwin_backend):
    load(name).main()


@pytest.mark.parametrize("name", NAMES)
def test_example_is_numba_cuda_but_for_the_import(name, tmp_path):
    source = open(os.path.join(EXAMPLES, name + ".py")).read()
    assert source.count("from cutwin import cuda") == 1
    numba_source = source.replace("from cutwin import cuda", "from numba import cuda")
    numba_source = numba_source.replace("from cutwin.cuda.", "from numba.cuda.")
    script = tmp_path / (name + ".py")
    script.write_text("import numpy as np\nnp.row_stack = np.vstack  # numba-cuda 0.30 refers to it\n" + numba_source)
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    on_gpu = name in WARP and cuda.gpu_available()
    if on_gpu:
        del env["NUMBA_ENABLE_CUDASIM"]
    run = subprocess.run([sys.executable, "-W", "ignore", str(script)] + SMALL[name], env=env,
                         capture_output=True, text=True, timeout=600)
    if name in WARP and not on_gpu:
        assert run.returncode != 0 and WARP[name] in run.stderr, run.stdout + run.stderr
        return
    assert run.returncode == 0, run.stdout + run.stderr
    assert "OK" in run.stdout
