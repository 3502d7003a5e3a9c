"""`cuda.jit`: kernels and device functions. A Dispatcher compiles its function lazily,
once per device and argument-type tuple (the C++ module caches the specialisations), from
the function's own Python source, with what each name it uses is in the running program
(resolve.py): device functions from any module, closures and nested functions alike."""
import collections
import ctypes
import enum
import os
import pickle
import warnings

import numpy as np

from .. import _cutwin
from .. import types as ct
from ..errors import CutwinError, KernelError, as_user_exception
from . import runtime
from .args import ArgHint
from .devicearray import DeviceNDArray, as_cuda_array, to_device
from . import launchconfig, resolve, sass, serialize, settings
from .foreign import link_paths, with_callbacks
from .host_values import enum_member
from .settings import setting, warn_implicit_copy, warn_invalid_config, warn_low_occupancy
from .signatures import as_signature, compile_signature_text, is_signature, signature_text, type_text

def _codegen():
    return os.environ.get("CUTWIN_CODEGEN", "nvptx")


def _dim3(d, what):
    """A launch dimension as numba takes it (an int or a sequence of 1-3 ints), as numba
    keeps it: three ints."""
    if isinstance(d, (int, np.integer)):
        return (int(d), 1, 1)
    items = list(d) if hasattr(d, "__iter__") else [d]
    if not all(isinstance(x, (int, np.integer)) for x in items):
        raise TypeError("%s must be a sequence of integers, got %r" % (what, items))
    if not 1 <= len(items) <= 3:
        raise ValueError("%s must be a sequence of 1, 2 or 3 integers, got %r" % (what, items))
    return tuple(int(x) for x in items) + (1,) * (3 - len(items))


def _native_tuple(tup, kernel, copy_back=None):
    """A tuple argument for the extension: its elements converted as arguments are (device
    arrays, numbers, NumPy scalars as (dtype, value), nested tuples). Host arrays are
    copied to the device, and back after the launch when `copy_back` (a list) is given."""
    out = []
    for v in tup:
        t = type(v)
        if t is int or t is float or t is bool or t is complex:
            out.append(v)
        elif isinstance(v, np.generic):
            out.append((v.dtype.name, v.item()))
        elif isinstance(v, DeviceNDArray):
            out.append(v._arr)
        elif hasattr(v, "__cuda_array_interface__"):
            out.append(as_cuda_array(v)._arr)
        elif isinstance(v, enum.Enum):
            out.append(_native_enum(v, kernel))
        elif isinstance(v, tuple):
            out.append(_native_tuple(v, kernel, copy_back))
        elif isinstance(v, np.ndarray) and copy_back is not None:
            d = to_device(v)
            out.append(d._arr)
            if v.flags.writeable:
                copy_back.append((d, v))
        else:
            raise TypeError("cutwin cannot pass a %s inside a tuple to kernel '%s'" % (t.__name__, kernel))
    fields = getattr(type(tup), "_fields", None)
    if fields is not None and type(tup) is not tuple:  # a namedtuple: its fields are part of its type
        return ("namedtuple", type(tup).__qualname__, tuple(fields), tuple(out))
    return tuple(out)


def _native_enum(member, kernel):
    """An enum member argument: its value (a number or a tuple of them), typed with its class."""
    v = member.value
    if type(v) in (int, float, bool, complex):
        return enum_member(member, v)
    if isinstance(v, tuple):
        return enum_member(member, _native_tuple(v, kernel))
    raise TypeError("cutwin cannot pass %r to kernel '%s': its value is a %s, not a number or a tuple"
                    % (member, kernel, type(v).__name__))


def _record_argument(rec, copy_back):
    """A NumPy record (np.void of a structured dtype, np.record) as the extension takes it: its
    bytes on the device, copied back into the record after the launch (numba passes records
    by reference: a kernel's stores into it reach the host)."""
    host = np.empty(1, rec.dtype)
    host[0] = rec
    dev = to_device(host)

    def back():
        got = dev.copy_to_host()[0]
        for name in rec.dtype.names:
            rec[name] = got[name]

    copy_back.append(back)
    return ("record", dev._arr)


def _declaration_of(v):
    """(Python function, declaration) of a jit function object kernels can call: cutwin's
    kernels and device functions, and numba's CPU `jit` functions (compiled for the device
    as numba-cuda does); None for anything else."""
    if isinstance(v, _JitFunction):
        return v.py_func, v._declaration()
    if type(v).__name__ == "CPUDispatcher" and hasattr(v, "py_func") and getattr(v, "_can_compile", True):
        return v.py_func, {"device": True, "signatures": [], "debug": False, "fastmath": False, "lineinfo": False,
                           "boundscheck": None, "opt": 3, "link": []}
    return None


# numba's Dispatcher.stats
_CompileStats = collections.namedtuple("_CompileStats", ("cache_path", "cache_hits", "cache_misses"))


def _parsed_signature(texts):
    """The argument-type tuple of a compiled specialization's type texts, or None for a type
    the signature syntax cannot spell (a tuple of records)."""
    try:
        return ct.parse_signature("(%s,)" % ", ".join(texts) if texts else "()").args
    except TypeError:
        return None


class _Compiled:
    """A function's C++ module on one device, and the kernel in it."""

    __slots__ = ("module", "kernel")

    def __init__(self, module, kernel):
        self.module, self.kernel = module, kernel


class _JitFunction:
    """What kernels and device functions share: the Python function, its options and
    how its source and globals reach the compiler."""

    def __init__(self, py_func, signatures, options):
        self.py_func = py_func
        self._declared = list(signatures or [])
        self.targetoptions = options
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__doc__ = py_func.__doc__
        self.__module__ = py_func.__module__
        self.__wrapped__ = py_func
        self._gpu_codegen = None  # a code generator preferred on GPUs (None: CUTWIN_CODEGEN's)
        self._exceptions = {}  # user exception classes the kernel raises, by the name it uses

    @property
    def signatures(self):
        """The signatures declared (`cuda.jit(sig)`) and, for kernels, those launches compiled."""
        return list(self._declared)

    def __reduce__(self):
        # by value, as numba pickles its dispatchers: the function's code, globals and
        # closure, the declared signatures and the options (compiled again where used)
        return (_rebuild_jit_function, (type(self), serialize.function_state(self.py_func), list(self._declared),
                                        self.targetoptions))

    @property
    def _code_name(self):
        """The function's name in the source the compiler reads (a lambda becomes a def)."""
        name = self.py_func.__code__.co_name  # what the def says, though __name__ was changed
        return resolve.LAMBDA_NAME if name == "<lambda>" else name

    def _declaration(self):
        o = self.targetoptions
        return {"device": o["device"], "signatures": [signature_text(s) for s in self._declared],
                "debug": o["debug"], "fastmath": o["fastmath"], "lineinfo": o["lineinfo"],
                "boundscheck": o["boundscheck"], "sanitize": o.get("sanitize"), "opt": o["opt"],
                "link": o.get("link", []),
                "launch_bounds": o.get("launch_bounds", []), "inline": _inlines(o.get("inline", False)),
                "forceinline": bool(o.get("forceinline", False))}

    def _module(self, spec, codegen=None):
        """A C++ module of this function and every jit function it reaches, each from its
        own source with its names resolved by value, for device `spec`."""
        world = resolve.function_units(self, _declaration_of)
        # cache=True keeps compiled kernels on disk on every backend (numba's), cache=False on
        # none; unset, the backend's default (the simulator keeps them); CUTWIN_CACHE=0 or 1
        # decides for all
        module = _cutwin.Module.from_units(runtime._open(spec), world.units, codegen=codegen or _codegen(),
                                           cache=self.targetoptions.get("cache"))
        self._exceptions = world.exceptions
        codes = list(self.targetoptions.get("link_callbacks", ()))
        for f in world.foreign:
            codes += f.callbacks
        if codes:
            module.set_load_hook(_load_hook(codes))
        return module

    def _compiled(self, spec):
        """This function's module and kernel on device `spec`, compiled on first use."""
        _warn_inactive_breakpoints(self, spec)
        module = self._module(spec, codegen=None if runtime._is_sim(spec) else self._gpu_codegen)
        kernel = None if self.targetoptions["device"] else module.kernel(self._code_name)
        return _Compiled(module, kernel)


def _rebuild_jit_function(cls, function_state, declared, options):
    fn = serialize.rebuild_function(function_state)
    if cls is Dispatcher:
        d = Dispatcher(fn, declared, options)
        for sig in declared:
            d.compile(sig)
        return d
    return cls(fn, declared, options)


class _LaunchConfig:
    """`kernel[griddim, blockdim, stream, sharedmem]` or `kernel.configure(...)`: call it with
    the arguments. `pre_launch_callbacks` (numba's): functions called with (kernel, launch
    configuration) before each launch. `timeout`: the simulator's watchdog for these
    launches, in seconds (0: CUTWIN_SIM_TIMEOUT's)."""

    __slots__ = ("dispatcher", "griddim", "blockdim", "stream", "sharedmem", "_native_stream",
                 "pre_launch_callbacks", "timeout")

    def __init__(self, dispatcher, griddim, blockdim, stream, sharedmem, timeout=0.0):
        self.dispatcher, self.griddim, self.blockdim = dispatcher, griddim, blockdim
        self.stream, self.sharedmem, self.timeout = stream, sharedmem, timeout
        self._native_stream = runtime._native_stream(stream)
        self.pre_launch_callbacks = []

    def __call__(self, *args):
        for callback in self.pre_launch_callbacks:
            callback(self.dispatcher, self)
        self.dispatcher._launch(self.griddim, self.blockdim, self._native_stream, self.sharedmem, args,
                                self.timeout)

    @property
    def args(self):
        """numba's: the arguments of a launch being compiled live in launchconfig's
        per-thread configuration, not here."""
        return None

    def _copy(self):
        """Another configuration of the same launch (its own callbacks)."""
        c = object.__new__(_LaunchConfig)
        c.dispatcher, c.griddim, c.blockdim, c.stream = self.dispatcher, self.griddim, self.blockdim, self.stream
        c.sharedmem, c._native_stream, c.pre_launch_callbacks = self.sharedmem, self._native_stream, []
        c.timeout = self.timeout
        return c

    def __reduce__(self):
        if self.pre_launch_callbacks:
            raise pickle.PicklingError("Cannot pickle configured launches with pre-launch callbacks")
        return (_rebuild_launch_config, (self.dispatcher, self.griddim, self.blockdim, self.stream, self.sharedmem,
                                         self.timeout))


def _rebuild_launch_config(dispatcher, griddim, blockdim, stream, sharedmem, timeout=0.0):
    return dispatcher.configure(griddim, blockdim, stream, sharedmem, timeout=timeout or None)


_SCALAR_NAMES = {}  # NumPy scalar type -> its dtype's name
# NumPy's numeric scalar types, whose values the extension reads itself (no `item()`).
_NATIVE_SCALARS = {t: np.dtype(t).name for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                                 np.uint16, np.uint32, np.uint64, np.float16, np.float32,
                                                 np.float64, np.complex64, np.complex128)}
_cutwin.register_scalar_types(_NATIVE_SCALARS)


# Types whose instances export the CUDA Array Interface or DLPack (a class attribute or
# property): launches pass them straight to C++ (python/src/foreign_arrays.h).
_FOREIGN_TYPES = set()


class Dispatcher(_JitFunction):
    """A kernel: `kernel[griddim, blockdim](*args)`, `kernel[griddim, blockdim, stream,
    sharedmem](*args)`, `kernel.forall(n)(*args)`."""

    def __init__(self, py_func, signatures, options):
        super().__init__(py_func, signatures, options)
        self.extensions = list(options.get("extensions") or ())
        self._per_device = {}
        self._configs = {}  # launch configurations seen, by their [...] key

    def _kernel(self, spec):
        c = self._per_device.get(spec)
        if c is None:
            c = self._per_device[spec] = self._compiled(spec)
        return c.kernel

    def __getitem__(self, config):
        try:
            c = self._configs[config]
            warn_low_occupancy(c.griddim)
            return c._copy()
        except (KeyError, TypeError):  # new, or unhashable (lists)
            pass
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise ValueError("a launch takes [griddim, blockdim] or [griddim, blockdim, stream, sharedmem]")
        c = _LaunchConfig(self, _dim3(config[0], "griddim"), _dim3(config[1], "blockdim"),
                          config[2] if len(config) > 2 else 0, int(config[3]) if len(config) > 3 else 0)
        try:
            if len(self._configs) < 256:
                self._configs[config] = c
        except TypeError:
            pass
        warn_low_occupancy(c.griddim)
        return c._copy()

    def configure(self, griddim, blockdim, stream=0, sharedmem=0, timeout=None):
        """numba's `kernel.configure(griddim, blockdim, stream, sharedmem)`, which
        `kernel[...]` is; `timeout` (cutwin's): the simulator's watchdog for these launches,
        in seconds - a launch running longer raises KernelTimeoutError saying where its
        threads were (None: CUTWIN_SIM_TIMEOUT's, if set; GPUs have no watchdog)."""
        if timeout is None:
            return self[griddim, blockdim, stream, sharedmem]
        if not 0 < float(timeout) < float("inf"):
            raise ValueError("timeout must be a positive number of seconds, not %r" % (timeout,))
        c = _LaunchConfig(self, _dim3(griddim, "griddim"), _dim3(blockdim, "blockdim"), stream, int(sharedmem),
                          float(timeout))
        warn_low_occupancy(c.griddim)
        return c

    def __call__(self, *args, **kwargs):
        raise ValueError("kernel launch configuration was not specified; launch with "
                         "%s[blockspergrid, threadsperblock](arg0, ...)" % self.__name__)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A 1-D launch of `ntasks` threads (blocks of `tpb`, 256 if 0)."""
        if int(ntasks) < 0:
            raise ValueError("Can't create ForAll with negative task count: %s" % ntasks)
        tpb = int(tpb) or 256
        return self[max(1, (int(ntasks) + tpb - 1) // tpb), tpb, stream, sharedmem]

    def _compile_for_args(self, *args, **kws):
        """Compiles the specialisation for these arguments' types (numba's hook: a launch
        that must compile calls it with its configuration current, launchconfig.py)."""
        return self.compile(tuple(ct.typeof(a) for a in args))

    def mark_launch_config_sensitive(self):
        """numba's: the code compiled depends on the launch configuration. cutwin's code
        never does; the mark is kept (`overloads[...].launch_config_sensitive`)."""
        self._launch_config_sensitive = True

    def _compile_with_config(self, griddim, blockdim, stream, sharedmem, args):
        """Where `_compile_for_args` is replaced (numba's launchconfig hooks), a launch of new
        argument types calls it, with the launch's configuration current in this thread."""
        try:
            types = tuple(ct.typeof(a) for a in args)
        except TypeError:
            return
        if types in self._all_signatures():
            return
        with launchconfig.launch_config(launchconfig.LaunchConfig(self, griddim, blockdim, stream, sharedmem, args)):
            self._compile_for_args(*args)

    def _launch(self, griddim, blockdim, stream, sharedmem, args, timeout=0.0):
        """Launches on the current backend; `stream` is the native stream or None."""
        if "_compile_for_args" in self.__dict__:
            self._compile_with_config(griddim, blockdim, stream, sharedmem, args)
        copy_back = None
        if self.extensions:
            copy_back = []
            args = self._prepare_args(args, stream, copy_back)
        spec = runtime._selected_spec()
        c = self._per_device.get(spec)
        kernel = c.kernel if c is not None else self._kernel(spec)
        native, foreign = [], False
        for a in args:
            t = type(a)
            if t is DeviceNDArray:
                native.append(a._arr)
            elif t is int or t is float or t is bool or t is complex:
                native.append(a)
            elif t in _NATIVE_SCALARS:
                native.append(a)
            elif t in _FOREIGN_TYPES:  # CuPy, PyTorch, JAX, ...: read in C++ and used in place
                native.append(a)
                foreign = True
            elif t is np.ndarray or (isinstance(a, np.ndarray) and not hasattr(a, "__cuda_array_interface__")):
                warn_implicit_copy()
                d = to_device(a)
                native.append(d._arr)
                if a.flags.writeable:
                    copy_back = copy_back or []
                    copy_back.append((d, a))
            elif isinstance(a, np.void) and a.dtype.names:  # a record: by reference, as numba passes it
                copy_back = copy_back if copy_back is not None else []
                native.append(_record_argument(a, copy_back))
            elif t is np.datetime64 or t is np.timedelta64:  # (the unit is in the value's dtype)
                native.append((a.dtype.name, int(a.view(np.int64))))
            elif isinstance(a, np.generic):
                name = _SCALAR_NAMES.get(t)
                if name is None:  # dtype.name costs microseconds: once per type
                    name = _SCALAR_NAMES[t] = a.dtype.name
                native.append((name, a.item()))
            elif isinstance(a, DeviceNDArray):
                native.append(a._arr)
            elif hasattr(a, "__cuda_array_interface__") or hasattr(a, "__dlpack__"):
                native.append(a)  # (an interface of the instance's own, or a type seen first)
                foreign = True
                if (hasattr(t, "__cuda_array_interface__") or hasattr(t, "__dlpack__")) and \
                        not issubclass(t, np.ndarray):  # (a host array whose interface may be absent)
                    _FOREIGN_TYPES.add(t)
            elif isinstance(a, tuple):
                copy_back = copy_back if copy_back is not None else []
                native.append(_native_tuple(a, self.__name__, copy_back))
            elif isinstance(a, enum.Enum):
                native.append(_native_enum(a, self.__name__))
            elif isinstance(a, ArgHint):  # cuda.In/Out/InOut
                copy_back = copy_back or []
                native.append(a.to_device(copy_back, stream or 0)._arr)
            else:
                raise TypeError("cutwin cannot pass a %s to kernel '%s'" % (t.__name__, self.__name__))
        try:
            compile_warnings = kernel.launch(griddim, blockdim, native, sharedmem, stream, timeout,
                                             not foreign or setting("CUDA_ARRAY_INTERFACE_SYNC", 1) != 0)
            if compile_warnings:
                _warn_compiled(compile_warnings)
        except KernelError as e:
            if self._exceptions:
                raise as_user_exception(e, self._exceptions) from None
            raise
        if copy_back:  # NumPy arguments come back after the kernel, as in numba
            for item in copy_back:
                if callable(item):  # what an ArgHint left to do
                    item()
                else:
                    item[0].copy_to_host(item[1])

    def _prepare_args(self, args, stream, retr):
        """numba's launch extensions: each `prepare_args(ty, val, stream=, retr=)` may
        replace an argument (e.g. by an ArgHint); the last one's value is launched."""
        out = []
        for a in args:
            try:
                ty = ct.typeof(a)
            except TypeError:
                ty = None
            for ext in self.extensions:
                ty, a = ext.prepare_args(ty, a, stream=stream or 0, retr=retr)
            out.append(a)
        return out

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """The largest grid (in blocks of `blockdim`) a launch of this kernel can have when
        it syncs the grid: all blocks resident at once. Uses the declared signature, or
        the types of the latest launch."""
        if len(self._declared) == 1:
            return self.compile(self._declared[0]).max_cooperative_grid_blocks(blockdim, dynsmemsize)
        kernel = self._kernel(runtime._selected_spec())
        return kernel.max_cooperative_grid_blocks(_dim3(blockdim, "blockdim"), int(dynsmemsize), None)

    # -- compilation and inspection
    def compile(self, sig):
        """Compiles for a signature ahead of the first launch; returns the compiled
        overload (numba's kernel object: max_cooperative_grid_blocks, inspect_*)."""
        sig = as_signature(sig)
        self._native_args(sig, "ir")
        return _Overload(self, sig)

    @property
    def signatures(self):
        """numba's: every signature compiled, the declared ones first, then those launches
        compiled (as argument-type tuples)."""
        out = list(self._declared)
        declared = [tuple(s.args) for s in self._declared if isinstance(s, ct.Signature)]
        out += [args for args in self._all_signatures() if args not in declared]
        return out

    @property
    def specialized(self):
        return getattr(self, "_specialized", False)

    @property
    def specializations(self):
        """The dispatchers `specialize` made, by device and argument types."""
        if not hasattr(self, "_specializations"):
            self._specializations = {}
        return self._specializations

    def specialize(self, *args):
        """A dispatcher compiled for these arguments' types (values, or types) alone."""
        if self.specialized or self._declared:
            raise RuntimeError("Dispatcher already specialized")
        argtypes = tuple(as_signature((a,)).args[0] if type_text(a) is not None else ct.typeof(a)
                         for a in args)
        key = (runtime._selected_spec(), argtypes)
        d = self.specializations.get(key)
        if d is None:
            d = Dispatcher(self.py_func, [ct.Signature(None, argtypes)], self.targetoptions)
            d.compile(d._declared[0])
            d._specialized = True
            self.specializations[key] = d
        return d

    def _attribute(self, name, signature):
        """A compiled kernel's attribute: for `signature`; without one, for the one declared
        signature of a kernel compiled for exactly one (numba's specialized kernels), else a
        dict by argument types (numba's type objects find the same entries)."""
        if signature is None and len(self._declared) == 1:
            signature = self._declared[0]
        if signature is not None:
            sig = as_signature(signature)
            return self._kernel(runtime._selected_spec()).attributes(_dummy_args(sig))[name]
        out = _Overloads()
        for sig in self._all_signatures():
            out[sig] = self._kernel(runtime._selected_spec()).attributes(_dummy_args(sig))[name]
        return out

    def get_regs_per_thread(self, signature=None):
        """Registers per thread of the compiled kernel (0 on the simulator, which has none);
        a dict by argument types without a signature."""
        return self._attribute("regs_per_thread", signature)

    def get_shared_mem_per_block(self, signature=None):
        return self._attribute("shared_mem_per_block", signature)

    def get_local_mem_per_thread(self, signature=None):
        return self._attribute("local_mem_per_thread", signature)

    def get_const_mem_size(self, signature=None):
        return self._attribute("const_mem_size", signature)

    def get_max_threads_per_block(self, signature=None):
        return self._attribute("max_threads_per_block", signature)

    def _native_args(self, sig, what, arch="sm_90"):
        args = _dummy_args(sig)
        kernel = self._kernel(runtime._selected_spec())
        out = kernel.ir(args) if what == "ir" else kernel.ptx(args, arch)
        _warn_compiled(kernel.take_warnings())
        return out

    @property
    def stats(self):
        """numba's compile statistics for the selected device: `cache_path`, the kernel cache's
        folder (None where this kernel is not kept on disk), and Counters by argument-type tuple
        of the specializations loaded from it (`cache_hits`) and compiled with it on
        (`cache_misses`)."""
        hits, misses, path = collections.Counter(), collections.Counter(), None
        c = self._per_device.get(runtime._selected_spec())
        if c is not None and c.module.cache_directory:
            path = c.module.cache_directory
            cached = [tuple(t) for t in c.kernel.cached_signatures()]
            for texts in c.kernel.compiled_signatures():
                key = _parsed_signature(texts) or tuple(texts)
                if tuple(texts) in cached:
                    hits[key] += 1
                else:
                    misses[key] += 1
        return _CompileStats(path, hits, misses)

    def _all_signatures(self):
        """The declared signatures and those launches compiled, as argument-type tuples."""
        out = [tuple(s.args) for s in self._declared if isinstance(s, ct.Signature)]
        c = self._per_device.get(runtime._selected_spec())
        if c is not None:
            for texts in c.kernel.compiled_signatures():
                sig = _parsed_signature(texts)
                if sig is not None and sig not in out:
                    out.append(sig)
        return out

    def _inspect(self, signature, what):
        if signature is not None:
            return self._native_args(as_signature(signature), what)
        out = _Overloads()  # by argument types: numba's type objects find the entries too
        for sig in self._all_signatures():
            out[sig] = self._native_args(sig, what)
        return out

    def inspect_llvm(self, signature=None):
        """The kernel IR (LLVM 16) for a signature, or a dict for the declared ones."""
        return self._inspect(signature, "ir")

    def _local_types(self, signature):
        """Each variable's type (cutwin's type objects) for a signature."""
        texts = self._kernel(runtime._selected_spec()).local_types(_dummy_args(as_signature(signature)))
        out = {}
        for name, text in texts.items():
            try:
                out[name] = ct.parse_signature("(%s,)" % text).args[0]
            except TypeError:
                pass  # a type the signature syntax cannot spell
        return out

    def inspect_types(self, file=None, signature=None):
        """Prints, for each compiled signature (or `signature`), the kernel's name, its
        argument types and the type of each of its variables (numba's annotation shows
        them beside its own IR, which cutwin does not have)."""
        import sys

        out = file if file is not None else sys.stdout
        for sig in [as_signature(signature).args] if signature is not None else self._all_signatures():
            print("%s (%s)" % (self.__name__, ", ".join(str(t) for t in sig)), file=out)
            for name, t in sorted(self._local_types(sig).items()):
                print("    %s: %s" % (name, t), file=out)

    def inspect_asm(self, signature=None):
        """PTX for a signature (the GPU code generator's, whatever the backend)."""
        return self._inspect(signature, "ptx")

    def inspect_sass(self, signature=None):
        """SASS for a signature (ptxas and nvdisasm of the PTX, sass.py), or a dict of all."""
        return self._sass(signature, cfg=False)

    def inspect_sass_cfg(self, signature=None):
        """nvdisasm's control-flow graph (DOT) of the SASS for a signature, or a dict of all."""
        return self._sass(signature, cfg=True)

    def _sass(self, signature, cfg):
        ptx = self.inspect_asm(signature)
        if signature is not None:
            return sass.sass(ptx, cfg)
        out = _Overloads()
        for sig, text in ptx.items():
            out[sig] = sass.sass(text, cfg)
        return out

    @property
    def overloads(self):
        """The compiled kernels - declared signatures and those launches compiled - by
        argument-type tuple (numba's type objects and signature text find them too)."""
        out = _Overloads()
        for args in self._all_signatures():
            out[args] = _Overload(self, args)
        return out

    def __repr__(self):
        return "<cutwin kernel %s>" % self.__qualname__


class _Overloads(dict):
    """Overloads by argument types; numba's type objects (and NumPy dtypes) find the same
    entries as cutwin's."""

    def _key(self, key):
        if isinstance(key, (tuple, str, ct.Signature)) and key not in self.keys():
            try:
                return tuple(as_signature(key).args)
            except TypeError:
                pass
        return key

    def __getitem__(self, key):
        return dict.__getitem__(self, self._key(key))

    def __contains__(self, key):
        return dict.__contains__(self, self._key(key))

    def get(self, key, default=None):
        return dict.get(self, self._key(key), default)


class _Overload:
    """A kernel compiled for one signature (what numba's `compile` and `overloads` give)."""

    def __init__(self, dispatcher, sig):
        self._dispatcher, self.signature = dispatcher, sig

    @property
    def launch_config_sensitive(self):
        return getattr(self._dispatcher, "_launch_config_sensitive", False)

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        kernel = self._dispatcher._kernel(runtime._selected_spec())
        return kernel.max_cooperative_grid_blocks(_dim3(blockdim, "blockdim"), int(dynsmemsize),
                                                  _dummy_args(self.signature))

    @property
    def cooperative(self):
        """Whether the kernel syncs the grid (its launches are cooperative)."""
        kernel = self._dispatcher._kernel(runtime._selected_spec())
        return bool(kernel.attributes(_dummy_args(self.signature))["cooperative"])

    def inspect_llvm(self, signature=None):
        """The overload's kernel IR (a signature, as numba's compiled kernels take, must be its own)."""
        return self._dispatcher.inspect_llvm(self.signature)

    def inspect_asm(self, signature=None):
        return self._dispatcher.inspect_asm(self.signature)

    def inspect_sass(self, signature=None):
        return self._dispatcher.inspect_sass(self.signature)

    def inspect_sass_cfg(self, signature=None):
        return self._dispatcher.inspect_sass_cfg(self.signature)

    @property
    def _type_annotation(self):
        """numba's type annotation, as far as programs read it: `typemap`, the type of each
        of the kernel's variables (arguments included) by name."""
        return _TypeAnnotation(self._dispatcher._local_types(self.signature))

    def __repr__(self):
        return "<cutwin kernel %s(%s)>" % (self._dispatcher.__name__, self.signature)


class _TypeAnnotation:
    def __init__(self, typemap):
        self.typemap = typemap


class _DeviceFunctionLaunched(CutwinError, TypeError):
    """A device function launched as a kernel (numba: a RuntimeError)."""


class DeviceFunction(_JitFunction):
    """A `@cuda.jit(device=True)` function: callable from kernels only."""

    def __call__(self, *args, **kwargs):
        raise TypeError("'%s' is a device function: call it from a kernel" % self.__name__)

    def __getitem__(self, config):
        # numba raises a RuntimeError with these words; TypeError too, as cutwin did.
        raise _DeviceFunctionLaunched("Cannot compile a device function as a kernel: '%s' is a device function "
                                      "(device=True); call it from a kernel" % self.__name__)

    def _code(self, signature, output):
        module = self._module(runtime._selected_spec())
        return module.compile_function(self._code_name, compile_signature_text(signature), True, "numba", "", "sm_90",
                                       output)[0]

    def _each(self, signature, output):
        if signature is not None:
            return self._code(signature, output)
        return {as_signature(s).args: self._code(s, output) for s in self._declared}

    def compile_device(self, args, return_type=None):
        """Compiles the function for argument types `args` (numba's device dispatcher);
        returns numba's compile result: `fndesc.mangled_name` (the function's name in
        inspect_llvm/inspect_asm), `signature`, `return_type`."""
        sig = ct.Signature(return_type, tuple(args)) if return_type is not None else tuple(args)
        module = self._module(runtime._selected_spec())
        _, resty, name = module.compile_function(self._code_name, compile_signature_text(sig), True, "numba", "",
                                                 "sm_90", "ir")
        if sig not in self._declared:
            self._declared.append(as_signature(sig))
        return _CompileResult(self, name, ct.parse_signature("%s(%s)" % (resty, ", ".join(
            str(a) for a in as_signature(sig).args))))

    def inspect_llvm(self, signature=None):
        """The kernel IR of the function compiled on its own, with numba's ABI."""
        return self._each(signature, "ir")

    def inspect_asm(self, signature=None):
        """PTX of the function compiled on its own, with numba's ABI."""
        return self._each(signature, "ptx")

    def inspect_sass(self, signature=None):
        raise RuntimeError("Cannot inspect SASS of a device function")

    def __repr__(self):
        return "<cutwin device function %s>" % self.__qualname__


class _FunctionDescriptor:
    """numba's fndesc of a compiled device function: its names."""

    def __init__(self, py_func, mangled_name):
        self.mangled_name = mangled_name
        self.qualname = py_func.__qualname__
        self.modname = py_func.__module__


class _CompileResult:
    """What numba's compile_device returns, as far as it names the compiled function."""

    def __init__(self, device_function, mangled_name, signature):
        self.fndesc = _FunctionDescriptor(device_function.py_func, mangled_name)
        self.signature = signature
        self.return_type = signature.return_type
        self.entry_point = device_function


def _load_hook(codes):
    """numba's setup and teardown callbacks of linked code objects, per loaded kernel."""
    def hook(kernel, handle, loaded):
        for code in codes:
            callback = code.setup_callback if loaded else code.teardown_callback
            if callback is not None:
                callback(ctypes.c_void_p(handle or None))
    return hook


def _dummy_args(sig):
    """Arguments of a signature's types, for compiling without data."""
    if isinstance(sig, str):
        sig = ct.parse_signature(sig)
    types_ = sig.args if isinstance(sig, ct.Signature) else tuple(sig)
    dev = runtime._device()
    return [_dummy_arg(dev, t) for t in types_]


def _dummy_arg(dev, t):
    if isinstance(t, ct.Tuple):
        return tuple(_dummy_arg(dev, e) for e in t)
    if isinstance(t, ct._RecordType):
        return ("record", _cutwin.zeros(dev, str(t), [1]))
    if isinstance(t, ct.CPointer):  # an address, as launches pass it
        return ("int64", 0)
    if not isinstance(t, ct.Array):
        return (t.dtype.name, 0)
    record = isinstance(t.dtype, ct._RecordType)
    item = t.dtype.itemsize if record else t.dtype.dtype.itemsize
    shape = [2] * t.ndim
    base = _cutwin.zeros(dev, str(t.dtype) if record else t.dtype.dtype.name, [4] * t.ndim)
    if t.layout == "C":
        strides = _c_strides(shape, item)
    elif t.layout == "F":
        strides = _c_strides(shape[::-1], item)[::-1]
    else:
        strides = [2 * s for s in base.strides]
    return base.view(shape, strides)


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for s in reversed(shape):
        strides.insert(0, step)
        step *= s
    return strides


def _launch_bounds(lb):
    """numba's launch_bounds: an int or a tuple of 1 to 3 ints (max threads per block, min
    blocks per multiprocessor, max cluster rank)."""
    if lb is None:
        return []
    lb = (lb,) if isinstance(lb, int) else tuple(lb)
    if not 1 <= len(lb) <= 3:
        raise ValueError("Got %d launch bounds: %s. A maximum of three are supported: "
                         "(max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster)" % (len(lb), lb))
    return [int(v) for v in lb]


def _warn_compiled(messages):
    """numba's compile-time warnings (a print() of more than 32 items), as NumbaWarning."""
    for m in messages:
        warnings.warn(settings._warning_class("NumbaWarning")(m), stacklevel=3)


def _warn_inactive_breakpoints(fn, spec):
    """breakpoint() stops only in kernels compiled for debugging on the simulator: say so
    where one is compiled to nothing."""
    names = resolve.code_names(fn.py_func.__code__)
    if not names & {"breakpoint", "set_trace"}:
        return
    if not runtime._is_sim(spec):
        why = "GPU kernels do not stop (run it on the simulator: CUTWIN_BACKEND=sim)"
    elif not fn.targetoptions.get("debug"):
        why = "it is not compiled for debugging (debug=True, or CUTWIN_DEBUG=1)"
    else:
        return
    warnings.warn("breakpoints in '%s' do nothing: %s" % (fn.py_func.__name__, why), RuntimeWarning,
                  stacklevel=4)


def _inlines(inline):
    """Whether numba's `inline=` option inlines the function's calls: 'always' and True do,
    'never' and False do not; a cost model (numba calls it per call site with its own IR)
    is asked once, with no call site, and its answer applies to every call."""
    if inline in ("always", True):
        return True
    if inline in ("never", False, None):
        return False
    if callable(inline):
        return bool(inline(None, None, None))
    raise ValueError("inline must be 'always', 'never', a bool or a cost-model function, not %r" % (inline,))


def _carveout(carveout):
    """numba's shared_memory_carveout: -1 to 100 (percent) or "default", "MaxL1", "MaxShared",
    checked with numba's words. A preference of the GPU's L1/shared split: cutwin keeps it
    but does not set it yet (the driver's default split applies)."""
    if carveout is None:
        return None
    if isinstance(carveout, str):
        valid = ["default", "maxl1", "maxshared"]
        if carveout.lower() not in valid:
            raise ValueError("Invalid carveout value: %s. Must be -1 to 100 or one of %s" % (carveout, valid))
    elif isinstance(carveout, int):
        if not -1 <= carveout <= 100:
            raise ValueError("Carveout must be between -1 and 100")
    else:
        raise TypeError("shared_memory_carveout must be an int or a string, not %r" % (carveout,))
    return carveout


def _debug_default():
    """debug=None: CUTWIN_DEBUG=1 compiles every kernel for debugging (breakpoints stop), as
    does numba's CUDA_DEBUGINFO_DEFAULT setting."""
    return os.environ.get("CUTWIN_DEBUG", "") not in ("", "0") or bool(setting("CUDA_DEBUGINFO_DEFAULT"))


def _opt_default():
    """opt=None: numba's OPT setting (any level but 0 optimises; cutwin's default is on)."""
    return setting("OPT", 3) != 0


def _sanitize_option(sanitize):
    """sanitize=: None (CUTWIN_SANITIZE decides), a bool, or the checks' names ("race",
    "init", "all", "shared" (both, in shared memory only), "none", or several joined by
    commas; docs/sanitizers.md)."""
    if sanitize is None or isinstance(sanitize, bool):
        return sanitize
    if isinstance(sanitize, (list, tuple, set, frozenset)):
        sanitize = ",".join(sanitize)
    if not isinstance(sanitize, str):
        raise TypeError("cuda.jit(sanitize=...) takes a bool or the checks' names ('race', 'init', 'all'), not %r"
                        % (sanitize,))
    for word in sanitize.split(","):
        if word.strip() not in ("race", "init", "all", "shared", "none", ""):
            raise ValueError("cuda.jit(sanitize=%r): unknown check %r (the checks are race, init, all, shared "
                             "and none)" % (sanitize, word.strip()))
    return sanitize


def jit(func_or_sig=None, device=False, inline=False, link=None, debug=None, opt=None, lineinfo=False,
        cache=None, fastmath=False, boundscheck=None, max_registers=None, launch_bounds=None, forceinline=False,
        sanitize=None, **kws):
    """numba's `cuda.jit`: as a decorator with or without options and signatures."""
    debug = _debug_default() if debug is None else bool(debug)
    opt = _opt_default() if opt is None else opt
    warn_invalid_config(debug and os.environ.get("CUTWIN_DEBUG", "") in ("", "0"), opt, lineinfo)
    options = {"link": link_paths(link), "link_callbacks": with_callbacks(link), "device": bool(device),
               "debug": _debug_default() if debug is None else bool(debug), "opt": 3 if opt is True else 0 if opt is False else int(opt),
               "lineinfo": bool(lineinfo), "fastmath": bool(fastmath), "boundscheck": boundscheck,
               "sanitize": _sanitize_option(sanitize), "cache": None if cache is None else bool(cache), "inline": inline, "forceinline": bool(forceinline),
               "launch_bounds": _launch_bounds(launch_bounds),
               "shared_memory_carveout": _carveout(kws.pop("shared_memory_carveout", None)),
               "extensions": kws.pop("extensions", None)}

    def wrap(fn, sigs):
        if isinstance(fn, _JitFunction):
            fn = fn.py_func
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError("cuda.jit takes a Python function, not %r" % (fn,))
        if options["device"]:
            return DeviceFunction(fn, sigs, options)
        d = Dispatcher(fn, sigs, options)
        for sig in sigs or ():
            # Declared signatures compile (are typed) now, as numba's do: their errors are
            # the decorator's.
            d.compile(sig)
        return d

    if func_or_sig is None:
        return lambda fn: wrap(fn, None)
    if is_signature(func_or_sig):
        return lambda fn: wrap(fn, [as_signature(func_or_sig)])
    if isinstance(func_or_sig, list):
        return lambda fn: wrap(fn, [as_signature(s) for s in func_or_sig])
    return wrap(func_or_sig, None)


class CpuFunction(DeviceFunction):
    """`cutwin.jit` / `cutwin.njit` (numba's CPU `jit`): kernels of the same file call it as
    a device function, compiled with them; on the host it runs as the Python function it
    is (NumPy arrays included)."""

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)

    def __repr__(self):
        return "<cutwin CPU function %s>" % self.__qualname__


def cpu_jit(func_or_sig=None, **options):
    """numba's `jit` / `njit`: options (nopython, cache, fastmath, ...) and signatures are
    accepted; kernels compile the function for their own argument types."""
    declared = {"device": True, "debug": False, "opt": 3, "lineinfo": False, "fastmath": False,
                "boundscheck": None, "cache": None, "inline": "never"}

    def wrap(fn):
        fn = getattr(fn, "py_func", fn)
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError("jit takes a Python function, not %r" % (fn,))
        return CpuFunction(fn, None, declared)

    if callable(func_or_sig) and hasattr(func_or_sig, "__code__"):
        return wrap(func_or_sig)
    return wrap
