"""`cuda.reduce` / `cuda.Reduce`: a binary function becomes a parallel reduction.

Generated kernels call the function, compiled as a device function from its own source:
a first launch where each thread folds a strided slice of the array and each block folds
its threads in a shared-memory tree, then one block that folds the per-block partials (and
`init`). Any associative binary function of the array's dtype works: a plain function, a
lambda or a `@cuda.jit(device=True)` function."""
import os
import sys

import numpy as np

from .. import types as ct
from ..errors import CutwinError
from . import resolve, runtime
from .devicearray import DeviceNDArray, as_cuda_array, device_array, mapped_array, to_device
from .dispatcher import DeviceFunction, jit

THREADS = 256      # per block, a power of two (the tree halves it)
MAX_BLOCKS = 1024  # first pass; the second pass folds these partials in one block

_KERNELS = """
@cuda.jit(device=True)
def _cutwin_block_fold(arr, n, i, stride, sm):
    # Thread i folds arr[i], arr[i + stride], ... into sm[t], then the block folds sm in a
    # tree; returns the block's value (in thread 0). Threads with nothing to fold form a
    # suffix of the block (stride >= block size), so `valid` counts the live prefix.
    t = cuda.threadIdx.x
    if i < n:
        acc = arr[i]
        j = i + stride
        # Eight loads in flight before folding them in order (the same order as one at a
        # time): a memory-bound fold needs its loads overlapped.
        while j + 7 * stride < n:
            a0 = arr[j]
            a1 = arr[j + stride]
            a2 = arr[j + 2 * stride]
            a3 = arr[j + 3 * stride]
            a4 = arr[j + 4 * stride]
            a5 = arr[j + 5 * stride]
            a6 = arr[j + 6 * stride]
            a7 = arr[j + 7 * stride]
            acc = {name}({name}({name}({name}(acc, a0), a1), a2), a3)
            acc = {name}({name}({name}({name}(acc, a4), a5), a6), a7)
            j += 8 * stride
        while j < n:
            acc = {name}(acc, arr[j])
            j += stride
        sm[t] = acc
    cuda.syncthreads()
    valid = min(cuda.blockDim.x, n - (i - t))
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s and t + s < valid:
            sm[t] = {name}(sm[t], sm[t + s])
        cuda.syncthreads()
        valid = min(valid, s)
        s //= 2
    return sm[0]


@cuda.jit
def _cutwin_reduce(arr, n, out, init, use_init):
    # One pass: each block's value to out[block] (with init folded in if use_init).
    sm = cuda.shared.array({threads}, {dtype})
    v = _cutwin_block_fold(arr, n, cuda.grid(1), cuda.gridsize(1), sm)
    if cuda.threadIdx.x == 0:
        if use_init:
            out[cuda.blockIdx.x] = {name}(v, init)
        else:
            out[cuda.blockIdx.x] = v


@cuda.jit
def _cutwin_reduce_grid(arr, n, partials, out, init):
    # Both passes in one cooperative launch: the blocks' values meet in `partials` across
    # a grid barrier, then block 0 folds them exactly as the second launch would.
    sm = cuda.shared.array({threads}, {dtype})
    v = _cutwin_block_fold(arr, n, cuda.grid(1), cuda.gridsize(1), sm)
    if cuda.threadIdx.x == 0:
        partials[cuda.blockIdx.x] = v
    cuda.cg.this_grid().sync()
    if cuda.blockIdx.x == 0:
        cuda.syncthreads()
        v = _cutwin_block_fold(partials, cuda.gridDim.x, cuda.threadIdx.x, cuda.blockDim.x, sm)
        if cuda.threadIdx.x == 0:
            out[0] = {name}(v, init)
"""

_BINOP = "_cutwin_binop"


class Reduce:
    """A reduction over a 1-D host or device array with an associative binary function."""

    def __init__(self, functor):
        fn = getattr(functor, "py_func", functor)
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError("cuda.reduce needs a Python function of two arguments")
        if fn.__code__.co_argcount != 2:
            raise TypeError("a reduction function takes two arguments")
        # The generated kernels call it by value, as a device function.
        self._binop = functor if isinstance(functor, DeviceFunction) else jit(device=True)(fn)
        self._functor = fn
        self._kernels = {}
        self._scratch = {}
        self.__name__ = getattr(fn, "__name__", "reduce")
        self.__doc__ = fn.__doc__

    def _kernel(self, dtype):
        k = self._kernels.get(dtype)
        if k is None:
            text = _KERNELS.format(dtype=dtype.name, name=_BINOP, threads=THREADS)
            scope = resolve.define_generated(text, "reduce %s %s" % (self.__name__, dtype.name), {
                "cuda": sys.modules["cutwin.cuda"], dtype.name: ct.from_dtype(dtype), _BINOP: self._binop})
            k = self._kernels[dtype] = (scope["_cutwin_reduce"], scope["_cutwin_reduce_grid"])
            if "CUTWIN_CODEGEN" not in os.environ:
                # On a GPU, libNVVM's code for the strided fold needs 32 registers (LLVM's
                # NVPTX 48): eight blocks of 256 threads per multiprocessor, so the whole
                # reduction fits one cooperative launch (same folds, same bits as two).
                for kernel in k:
                    kernel._gpu_codegen = "nvvm"
        return k

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        if not isinstance(arr, DeviceNDArray):
            arr = np.asarray(arr)
        if arr.ndim != 1:
            raise TypeError("only 1-D arrays can be reduced")
        if size is not None:
            arr = arr[:size]
        init = arr.dtype.type(init)
        n = arr.shape[0]
        if n < 1:
            if res is not None:
                res[:1].copy_to_device(np.array([init]), stream=stream)
                return None
            return init
        if not isinstance(arr, DeviceNDArray):
            arr = to_device(arr, stream)
        two_pass, one_launch = self._kernel(arr.dtype)
        blocks = min((n + THREADS - 1) // THREADS, MAX_BLOCKS)
        s = self._scratch_for(arr.dtype, one_launch, two_pass)
        out = res if res is not None else s.result
        if blocks == 1:
            two_pass[1, THREADS, stream](arr, n, out, init, True)
        elif s.cooperative_blocks >= blocks:
            # On a GPU: one cooperative launch instead of two (same folds, same bits).
            one_launch[blocks, THREADS, stream](arr, n, s.partials, out, init)
        else:
            two_pass[blocks, THREADS, stream](arr, n, s.partials, init, False)
            two_pass[1, THREADS, stream](s.partials, blocks, out, init, True)
        if res is not None:
            return None
        # The result lies in mapped host memory: waiting for the kernel is all that is left.
        if stream:
            stream.synchronize()
        else:
            runtime.synchronize()
        return s.host[0]

    def _scratch_for(self, dtype, one_launch, two_pass):
        """Partials and the result (a mapped host array and its device view), kept per
        device and dtype: allocating them each call cost more than a small reduction."""
        key = (runtime._selected_spec(), dtype)
        s = self._scratch.get(key)
        if s is None:
            s = self._scratch[key] = _Scratch(dtype, one_launch, two_pass)
        return s


class _Scratch:
    __slots__ = ("partials", "host", "result", "cooperative_blocks")

    def __init__(self, dtype, one_launch, two_pass):
        self.partials = device_array(MAX_BLOCKS, dtype)
        self.host = mapped_array(1, dtype)
        self.result = as_cuda_array(self.host)
        # The simulator makes the two launches: a cooperative launch there would make every
        # thread of the grid a fiber at once.
        self.cooperative_blocks = 0
        if not runtime._is_sim(runtime._selected_spec()):
            t = ct.from_dtype(dtype)
            sig = (t[::1], ct.int64, t[::1], t[::1], t)
            try:
                self.cooperative_blocks = one_launch.compile(sig).max_cooperative_grid_blocks(THREADS)
            except CutwinError:  # no libNVVM: LLVM's NVPTX backend
                for k in (one_launch, two_pass):
                    k._gpu_codegen = None
                    k._per_device.clear()
                self.cooperative_blocks = one_launch.compile(sig).max_cooperative_grid_blocks(THREADS)


def reduce(functor):
    """Decorator: `@cuda.reduce def add(a, b): return a + b`, then `add(array)`."""
    return Reduce(functor)
