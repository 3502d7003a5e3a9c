"""numba.cuda.vectorize: a scalar function made a NumPy-style ufunc computed by a kernel,
one thread per element. Inputs are numbers, sequences, host or device arrays of any
number of dimensions, broadcast as NumPy does; each call picks the first declared
signature the inputs convert to safely (or, without signatures, types the function for
the inputs' dtypes). Host inputs give a host result, device inputs a device array;
`out=` receives the result. The generated kernel calls the function as a device
function, so it may call other device functions."""
import sys
import warnings

import numpy as np

from .. import types as ct
from . import resolve, serialize
from .signatures import as_signature, is_signature
from .devicearray import DeviceNDArray, as_cuda_array, device_array, is_cuda_array, to_device
from .compiler import compile as compile_device
from .dispatcher import DeviceFunction, jit
from .reduction import Reduce

_OPTIONS = {"target", "identity", "nopython", "fastmath", "cache", "debug", "lineinfo", "opt"}
THREADS = 256


def _kernel_text(nin, scalars):
    """A kernel over flat arrays: out[i] = fn(a0[i], a1, ...) (scalars passed as values)."""
    args = ", ".join("a%d" % k for k in range(nin))
    call = ", ".join("a%d" % k if k in scalars else "a%d[i]" % k for k in range(nin))
    return ("def _cutwin_vectorize(out, %s):\n"
            "    i = cuda.grid(1)\n"
            "    if i < out.size:\n"
            "        out[i] = _fn(%s)\n") % (args, call)


def _is_device(x):
    return isinstance(x, DeviceNDArray) or (is_cuda_array(x) and not isinstance(x, np.ndarray))


def _weak_dtypes(args, values):
    """Input dtypes for choosing a loop: Python numbers take the other inputs' type where
    they fit it (NumPy 2's weak scalars: `f(int32_array, 1)` runs the int32 loop)."""
    typed = [v.dtype for a, v in zip(args, values) if not isinstance(a, (bool, int, float, complex))]
    out = []
    for a, v in zip(args, values):
        if isinstance(a, (bool, int, float, complex)) and typed:
            out.append(np.result_type(*typed, a))
        else:
            out.append(v.dtype)
    return out


def _device_input(v, dtype, full, flat_shape, who, stream):
    """`v` broadcast to `full` in `dtype`, as a C-contiguous device array of `flat_shape`
    (the same elements; an empty input gives one row of zeros, which no thread reads):
    device arrays of that shape and dtype in place, others through the host. A device
    array of another dtype is refused, as numba-cuda does."""
    count = int(np.prod(flat_shape, dtype=np.int64))
    if isinstance(v, DeviceNDArray):
        if v.dtype != dtype:
            raise TypeError("%s takes %s here; a device array of %s does not support .astype() (convert it on "
                            "the host)" % (who, dtype, v.dtype))
        if tuple(v.shape) == tuple(full) and v.is_c_contiguous() and v.size == count:
            return v.reshape(*flat_shape)
        v = v.copy_to_host()
    host = np.ascontiguousarray(np.broadcast_to(v, full), dtype=dtype)
    if host.size != count:
        host = np.zeros(flat_shape, dtype)
    return to_device(host.reshape(flat_shape), stream)


def _rebuild_ufunc(function_state, signatures, options):
    return CUDAUFunc(serialize.rebuild_function(function_state), signatures, options)


class CUDAUFunc:
    """What `cuda.vectorize` returns: call it like a NumPy ufunc (`f(a, b, out=r,
    stream=s)`); `f.reduce(a)` folds a 1-D array with a binary one."""

    def __init__(self, py_func, signatures, options):
        self.py_func = getattr(py_func, "py_func", py_func)
        self._options = dict(options)
        self.__name__ = self.py_func.__name__
        self.__qualname__ = getattr(self.py_func, "__qualname__", self.__name__)
        self.__doc__ = self.py_func.__doc__
        self.nin = self.py_func.__code__.co_argcount
        self.nout = 1
        self.identity = options.get("identity")
        self._device = py_func if isinstance(py_func, DeviceFunction) else jit(device=True)(self.py_func)
        self._signatures = [as_signature(s) for s in signatures]
        for s in self._signatures:
            if len(s.args) != self.nin:
                raise TypeError("signature %s has %d arguments, '%s' takes %d" % (s, len(s.args), self.__name__,
                                                                                 self.nin))
        self._kernels = {}
        self._result_types = {}
        self._reducer = None

    def __reduce__(self):
        # by value, as numba pickles its CUDA ufuncs (serialize.py): compiled again where used
        return (_rebuild_ufunc, (serialize.function_state(self.py_func), [str(s) for s in self._signatures],
                                 self._options))

    @property
    def types(self):
        """The loops, as NumPy lists them ('ff->f')."""
        return ["".join(np.dtype(a.dtype).char for a in s.args) + "->" + self._result_dtype(s).char
                for s in self._signatures]

    def __repr__(self):
        return "<cutwin CUDA ufunc %s>" % self.__name__

    # -- choosing a loop
    def _result_dtype(self, sig):
        """A signature's result dtype; a signature of argument types alone (numba's
        `(datetime_t, datetime_t)`) takes the function's result type for them."""
        if sig.return_type is not None:
            return np.dtype(sig.return_type.dtype)
        ins = tuple(np.dtype(a.dtype) for a in sig.args)
        return self._inferred_result(ins)

    def _inferred_result(self, key):
        if key not in self._result_types:  # lazy: the function's result type for these inputs
            _, resty = compile_device(self._device, tuple(ct.from_dtype(d) for d in key), device=True,
                                      abi="numba")
            if not isinstance(resty, ct.Scalar):
                raise TypeError("'%s' returns %s: a ufunc's function returns a number" % (self.__name__, resty))
            self._result_types[key] = np.dtype(resty.dtype)
        return self._result_types[key]

    def _loop(self, dtypes):
        """(input dtypes, result dtype) of the loop for these input dtypes."""
        for s in self._signatures:
            ins = [np.dtype(a.dtype) for a in s.args]
            if all(d == t for d, t in zip(dtypes, ins)):
                return ins, self._result_dtype(s)
        for kind in ("safe", "same_kind"):
            for s in self._signatures:
                ins = [np.dtype(a.dtype) for a in s.args]
                if all(np.can_cast(d, t, kind) for d, t in zip(dtypes, ins)):
                    return ins, self._result_dtype(s)
        if self._signatures:
            raise TypeError("ufunc '%s' has no loop for the input types (%s); it has %s" % (
                self.__name__, ", ".join(str(d) for d in dtypes), ", ".join(self.types)))
        return list(dtypes), self._inferred_result(tuple(dtypes))

    def _kernel(self, ins, res, scalars):
        key = (tuple(ins), res, scalars)
        k = self._kernels.get(key)
        if k is None:
            text = _kernel_text(len(ins), scalars)
            scope = resolve.define_generated(text, "vectorize " + self.__name__,
                                             {"cuda": sys.modules["cutwin.cuda"], "_fn": self._device})
            sig = ct.void(ct.from_dtype(res)[::1],
                          *[ct.from_dtype(d) if k in scalars else ct.from_dtype(d)[::1] for k, d in enumerate(ins)])
            k = self._kernels[key] = jit(sig)(scope["_cutwin_vectorize"])
        return k

    # -- calling
    def __call__(self, *args, out=None, stream=0, **kws):
        if kws:
            raise TypeError("unexpected keyword arguments: %s" % ", ".join(sorted(kws)))
        if len(args) == self.nin + 1 and out is None:
            args, out = args[:-1], args[-1]
        if len(args) != self.nin:
            raise TypeError("%s() takes %d arguments, %d given" % (self.__name__, self.nin, len(args)))
        on_device = any(_is_device(a) for a in args) or (out is not None and _is_device(out))
        values = [as_cuda_array(a) if _is_device(a) else np.asarray(a) for a in args]
        ins, res = self._loop(_weak_dtypes(args, values))
        shape = np.broadcast_shapes(*[v.shape for v in values])
        size = int(np.prod(shape, dtype=np.int64))
        scalars = frozenset(k for k, v in enumerate(values) if v.ndim == 0 and not isinstance(v, DeviceNDArray))
        flat = []
        for k, (v, d) in enumerate(zip(values, ins)):
            if k in scalars:
                flat.append(v.astype(d)[()])
            else:
                flat.append(_device_input(v, d, shape, (size,), "ufunc '%s'" % self.__name__, stream))
        # a device output (any CUDA Array Interface producer) as a device array of its memory
        dev_out = as_cuda_array(out) if out is not None and _is_device(out) else None
        direct = (dev_out is not None and dev_out.is_c_contiguous() and tuple(dev_out.shape) == tuple(shape)
                  and np.dtype(dev_out.dtype) == res)
        result = dev_out if direct else device_array(shape, res, stream=stream)
        flat_out = result.reshape(size) if size else result
        if size:
            blocks = (size + THREADS - 1) // THREADS
            self._kernel(ins, res, scalars)[blocks, THREADS, stream](flat_out, *flat)
        if out is not None:
            if dev_out is not None:  # (a foreign output comes back as a device array of it, as numba's)
                if not direct:
                    dev_out[...] = result
                return dev_out
            np.copyto(out, result.copy_to_host(), casting="unsafe")
            return out
        if on_device:
            return result
        host = result.copy_to_host()
        return host[()] if host.ndim == 0 else host

    def reduce(self, arr, axis=0, stream=0):
        """Folds a 1-D array with the (binary) function: a NumPy scalar of its dtype."""
        if self.nin != 2:
            raise ValueError("reduce only applies to binary functions")
        if self._reducer is None:
            self._reducer = Reduce(self._device)
        a = arr if isinstance(arr, DeviceNDArray) else np.asarray(arr)
        if a.ndim != 1:
            raise NotImplementedError("cutwin's ufunc reduce takes 1-D arrays")
        if a.shape[0] == 0:
            if self.identity is None:
                raise ValueError("zero-size array to reduction operation %s which has no identity" % self.__name__)
            return a.dtype.type(self.identity)
        first = a[:1].copy_to_host()[0] if isinstance(a, DeviceNDArray) else a[0]
        if a.shape[0] == 1:
            return a.dtype.type(first)
        # the fold starts from the first element (Reduce folds its init in once)
        return a.dtype.type(self._reducer(a[1:], init=first, stream=stream))


def vectorize(ftylist_or_function=(), **kws):
    """numba's `vectorize` for the CUDA target: `@vectorize(['float32(float32, float32)'])`,
    `@vectorize` without signatures (loops typed per call), options `identity`, `target`
    ('cuda'), `nopython` (redundant), `fastmath`, `cache`."""
    unknown = set(kws) - _OPTIONS
    if unknown:
        raise KeyError("Unrecognized options: %s" % ", ".join(sorted(unknown)))
    if kws.get("target", "cuda") not in ("cuda", "gpu"):
        raise ValueError("cutwin's vectorize compiles for the CUDA target, not %r" % kws["target"])
    if "nopython" in kws:
        warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning)
    if callable(ftylist_or_function) and not is_signature(ftylist_or_function):
        return CUDAUFunc(ftylist_or_function, [], kws)
    sigs = ftylist_or_function
    if is_signature(sigs):
        sigs = [sigs]
    return lambda fn: CUDAUFunc(fn, list(sigs), kws)


# ---- guvectorize -------------------------------------------------------------------------------

def _parse_layout(layout):
    """'(m,n),(n,p)->(m,p)' -> ([('m', 'n'), ('n', 'p')], [('m', 'p')])."""
    text = layout.replace(" ", "")
    if "->" not in text:
        raise ValueError("a gufunc layout reads '(inputs)->(outputs)', e.g. '(m,n),(n)->(m)', not %r" % layout)
    left, right = text.split("->")

    def groups(s):
        out = []
        for g in s.split("),"):
            g = g.strip("()")
            out.append(tuple(x for x in g.split(",") if x))
        return out

    return groups(left), groups(right)


def _gu_kernel_text(n_args, scalar_args, unit_args):
    """A kernel over the flattened loop dimension: fn(a0[i], a1[i:i + 1], ...)."""
    names = ", ".join("a%d" % k for k in range(n_args))
    parts = []
    for k in range(n_args):
        if k in unit_args:
            parts.append("a%d[i:i + 1]" % k)
        else:
            parts.append("a%d[i]" % k)
    return ("def _cutwin_guvectorize(n, %s):\n"
            "    i = cuda.grid(1)\n"
            "    if i < n:\n"
            "        _fn(%s)\n") % (names, ", ".join(parts))


class CUDAGUFunc:
    """What `cuda.guvectorize` returns: the function applied over the loop dimensions of
    its inputs (those before each input's core dimensions, broadcast), one thread per loop
    index, each call given views of its core dimensions; outputs are allocated unless
    given (positionally after the inputs, or `out=`)."""

    def __init__(self, py_func, signatures, layout, options):
        self.py_func = getattr(py_func, "py_func", py_func)
        self.__name__ = self.py_func.__name__
        self.__qualname__ = getattr(self.py_func, "__qualname__", self.__name__)
        self.__doc__ = self.py_func.__doc__
        self._ins, self._outs = _parse_layout(layout)
        self.nin, self.nout = len(self._ins), len(self._outs)
        self.signature = layout
        self._device = py_func if isinstance(py_func, DeviceFunction) else jit(device=True)(self.py_func)
        self._signatures = []
        for s in signatures:
            sig = as_signature(s)
            if sig.return_type is not None and sig.return_type != ct.void:
                raise TypeError("guvectorized functions cannot return values: signature %s specifies %s return "
                                "type" % (sig, sig.return_type))
            if len(sig.args) != self.nin + self.nout:
                raise TypeError("signature %s has %d arguments, layout %r has %d" % (sig, len(sig.args), layout,
                                                                                    self.nin + self.nout))
            self._signatures.append(sig)
        if not self._signatures:
            raise TypeError("cutwin's guvectorize needs signatures")
        self._kernels = {}

    def __repr__(self):
        return "<cutwin CUDA gufunc %s %s>" % (self.__name__, self.signature)

    def _loop(self, dtypes):
        for kind in ("equiv", "safe", "same_kind", "unsafe"):  # numba casts host inputs as needed
            for s in self._signatures:
                ins = [np.dtype(t.dtype) for t in s.args[:self.nin]]
                if all(np.can_cast(d, t, kind) for d, t in zip(dtypes, ins)):
                    return s
        raise TypeError("gufunc '%s' has no loop for the input types (%s)" % (
            self.__name__, ", ".join(str(d) for d in dtypes)))

    def __call__(self, *args, out=None, stream=0, **kws):
        if kws:
            raise TypeError("unexpected keyword arguments: %s" % ", ".join(sorted(kws)))
        n_all = self.nin + self.nout
        if len(args) not in (self.nin, n_all):
            raise TypeError("gufunc accepts %d positional arguments (inputs) or %d positional arguments (inputs "
                            "and outputs). Got %d positional argument%s." % (
                                self.nin, n_all, len(args), "" if len(args) == 1 else "s"))
        outs = list(args[self.nin:])
        if out is not None:
            if outs:
                raise ValueError("cannot specify argument 'out' as both positional and keyword")
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
        # device outputs (any CUDA Array Interface producer) as device arrays of their memory
        outs = [as_cuda_array(o) if _is_device(o) else o for o in outs]
        on_device = any(_is_device(a) for a in args)
        values = [as_cuda_array(a) if _is_device(a) else np.asarray(a) for a in args[:self.nin]]
        sig = self._loop(_weak_dtypes(args[:self.nin], values))
        dims, loops = {}, []
        for v, core in zip(values, self._ins):
            nc = len(core)
            if v.ndim < nc:
                raise ValueError("gufunc '%s': an input has %d dimensions, its layout %s needs %d" % (
                    self.__name__, v.ndim, core, nc))
            for name, extent in zip(core, v.shape[v.ndim - nc:]):
                if dims.setdefault(name, extent) != extent:
                    raise ValueError("gufunc '%s': dimension %s is %d and %d" % (self.__name__, name, dims[name],
                                                                                 extent))
            loops.append(tuple(v.shape[:v.ndim - nc]))
        for o, core in zip(outs, self._outs):  # given outputs fix the dimensions only they name
            for name, extent in zip(core, o.shape[len(o.shape) - len(core):]):
                dims.setdefault(name, extent)
        loop = np.broadcast_shapes(*loops) if loops else ()
        n = int(np.prod(loop, dtype=np.int64))
        flat, scalars, units = [], set(), set()
        for k, (v, core, t) in enumerate(zip(values, self._ins, sig.args)):
            dtype = np.dtype(t.dtype)
            full = tuple(loop) + tuple(dims[c] for c in core)
            if not core and not isinstance(t, ct.Array):
                scalars.add(k)
            elif not core:
                units.add(k)
            flat.append(_device_input(v, dtype, full, (max(n, 1),) + tuple(dims[c] for c in core),
                                      "gufunc '%s'" % self.__name__, stream))
        results = []
        for j, (core, t) in enumerate(zip(self._outs, sig.args[self.nin:])):
            k = self.nin + j
            if any(c not in dims for c in core):
                raise ValueError("gufunc '%s': output dimension(s) %s are not given by the inputs; pass the output "
                                 "array" % (self.__name__, [c for c in core if c not in dims]))
            shape = tuple(loop) + tuple(dims[c] for c in core)
            dtype = np.dtype(t.dtype)
            given = outs[j] if j < len(outs) else None
            if not core:
                units.add(k)
            if given is not None and _is_device(given) and as_cuda_array(given).is_c_contiguous() \
                    and tuple(given.shape) == shape and np.dtype(given.dtype) == dtype:
                dev = as_cuda_array(given)
            else:
                dev = device_array(shape, dtype, stream=stream)
            results.append((dev, given, shape))
            flat.append(dev.reshape(*((max(n, 1),) + tuple(dims[c] for c in core))) if n else dev)
        if n:
            blocks = (n + THREADS - 1) // THREADS
            self._kernel(sig, flat, frozenset(scalars), frozenset(units))[blocks, THREADS, stream](n, *flat)
        returned = []
        for dev, given, shape in results:
            if given is not None:
                if _is_device(given):
                    if as_cuda_array(given) is not dev and given is not dev:
                        as_cuda_array(given)[...] = dev
                    returned.append(given)
                else:
                    np.copyto(given, dev.copy_to_host(), casting="unsafe")
                    returned.append(given)
            else:
                returned.append(dev if on_device else dev.copy_to_host())
        return returned[0] if len(returned) == 1 else tuple(returned)

    def _kernel(self, sig, flat, scalars, units):
        key = (str(sig), scalars, units, tuple(a.ndim for a in flat))
        k = self._kernels.get(key)
        if k is None:
            text = _gu_kernel_text(len(flat), scalars, units)
            scope = resolve.define_generated(text, "guvectorize " + self.__name__,
                                             {"cuda": sys.modules["cutwin.cuda"], "_fn": self._device})
            k = self._kernels[key] = jit(scope["_cutwin_guvectorize"])
        return k


_GU_OPTIONS = {"target", "nopython", "fastmath", "cache", "debug", "lineinfo", "opt", "writable_args",
               "is_dynamic", "identity"}


def guvectorize(ftylist, signature, **kws):
    """numba's `guvectorize` for the CUDA target: `@guvectorize([void(float32[:, :],
    float32[:, :])], '(m,n)->(m,n)')`; core dimensions of up to two per argument."""
    unknown = sorted(set(kws) - _GU_OPTIONS)
    if unknown:
        raise TypeError("The following target options are not supported: %s" % ", ".join(
            "'%s'" % u for u in unknown))
    if kws.get("nopython", True) is False:
        raise TypeError("nopython flag must be True")
    if is_signature(ftylist):
        ftylist = [ftylist]
    return lambda fn: CUDAGUFunc(fn, list(ftylist), signature, kws)
