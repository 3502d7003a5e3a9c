"""Small programs of numba-cuda's documentation not covered by examples/python: written
afresh for cutwin, each checked against NumPy on every selected backend."""
import numpy as np

from cutwin import cuda, int32
from cutwin.cuda.reductions import Reduce

NELEM = 1024


@cuda.jit
def array_sum(data):
    # Shared-memory tree with interleaved pairs, as in the documentation's reduction.
    tid = cuda.threadIdx.x
    if tid < len(data):
        i = cuda.grid(1)
        shr = cuda.shared.array(NELEM, int32)
        shr[tid] = data[i]
        cuda.syncthreads()
        s = 1
        while s < cuda.blockDim.x:
            if tid % (2 * s) == 0:
                shr[tid] += shr[tid + s]
            s *= 2
            cuda.syncthreads()
        if tid == 0:
            data[tid] = shr[tid]


@cuda.jit
def strided_add(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]


def test_shared_memory_array_sum(cutwin_backend):
    a = cuda.to_device(np.arange(NELEM))
    array_sum[1, NELEM](a)
    assert a.copy_to_host()[0] == np.arange(NELEM).sum()


def test_reduce_class_from_numbas_module_path(cutwin_backend):
    reduce_sum = Reduce(lambda x, y: x + y)
    data = np.arange(1, 5001, dtype=np.int64)
    result = cuda.device_array(1, dtype=data.dtype)
    reduce_sum(cuda.to_device(data), res=result)
    assert result.copy_to_host()[0] == data.sum()


def test_grid_stride_loop_with_foreign_arrays(cutwin_backend):
    # The documentation's CuPy producer, here any producer of the interface.
    class Foreign:
        def __init__(self, d):
            self.d, self.__cuda_array_interface__ = d, d.__cuda_array_interface__
    a = cuda.to_device(np.arange(10))
    b = cuda.to_device(np.arange(10) * 2)
    out = cuda.device_array_like(a)
    strided_add[1, 32](Foreign(a), Foreign(b), Foreign(out))
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(10) * 3)
