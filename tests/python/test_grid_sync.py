"""Grid synchronisation from Python: cooperative launches on every selected backend, the
resident-block limit, and a grid barrier some block never reaches."""
import numpy as np
import pytest

import cutwin
from cutwin import cuda, int32


@cuda.jit
def sequential_rows(M):
    # Row r needs row r - 1 complete, across all blocks: a grid sync per row.
    col = cuda.grid(1)
    g = cuda.cg.this_grid()
    rows, cols = M.shape
    for row in range(1, rows):
        opposite = cols - 1 - col
        M[row, col] = M[row - 1, opposite] + 1
        g.sync()


@cuda.jit
def half_the_blocks_leave(out):
    if cuda.blockIdx.x % 2 == 1:
        return
    cuda.cg.this_grid().sync()
    out[cuda.grid(1)] = 1


def test_sequential_rows_across_blocks(cutwin_backend):
    A = np.zeros((256, 512), np.int32)
    sequential_rows[512 // 32, 32](A)
    np.testing.assert_array_equal(A, np.repeat(np.arange(256, dtype=np.int32)[:, None], 512, axis=1))


def test_max_cooperative_grid_blocks_and_the_limit(cutwin_backend):
    overload = sequential_rows.compile((int32[:, ::1],))
    most = overload.max_cooperative_grid_blocks(1024)
    assert most >= 132  # at least one 1024-thread block per multiprocessor of an H200-class device
    assert overload.max_cooperative_grid_blocks(32) >= most
    with pytest.raises(cutwin.errors.LaunchError, match="COOPERATIVE_LAUNCH_TOO_LARGE"):
        sequential_rows[most + 1, 1024](cuda.device_array((2, (most + 1) * 1024), np.int32))


def test_a_block_that_never_syncs_is_reported():
    # A GPU would hang here, as in CUDA; the simulator reports the grid barrier that can
    # never complete, names a block that left, and keeps working.
    with cuda.use_backend("sim"):
        with pytest.raises(cutwin.errors.KernelError, match="can never complete") as e:
            half_the_blocks_leave[4, 32](np.zeros(128, np.int32))
        assert e.value.block[0] % 2 == 1
        A = np.zeros((3, 32), np.int32)
        sequential_rows[1, 32](A)
        assert (A[2] == 2).all()


def test_overloads_say_whether_they_are_cooperative(cutwin_backend):
    @cuda.jit
    def plain(out):
        out[cuda.grid(1)] = 1

    assert sequential_rows.compile("void(int32[:, ::1])").cooperative
    assert not plain.compile("void(float64[::1])").cooperative
