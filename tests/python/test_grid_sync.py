"""Grid synchronisation from Python: cooperative launches on every selected backend, the
resident-block limit, and a grid barrier some block never reaches."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cutwin
from cutwin import cuda, int32, int64


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


@cuda.jit
def rotate_across_the_grid(x, out):
    i = cuda.grid(1)
    x[i] = i
    cuda.cg.this_grid().sync()
    out[i] = x[(i + 1) % x.shape[0]]


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


@pytest.mark.parametrize("block", [32, 256, 1024])
def test_a_launch_at_the_resident_limit_runs_every_time(cutwin_backend, block):
    # Every thread of the grid resident at once: up to 2,048 per multiprocessor, 270,336
    # on an H100/H200-class device, each a simulated thread with its own guarded stack.
    # Where the kernel predates guard regions (Linux 6.13) and the mapping limit is too low,
    # the simulator refuses the launch, saying so (see the next test); nowhere else.
    most = rotate_across_the_grid.compile((int64[::1], int64[::1])).max_cooperative_grid_blocks(block)
    n = most * block
    for _ in range(3):
        x, out = cuda.to_device(np.zeros(n, np.int64)), cuda.device_array(n, np.int64)
        try:
            rotate_across_the_grid[most, block](x, out)
        except cutwin.errors.LaunchError as e:
            assert cuda.current_backend() == "sim" and linux_version() < (6, 13) and "vm.max_map_count" in str(e)
            return
        np.testing.assert_array_equal(out.copy_to_host(), (np.arange(n) + 1) % n)


def linux_version():
    return tuple(int(p) for p in os.uname().release.split("-")[0].split(".")[:2])


def test_without_guard_regions_a_launch_past_the_mapping_limit_is_refused_clearly():
    # Kernels before Linux 6.13 guard each stack with mprotect: two memory mappings a
    # stack. Past the process's limit the launch is refused, saying why, and the process
    # keeps working (guards and all: an overflow is still reported).
    program = textwrap.dedent("""
        import numpy as np
        import cutwin
        from cutwin import cuda, int64
        from test_grid_sync import rotate_across_the_grid

        most = rotate_across_the_grid.compile((int64[::1], int64[::1])).max_cooperative_grid_blocks(256)
        n = most * 256
        try:
            rotate_across_the_grid[most, 256](cuda.to_device(np.zeros(n, np.int64)), cuda.device_array(n, np.int64))
            print("launched")  # a host whose vm.max_map_count allows it
        except cutwin.errors.LaunchError as e:
            assert "vm.max_map_count" in str(e) and "guard" in str(e), e
            print("refused")
        x, out = cuda.to_device(np.zeros(64, np.int64)), cuda.device_array(64, np.int64)
        rotate_across_the_grid[2, 32](x, out)
        assert (out.copy_to_host() == (np.arange(64) + 1) % 64).all()

        @cuda.jit
        def deep(a, n):  # (a waiting loop keeps it on fibers, its local array on their stacks)
            big = cuda.local.array(4096, int64)
            big[n] = 1
            while cuda.atomic.add(a, 0, 0) < 0:
                pass
            cuda.syncthreads()
            a[0] = big[0]

        try:
            deep[1, 2](np.zeros(1, np.int64), 4095)
        except cutwin.errors.KernelError as e:
            assert "stack" in str(e), e
            print("overflow reported")
    """)
    env = dict(os.environ, CUTWIN_SIM_GUARD_REGIONS="0", CUTWIN_BACKEND="sim", CUTWIN_SIM_STACK_KB="16",
               PYTHONPATH=os.pathsep.join([os.path.dirname(__file__)] + sys.path))
    r = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split()
    assert lines[0] in ("launched", "refused") and lines[-2:] == ["overflow", "reported"], r.stdout
    with open("/proc/sys/vm/max_map_count") as f:
        if int(f.read()) < 2 * most_threads():
            assert lines[0] == "refused"


def most_threads():
    return rotate_across_the_grid.compile((int64[::1], int64[::1])).max_cooperative_grid_blocks(256) * 256


@cuda.jit
def wait_for_the_last_block(flag, out):
    # Before the first grid sync, every block's first thread waits for the last block's:
    # a cooperative launch keeps all blocks resident, so the last one runs meanwhile.
    if cuda.threadIdx.x == 0:
        if cuda.blockIdx.x == cuda.gridDim.x - 1:
            cuda.atomic.exch(flag, 0, 1)
        else:
            while cuda.atomic.add(flag, 0, 0) == 0:
                pass
    cuda.cg.this_grid().sync()
    out[cuda.grid(1)] = cuda.atomic.add(flag, 0, 0) + cuda.blockIdx.x


def test_a_block_waiting_for_another_block_of_a_cooperative_launch(cutwin_backend):
    flag = np.zeros(1, np.int32)
    out = np.zeros(64 * 32, np.int32)
    wait_for_the_last_block[64, 32](flag, out)
    np.testing.assert_array_equal(out, 1 + np.repeat(np.arange(64), 32))
