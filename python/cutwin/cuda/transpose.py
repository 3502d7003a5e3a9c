"""numba.cuda.kernels.transpose: `transpose(a, b=None)` writes the transpose of the 2-D
array `a` (a device array, or a host array copied to the device) into `b`, a new device
array if not given, and returns it. Any dtype, records included. Each block moves one
square tile through shared memory, read along the rows of `a` and written along the rows
of `b`, so both sides' accesses are coalesced on a GPU; the tile has a padding column so
that the column reads do not fall into one shared-memory bank."""
import sys

from .devicearray import as_cuda_array, device_array, to_device
from .dispatcher import jit

TILE = 32  # threads per tile side: 32 x 32 = 1024 threads, a block of any CUDA GPU

_kernels = {}  # dtype -> the transpose kernel for it


def _kernel(dtype):
    k = _kernels.get(dtype)
    if k is not None:
        return k
    from .. import types as ct

    element = ct.from_dtype(dtype)
    cuda = sys.modules["cutwin.cuda"]

    @jit
    def transpose_tiles(src, dst):
        tile = cuda.shared.array((TILE, TILE + 1), dtype=element)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        row0, col0 = cuda.blockIdx.y * TILE, cuda.blockIdx.x * TILE
        if row0 + ty < src.shape[0] and col0 + tx < src.shape[1]:
            tile[ty, tx] = src[row0 + ty, col0 + tx]
        cuda.syncthreads()
        # dst[c, r] = src[r, c]: this thread writes row col0 + ty of dst, column row0 + tx
        if col0 + ty < dst.shape[0] and row0 + tx < dst.shape[1]:
            dst[col0 + ty, row0 + tx] = tile[tx, ty]

    _kernels[dtype] = transpose_tiles
    return transpose_tiles


def transpose(a, b=None):
    if not hasattr(a, "__cuda_array_interface__"):
        a = to_device(a)
    a = as_cuda_array(a) if not hasattr(a, "_arr") else a
    if a.ndim != 2:
        raise ValueError("transpose() takes a 2-D array, not %d-D" % a.ndim)
    stream = getattr(a, "stream", 0)
    rows, cols = a.shape
    if b is None:
        b = device_array((cols, rows), dtype=a.dtype, stream=stream)
    if tuple(b.shape) != (cols, rows) or b.dtype != a.dtype:
        raise ValueError("transpose() of a %s %s array needs a %s %s output, got %s %s"
                         % (a.shape, a.dtype, (cols, rows), a.dtype, tuple(b.shape), b.dtype))
    blocks = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
    _kernel(a.dtype)[blocks, (TILE, TILE), stream](a, b)
    return b

