"""Kernels of thousands of statements (generated code): they compile in time linear in their
size (bench/compile_size.py measures it) because the optimisations whose time grows faster
are left out for them (frontend/ir/passes.h, backend_sim/jit.cpp); their results are those
of the same arithmetic in NumPy."""
import importlib.util

import numpy as np
import pytest

from cutwin import cuda

STATEMENTS = 2000


@pytest.mark.parametrize("boundscheck", [True, False])
def test_a_kernel_of_thousands_of_statements_computes_what_numpy_does(tmp_path, cutwin_backend, boundscheck):
    # Each statement updates the thread's element from another array's (with and without
    # bounds checks, indices with Python's modulo); a division, which no multiply-add contracts,
    # so that NumPy's operations are the kernel's, in the same order.
    lines = ["from cutwin import cuda", "", "", "@cuda.jit(boundscheck=%s)" % boundscheck, "def big(a, out):",
             "    i = cuda.grid(1)",
             "    if i < out.size:"]
    lines += ["        out[i] += a[(i * %d + %d) %% 64] / %d.5" % (k + 1, k, k % 7 + 1) for k in range(STATEMENTS)]
    path = tmp_path / ("generated_kernel_%s.py" % boundscheck)
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    a = np.random.default_rng(5).uniform(-1, 1, 64)
    out = np.zeros(100)
    module.big[2, 64](a, out)
    i = np.arange(100)
    want = np.zeros(100)
    for k in range(STATEMENTS):
        want += a[(i * (k + 1) + k) % 64] / (k % 7 + 1.5)
    np.testing.assert_array_equal(out, want)
