"""`cuda.reduce` / `cuda.Reduce`: a binary function becomes a parallel reduction.

The function's source is compiled into a generated kernel module: a first launch where
each thread folds a strided slice of the array and each block folds its threads in a
shared-memory tree, then one block that folds the per-block partials (and `init`). Any
associative binary function of the array's dtype works: a plain function, a lambda or a
`@cuda.jit(device=True)` function."""
import ast
import inspect
import itertools
import linecache
import textwrap

import numpy as np

from . import runtime
from .devicearray import DeviceNDArray, device_array, to_device
from .dispatcher import module_imports

THREADS = 256      # per block, a power of two (the tree halves it)
MAX_BLOCKS = 1024  # first pass; the second pass folds these partials in one block

_KERNELS = """
from cutwin import cuda, {dtype}
{imports}


@cuda.jit(device=True)
{binop}


@cuda.jit
def _cutwin_reduce(arr, n, out, init, use_init):
    # Each thread folds arr[i], arr[i + stride], ...; threads with nothing to fold form a
    # suffix of the block (stride >= block size), so `valid` counts the live prefix.
    sm = cuda.shared.array({threads}, {dtype})
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
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
    start = cuda.blockIdx.x * cuda.blockDim.x
    valid = min(cuda.blockDim.x, n - start)
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s and t + s < valid:
            sm[t] = {name}(sm[t], sm[t + s])
        cuda.syncthreads()
        valid = min(valid, s)
        s //= 2
    if t == 0:
        if use_init:
            out[cuda.blockIdx.x] = {name}(sm[0], init)
        else:
            out[cuda.blockIdx.x] = sm[0]
"""

_counter = itertools.count()


def _binop_source(fn):
    """The function as a top-level `def`, and its name."""
    code = fn.__code__
    if code.co_argcount != 2:
        raise TypeError("a reduction function takes two arguments")
    try:
        lines, _ = inspect.findsource(code)
    except OSError:
        raise TypeError("cutwin compiles reductions from source: cannot read the source of %r" % fn)
    if fn.__name__ != "<lambda>":
        block = textwrap.dedent("".join(inspect.getblock(lines[code.co_firstlineno - 1:])))
        # drop decorators (@cuda.reduce, @cuda.jit(device=True)): the kernel module adds its own
        body = block[block.index("def "):] if not block.startswith("def ") else block
        return body, fn.__name__
    # A lambda: find it on its line by its parameter names.
    text = textwrap.dedent("".join(inspect.getblock(lines[code.co_firstlineno - 1:])))
    params = list(code.co_varnames[:2])
    for node in ast.walk(ast.parse(text if not text.lstrip().startswith(".") else "(" + text + ")")):
        if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == params:
            return "def _cutwin_binop(%s, %s):\n    return %s\n" % (params[0], params[1], ast.unparse(node.body)), \
                "_cutwin_binop"
    raise TypeError("cannot find the source of the lambda given to cuda.reduce")


class Reduce:
    """A reduction over a 1-D host or device array with an associative binary function."""

    def __init__(self, functor):
        fn = getattr(functor, "py_func", functor)
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError("cuda.reduce needs a Python function of two arguments")
        self._functor = fn
        self._kernels = {}
        self._scratch = {}
        self.__name__ = getattr(fn, "__name__", "reduce")
        self.__doc__ = fn.__doc__

    def _kernel(self, dtype):
        k = self._kernels.get(dtype)
        if k is None:
            source, name = _binop_source(self._functor)
            text = _KERNELS.format(dtype=dtype.name, binop=source.rstrip(), name=name, threads=THREADS,
                                   imports="\n".join(module_imports(self._functor)))
            filename = "<cutwin reduce %s %s #%d>" % (self.__name__, dtype.name, next(_counter))
            linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
            scope = dict(self._functor.__globals__)
            exec(compile(text, filename, "exec"), scope)
            k = self._kernels[dtype] = scope["_cutwin_reduce"]
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
        kernel = self._kernel(arr.dtype)
        blocks = min((n + THREADS - 1) // THREADS, MAX_BLOCKS)
        partials, result, host = self._buffers(arr.dtype)
        out = res if res is not None else result
        if blocks == 1:
            kernel[1, THREADS, stream](arr, n, out, init, True)
        else:
            kernel[blocks, THREADS, stream](arr, n, partials, init, False)
            kernel[1, THREADS, stream](partials, blocks, out, init, True)
        if res is not None:
            return None
        result._arr.copy_to_host(host)  # one element, straight into a kept NumPy array
        return host[0]

    def _buffers(self, dtype):
        """Partials, a one-element result and its host copy, kept per device and dtype
        (each call allocating them cost more than a small reduction)."""
        key = (runtime._selected_spec(), dtype)
        b = self._scratch.get(key)
        if b is None:
            b = self._scratch[key] = (device_array(MAX_BLOCKS, dtype), device_array(1, dtype), np.empty(1, dtype))
        return b


def reduce(functor):
    """Decorator: `@cuda.reduce def add(a, b): return a + b`, then `add(array)`."""
    return Reduce(functor)
