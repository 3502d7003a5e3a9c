"""The sanitizer's corpus: kernels with one planted memory bug each, and correct kernels
whose synchronisation is easy to misjudge. A bug's lines carry a `# <-` marker: a report
must name exactly those lines (both accesses of a race, or the read of unwritten memory),
its kind and the memory. Each case builds fresh arguments, so a case runs alone, on cutwin
(`CORPUS_CUDA=cutwin`, the default) or on numba-cuda (`CORPUS_CUDA=numba`, for running the
corpus under NVIDIA's compute-sanitizer on a GPU: run.py).
"""
import inspect
import os
from dataclasses import dataclass, field

import numpy as np

if os.environ.get("CORPUS_CUDA", "cutwin") == "numba":
    if not hasattr(np, "row_stack"):  # numba-cuda 0.30 overloads it; NumPy 2.5 removed it
        np.row_stack = np.vstack
    from numba import cuda
else:
    from cutwin import cuda

from numba import float32, int32

N = 256


@dataclass
class Case:
    name: str
    kernel: object
    griddim: object
    blockdim: object
    args: object  # () -> tuple of arguments (fresh each run)
    bug: str = ""  # "race" or "uninit"; "" for a correct kernel
    memory: str = ""  # "shared", "global" or "local"
    what: str = ""  # the bug, in words
    dynshared: int = 0
    helpers: list = field(default_factory=list)  # device functions whose marked lines count too

    def marked_lines(self):
        """The lines of the kernel (and its helpers) marked `# <-`."""
        lines = set()
        for f in [self.kernel] + self.helpers:
            py = getattr(f, "py_func", f)
            src, first = inspect.getsourcelines(py)
            lines |= {first + i for i, text in enumerate(src) if "# <-" in text}
        return lines

    def launch(self, checks=None):
        """Runs the case; `checks`: compiled with cuda.jit(sanitize=checks) (cutwin), else
        as the kernel was declared (CUTWIN_SANITIZE decides)."""
        kernel = self.kernel
        if checks is not None:
            key = (self.name, checks)
            if key not in _SANITIZED:
                _SANITIZED[key] = cuda.jit(sanitize=checks)(self.kernel.py_func)
            kernel = _SANITIZED[key]
        args = self.args()
        if self.dynshared:
            kernel[self.griddim, self.blockdim, 0, self.dynshared](*args)
        else:
            kernel[self.griddim, self.blockdim](*args)
        cuda.synchronize()
        return args


_SANITIZED = {}


CASES = []


def case(griddim, blockdim, args, bug="", memory="", what="", dynshared=0, helpers=()):
    def register(kernel):
        CASES.append(Case(kernel.__name__ if hasattr(kernel, "__name__") else str(kernel), kernel, griddim,
                          blockdim, args, bug, memory, what, dynshared, list(helpers)))
        return kernel
    return register


def f32(n=N, fill=None):
    a = np.arange(n, dtype=np.float32) if fill is None else np.full(n, fill, np.float32)
    return a


def zeros(n=N, dtype=np.float32):
    return np.zeros(n, dtype)


# ---------------------------------------------------------------------------------------------
# Races in shared memory

@case(1, 64, lambda: (f32(64), zeros(1)), "race", "shared", "tree reduction without syncthreads() in its loop")
@cuda.jit
def reduction_missing_barrier(a, out):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]
    cuda.syncthreads()
    s = 32
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]  # <-
        s //= 2
    if t == 0:
        out[0] = sm[0]


@case(1, (8, 8), lambda: (np.ones((8, 8), np.float32), np.ones((8, 8), np.float32), zeros((8, 8))), "race",
      "shared", "tiled matrix product reading its tile without syncthreads() after loading it")
@cuda.jit
def matmul_tile_missing_barrier(a, b, c):
    sa = cuda.shared.array((8, 8), float32)
    sb = cuda.shared.array((8, 8), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    sa[ty, tx] = a[ty, tx]  # <-
    sb[ty, tx] = b[ty, tx]
    acc = float32(0)
    for k in range(8):
        acc += sa[ty, k] * sb[k, tx]  # <-
    c[ty, tx] = acc


@case(1, 64, lambda: (f32(64), zeros(64)), "race", "shared", "a neighbour's element read right after the writes")
@cuda.jit
def neighbour_read_after_write(a, out):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]  # <-
    out[t] = sm[(t + 1) % 64]  # <-


@case(1, 64, lambda: (f32(64), zeros(64)), "race", "shared", "in-place shift: a write over an element a neighbour reads")
@cuda.jit
def shift_write_after_read(a, out):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]
    cuda.syncthreads()
    if t > 0:
        sm[t] = sm[t - 1]  # <-
    cuda.syncthreads()
    out[t] = sm[t]


@case(1, 32, lambda: (zeros(1),), "race", "shared", "every thread writes its own value to one element")
@cuda.jit
def write_write_different_values(out):
    sm = cuda.shared.array(1, float32)
    sm[0] = cuda.threadIdx.x  # <-
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        out[0] = sm[0]


@case(1, 64, lambda: (zeros(64),), "race", "shared",
      "one thread reads an element, updates it and reads it again; the others read it with no barrier")
@cuda.jit
def update_then_read_without_barrier(out):
    sm = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    if t == 0:
        sm[0] = 1.0
    cuda.syncthreads()
    if t == 0:
        x = sm[0]
        sm[0] = x + 1.0  # <-
        x = sm[0]
        out[t] = x
    else:
        out[t] = sm[0]  # <-


@case(1, 32, lambda: (f32(32), zeros(1)), "race", "shared",
      "warp-synchronous reduction without syncwarp() (wrong since Volta's independent threads)")
@cuda.jit
def warp_reduction_without_syncwarp(a, out):
    sm = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]
    cuda.syncthreads()
    s = 16
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]  # <-
        s //= 2
    if t == 0:
        out[0] = sm[0]


@case(1, 32, lambda: (zeros(32),), "race", "shared", "syncwarp() whose mask leaves out the lanes that wrote")
@cuda.jit
def syncwarp_partial_mask(out):
    sm = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    sm[t] = t  # <-
    if t < 16:
        cuda.syncwarp(0x0000FFFF)
        out[t] = sm[t + 16]  # <-


@case(1, 64, lambda: (np.arange(64, dtype=np.int32) % 4, np.zeros(4, np.int32)), "race", "shared",
      "shared histogram counted with plain increments")
@cuda.jit
def histogram_plain_increment(x, out):
    h = cuda.shared.array(4, int32)
    t = cuda.threadIdx.x
    if t < 4:
        h[t] = 0
    cuda.syncthreads()
    h[x[t]] += 1  # <-
    cuda.syncthreads()
    if t < 4:
        out[t] = h[t]


@case(1, 64, lambda: (np.zeros(1, np.int32),), "race", "shared", "a plain read of a counter others add to atomically")
@cuda.jit
def atomic_and_plain_read(out):
    c = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t == 0:
        c[0] = 0
    cuda.syncthreads()
    cuda.atomic.add(c, 0, 1)  # <-
    if t == 5:
        out[0] = c[0]  # <-


@case(1, 64, lambda: (f32(64 * 4), zeros(64)), "race", "shared",
      "double buffering without the barrier before a buffer is written again")
@cuda.jit
def double_buffer_missing_barrier(a, out):
    buf = cuda.shared.array((2, 64), float32)
    t = cuda.threadIdx.x
    acc = float32(0)
    buf[0, t] = a[t]
    cuda.syncthreads()
    for step in range(1, 4):
        buf[step % 2, t] = a[step * 64 + t]  # <-
        acc += buf[(step - 1) % 2, (t + 1) % 64]  # <-
    out[t] = acc


@case(1, (16, 16), lambda: (np.arange(256, dtype=np.float32).reshape(16, 16), zeros((16, 16))), "race", "shared",
      "transpose through a tile without syncthreads()")
@cuda.jit
def transpose_missing_barrier(a, out):
    tile = cuda.shared.array((16, 16), float32)
    x, y = cuda.threadIdx.x, cuda.threadIdx.y
    tile[y, x] = a[y, x]  # <-
    out[y, x] = tile[x, y]  # <-


@case(1, 64, lambda: (f32(66), zeros(64)), "race", "shared", "a stencil reading its neighbours without a barrier after the loads")
@cuda.jit
def stencil_missing_barrier(a, out):
    sm = cuda.shared.array(66, float32)
    t = cuda.threadIdx.x
    sm[t + 1] = a[t + 1]  # <-
    if t == 0:
        sm[0] = a[0]
    if t == 63:
        sm[65] = a[65]
    out[t] = sm[t] + sm[t + 1] + sm[t + 2]  # <-


@case(1, 32, lambda: (f32(32), zeros(32)), "race", "shared", "dynamic shared memory read before the other thread's write is ordered",
      dynshared=32 * 4)
@cuda.jit
def dynamic_shared_race(a, out):
    sm = cuda.shared.array(0, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]  # <-
    out[t] = sm[31 - t]  # <-


@case(1, 64, lambda: (f32(64), zeros(64)), "race", "shared", "thread 0's broadcast read without a barrier")
@cuda.jit
def broadcast_missing_barrier(a, out):
    v = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    if t == 0:
        v[0] = a[0] * 2  # <-
    out[t] = a[t] + v[0]  # <-


@case(1, 64, lambda: (f32(64), zeros(64)), "race", "shared",
      "NVIDIA's racecheck sample (block level): a neighbour's element read without syncthreads()")
@cuda.jit
def compute_sanitizer_block_hazard(a, out):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]  # <-
    out[t] = sm[(t + 1) % cuda.blockDim.x] + sm[t]  # <-


@case(1, 64, lambda: (f32(64), zeros(64)), "race", "shared",
      "NVIDIA's racecheck sample (warp level): lanes of one warp exchange through shared memory without syncwarp()")
@cuda.jit
def compute_sanitizer_warp_hazard(a, out):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]  # <-
    lane = t % 32
    out[t] = sm[t - lane + (lane + 1) % 32]  # <-


@case(1, 64, lambda: (f32(64), zeros(64)), "race", "shared",
      "a neighbour's element read before its owner wrote it (a race, not an unwritten read)")
@cuda.jit
def neighbour_read_before_its_write(a, out):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]  # <-
    if t < 63:
        out[t] = sm[t + 1]  # <-


@case(1, 32, lambda: (zeros(1),), "race", "shared", "a lane writes again after a syncwarp() another lane reads without")
@cuda.jit
def write_after_syncwarp_read_without(out):
    sm = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    sm[t] = t
    cuda.syncwarp()
    if t == 0:
        sm[0] = 42  # <-
    if t == 1:
        out[0] = sm[0]  # <-


@case(1, 32, lambda: (zeros(32),), "race", "shared", "a lane reads again after a syncwarp() another lane writes without")
@cuda.jit
def read_after_syncwarp_written_without(out):
    sm = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    sm[t] = t
    cuda.syncwarp()
    v = sm[0]
    cuda.syncwarp()
    if t == 0:
        v += sm[0]  # <-
    if t == 1:
        sm[0] = 7  # <-
    out[t] = v


# ---------------------------------------------------------------------------------------------
# Races in global memory

@case(4, 32, lambda: (zeros(1),), "race", "global", "two blocks update one element with a plain read-modify-write")
@cuda.jit
def blocks_update_one_element(out):
    if cuda.threadIdx.x == 0:
        out[0] += 1  # <-


@case(2, 32, lambda: (zeros(2),), "race", "global", "every thread of a block writes its own value to the block's element")
@cuda.jit
def block_result_written_by_all(out):
    out[cuda.blockIdx.x] = cuda.threadIdx.x  # <-


@case(4, 64, lambda: (f32(4 * 64 + 2),), "race", "global", "in-place stencil: neighbours read what others write")
@cuda.jit
def inplace_stencil(a):
    i = cuda.grid(1) + 1
    a[i] = (a[i - 1] + a[i + 1]) / 2  # <-


@case(2, 64, lambda: (np.zeros(1, np.int32),), "race", "global", "a counter incremented with a plain read-modify-write")
@cuda.jit
def global_counter_plain(c):
    c[0] = c[0] + 1  # <-


@case(4, 32, lambda: (f32(128), zeros(128)), "race", "global", "a cooperative kernel missing the grid sync between phases")
@cuda.jit
def grid_phase_missing_sync(a, tmp):
    i = cuda.grid(1)
    n = cuda.gridsize(1)
    g = cuda.cg.this_grid()
    tmp[i] = a[i] * 2  # <-
    a[i] = tmp[(i + 32) % n]  # <-  (another block's element: a g.sync() belongs before this line)
    g.sync()
    a[i] += 1


@case(1, 64, lambda: (f32(64), zeros(64)), "race", "global", "a block exchanging values through global memory without syncthreads()")
@cuda.jit
def global_exchange_missing_barrier(a, tmp):
    t = cuda.threadIdx.x
    tmp[t] = a[t] * 2  # <-
    a[t] = tmp[63 - t]  # <-


@case(2, 64, lambda: (np.zeros(1, np.int32), np.zeros(1, np.int32)), "race", "global",
      "a plain read of a counter other blocks add to atomically")
@cuda.jit
def global_atomic_and_plain(c, out):
    cuda.atomic.add(c, 0, 1)  # <-
    if cuda.blockIdx.x == 1 and cuda.threadIdx.x == 0:
        out[0] = c[0]  # <-


@cuda.jit(device=True)
def accumulate(out, v):
    out[0] = out[0] + v  # <-


@case(2, 16, lambda: (zeros(1),), "race", "global", "a race inside a device function", helpers=[accumulate])
@cuda.jit
def race_in_device_function(out):
    accumulate(out, 1.0)


@case(4, 64, lambda: (f32(4 * 64 + 1),), "race", "global", "each thread reads the element the next thread overwrites")
@cuda.jit
def write_after_read_global(a):
    i = cuda.grid(1)
    v = a[i + 1]  # <-
    a[i] = v  # <-


def _unwritten_scratch():
    return (np.arange(64, dtype=np.float32), cuda.device_array(64, np.float32), np.zeros(64, np.float32))


@case(1, 64, _unwritten_scratch, "race", "global",
      "a scratch device_array's neighbour read before its owner wrote it (a race, not an unwritten read)")
@cuda.jit
def scratch_read_before_its_write(a, tmp, out):
    t = cuda.threadIdx.x
    tmp[t] = a[t] * 2  # <-
    if t < 63:
        out[t] = tmp[t + 1]  # <-


@case((2, 2), (8, 8), lambda: (zeros((4, 4)),), "race", "global", "a 2D array's element written by many threads")
@cuda.jit
def race_2d(out):
    x, y = cuda.grid(2)
    out[y % 4, x % 4] = x + y  # <-


# ---------------------------------------------------------------------------------------------
# Reads of unwritten memory

@case(1, 64, lambda: (zeros(1),), "uninit", "shared", "a shared array summed that nothing loaded")
@cuda.jit
def shared_never_written(out):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    cuda.syncthreads()
    if t == 0:
        s = float32(0)
        for k in range(64):
            s += sm[k]  # <-
        out[0] = s


@case(1, 64, lambda: (f32(64), zeros(64)), "uninit", "shared", "half of a shared array loaded, all of it read")
@cuda.jit
def shared_half_written(a, out):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    if t < 32:
        sm[t] = a[t]
    cuda.syncthreads()
    out[t] = sm[t]  # <-


@case(1, 8, lambda: (zeros(8),), "uninit", "local", "a local array read before it is written")
@cuda.jit
def local_never_written(out):
    tmp = cuda.local.array(4, float32)
    acc = float32(0)
    for k in range(4):
        acc += tmp[k]  # <-
    out[cuda.threadIdx.x] = acc


@case(1, 8, lambda: (zeros(8),), "uninit", "local", "a local array written in part, read in full")
@cuda.jit
def local_half_written(out):
    tmp = cuda.local.array(8, float32)
    for k in range(4):
        tmp[k] = k
    acc = float32(0)
    for k in range(8):
        acc += tmp[k]  # <-
    out[cuda.threadIdx.x] = acc


def _device_array_args():
    return (cuda.device_array(64, np.float32), np.zeros(64, np.float32))


@case(1, 64, _device_array_args, "uninit", "global", "cuda.device_array() read before anything wrote it")
@cuda.jit
def device_array_never_written(d, out):
    t = cuda.threadIdx.x
    out[t] = d[t]  # <-


def _device_array_like_args():
    host = np.ones(64, np.float32)
    d = cuda.device_array_like(host)
    return (d, cuda.to_device(host))


@case(1, 64, _device_array_like_args, "uninit", "global", "device_array_like() used as if it held the host array")
@cuda.jit
def device_array_like_never_written(d, out):
    t = cuda.threadIdx.x
    out[t] += d[t]  # <-


@case(1, 32, lambda: (np.zeros(1, np.int32),), "uninit", "shared", "an atomic counter in shared memory never zeroed")
@cuda.jit
def atomic_on_unzeroed_counter(out):
    c = cuda.shared.array(1, int32)
    cuda.syncthreads()
    cuda.atomic.add(c, 0, 1)  # <-
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        out[0] = c[0]


def _initcheck_args():
    d = cuda.device_array(64, np.float32)
    return (d,)


@case(1, 64, _initcheck_args, "uninit", "global",
      "NVIDIA's initcheck sample: a kernel adds to memory no memset cleared")
@cuda.jit
def compute_sanitizer_initcheck(d):
    t = cuda.threadIdx.x
    d[t] = d[t] + 1  # <-


# ---------------------------------------------------------------------------------------------
# Correct kernels whose synchronisation is easy to misjudge

@case(2, 64, lambda: (f32(128), zeros(2)))
@cuda.jit
def correct_tree_reduction(a, out):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    sm[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    s = 32
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sm[0]


@case(2, 64, lambda: (np.arange(128, dtype=np.int32) % 8, np.zeros(8, np.int32)))
@cuda.jit
def correct_shared_histogram_atomics(x, out):
    h = cuda.shared.array(8, int32)
    t = cuda.threadIdx.x
    if t < 8:
        h[t] = 0
    cuda.syncthreads()
    cuda.atomic.add(h, x[cuda.grid(1)], 1)
    cuda.syncthreads()
    if t < 8:
        cuda.atomic.add(out, t, h[t])


@case(4, 64, lambda: (f32(256), zeros(1)))
@cuda.jit
def correct_global_atomic_sum(a, out):
    cuda.atomic.add(out, 0, a[cuda.grid(1)])


@case(4, 64, lambda: (f32(256), np.zeros(1, np.int32)))
@cuda.jit
def correct_same_value_writes(a, found):
    if a[cuda.grid(1)] > 100:
        found[0] = 1


@case(1, 64, lambda: (f32(64), zeros(64), 32))
@cuda.jit
def correct_barrier_in_uniform_branch(a, out, n):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]
    if n > 16:  # the same for every thread of the block
        cuda.syncthreads()
        out[t] = sm[63 - t]
    else:
        out[t] = sm[t]


@case(4, 32, lambda: (f32(128), zeros(128)))
@cuda.jit
def correct_grid_sync_phases(a, tmp):
    i = cuda.grid(1)
    n = cuda.gridsize(1)
    g = cuda.cg.this_grid()
    tmp[i] = a[i] * 2
    g.sync()
    a[i] = tmp[(i + 32) % n]
    g.sync()
    tmp[i] = a[(i + 1) % n]


@case(1, 64, lambda: (f32(64), zeros(2)))
@cuda.jit
def correct_warp_shuffle_reduction(a, out):
    t = cuda.threadIdx.x
    v = a[t]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if t % 32 == 0:
        out[t // 32] = v


@case(1, 32, lambda: (f32(32), zeros(1)))
@cuda.jit
def correct_warp_reduction_with_syncwarp(a, out):
    sm = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]
    cuda.syncwarp()
    s = 16
    while s > 0:
        v = float32(0)
        if t < s:
            v = sm[t + s]
        cuda.syncwarp()
        if t < s:
            sm[t] += v
        cuda.syncwarp()
        s //= 2
    if t == 0:
        out[0] = sm[0]


@case(1, 64, lambda: (f32(64 * 4), zeros(64)))
@cuda.jit
def correct_double_buffer(a, out):
    buf = cuda.shared.array((2, 64), float32)
    t = cuda.threadIdx.x
    acc = float32(0)
    buf[0, t] = a[t]
    cuda.syncthreads()
    for step in range(1, 4):
        buf[step % 2, t] = a[step * 64 + t]
        acc += buf[(step - 1) % 2, (t + 1) % 64]
        cuda.syncthreads()
    out[t] = acc


@case((2, 2), (8, 8), lambda: (np.ones((16, 16), np.float32), np.ones((16, 16), np.float32), zeros((16, 16))))
@cuda.jit
def correct_tiled_matmul(a, b, c):
    sa = cuda.shared.array((8, 8), float32)
    sb = cuda.shared.array((8, 8), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x, y = cuda.grid(2)
    acc = float32(0)
    for tile in range(2):
        sa[ty, tx] = a[y, tile * 8 + tx]
        sb[ty, tx] = b[tile * 8 + ty, x]
        cuda.syncthreads()
        for k in range(8):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[y, x] = acc


@case(4, 64, lambda: (f32(256),))
@cuda.jit
def correct_owned_elements(a):
    i = cuda.grid(1)
    a[i] = a[i] * 2


@case(4, 32, lambda: (f32(128), zeros(4), np.zeros(1, np.int32), zeros(1)))
@cuda.jit
def correct_threadfence_last_block(a, partial, done, out):
    # Each block publishes its sum; the last block to finish adds them (threadfence + counter).
    sm = cuda.shared.array(32, float32)
    last = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    sm[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        s = float32(0)
        for k in range(32):
            s += sm[k]
        partial[cuda.blockIdx.x] = s
        cuda.threadfence()
        last[0] = cuda.atomic.add(done, 0, 1) == cuda.gridDim.x - 1
    cuda.syncthreads()
    if last[0] and t == 0:
        cuda.threadfence()
        total = float32(0)
        for b in range(cuda.gridDim.x):
            total += partial[b]
        out[0] = total


@case(1, 48, lambda: (f32(48), zeros(48)))
@cuda.jit
def correct_flag_chain_with_fences(x, out):
    ready = cuda.shared.array(48, int32)
    partial = cuda.shared.array(48, float32)
    t = cuda.threadIdx.x
    ready[t] = 0
    cuda.syncthreads()
    v = x[t]
    if t < 47:
        while cuda.atomic.add(ready, t + 1, 0) == 0:
            pass
        cuda.threadfence_block()
        v = v + partial[t + 1]
    partial[t] = v
    cuda.threadfence_block()
    cuda.atomic.exch(ready, t, 1)
    out[t] = v


@case(1, 64, lambda: (f32(64), np.zeros(3, np.int32)))
@cuda.jit
def correct_block_votes(a, out):
    t = cuda.threadIdx.x
    c = cuda.syncthreads_count(a[t] > 10)
    o = cuda.syncthreads_or(a[t] > 62)
    n = cuda.syncthreads_and(a[t] >= 0)
    if t == 0:
        out[0] = c
        out[1] = o
        out[2] = n


@case(1, 64, lambda: (f32(64), zeros(64)))
@cuda.jit
def correct_broadcast_after_barrier(a, out):
    v = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    if t == 0:
        v[0] = a[0] * 2
    cuda.syncthreads()
    out[t] = a[t] + v[0]


@case(1, 8, lambda: (zeros(8),))
@cuda.jit
def correct_local_array(out):
    tmp = cuda.local.array(4, float32)
    for k in range(4):
        tmp[k] = k * cuda.threadIdx.x
    acc = float32(0)
    for k in range(4):
        acc += tmp[k]
    out[cuda.threadIdx.x] = acc


@cuda.jit
def _fill(d):
    d[cuda.grid(1)] = 3


def _written_by_a_kernel():
    d = cuda.device_array(64, np.float32)
    _fill[1, 64](d)
    return (d, np.zeros(64, np.float32))


@case(1, 64, _written_by_a_kernel)
@cuda.jit
def correct_device_array_written_by_a_kernel(d, out):
    out[cuda.threadIdx.x] = d[cuda.threadIdx.x] + 1


def _written_by_a_copy():
    d = cuda.device_array(64, np.float32)
    d.copy_to_device(np.ones(64, np.float32))
    return (d, np.zeros(64, np.float32))


@case(1, 64, _written_by_a_copy)
@cuda.jit
def correct_device_array_written_by_a_copy(d, out):
    out[cuda.threadIdx.x] = d[cuda.threadIdx.x] + 1


@case(4, 64, lambda: (np.zeros(1, np.int32), np.zeros(1, np.int32), np.full(256, -1, np.int64)))
@cuda.jit
def correct_spin_lock(lock, total, order):
    done = False
    while not done:
        if cuda.atomic.compare_and_swap(lock, 0, 1) == 0:
            cuda.threadfence()
            n = total[0]
            order[n] = cuda.grid(1)
            total[0] = n + 1
            cuda.threadfence()
            cuda.atomic.exch(lock, 0, 0)
            done = True


@case(2, 64, lambda: (np.arange(128 * 4, dtype=np.uint8), np.zeros(128 * 4, np.uint8)))
@cuda.jit
def correct_byte_elements(a, out):
    i = cuda.grid(1)
    for k in range(4):  # neighbouring threads write neighbouring bytes
        out[k * 128 + i] = a[k * 128 + i] + 1


BUGS = [c for c in CASES if c.bug]
CORRECT = [c for c in CASES if not c.bug]
