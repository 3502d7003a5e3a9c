"""Devices and backends, streams, events: numba.cuda's runtime functions over cutwin's
devices. The backend is the simulator ("sim") or a GPU ("gpu", "gpu:N"), chosen by
CUTWIN_BACKEND=sim|gpu|auto (auto, the default: the GPU if one is available, else the
simulator) or in code with `cuda.use_backend(...)` (also a context manager)."""
import contextlib
import ctypes
import os
import threading

from .. import _cutwin
from ..errors import DeviceError

_state = threading.local()
_devices = {}  # canonical spec ("sim", "gpu:0") -> _cutwin.Device
_lock = threading.Lock()
_gpu_probe = None  # None: not probed yet; else the error text ("" if a GPU is there)
# The current device's context: memory.py, above this module, installs its maker.
_current_context = None


def set_context_maker(current_context):
    """Installs the function that gives the current device's context (memory.py's)."""
    global _current_context
    _current_context = current_context


def _canonical(spec):
    spec = spec.strip().lower()
    if spec == "auto":
        return "gpu:0" if gpu_available() else "sim"
    if spec == "gpu":
        return "gpu:0"
    if spec == "sim" or spec.startswith("gpu:"):
        return spec
    raise ValueError("unknown cutwin backend %r (expected sim, gpu, gpu:N or auto)" % spec)


def gpu_available():
    """True if an NVIDIA GPU can be used (driver present, a device visible)."""
    global _gpu_probe
    if _gpu_probe is None:
        try:
            _open("gpu:0")
            _gpu_probe = ""
        except DeviceError as e:
            _gpu_probe = str(e) or "no GPU"
    return _gpu_probe == ""


def _open(spec):
    with _lock:
        dev = _devices.get(spec)
        if dev is None:
            dev = _cutwin.Device.open(spec)
            _devices[spec] = dev
        return dev


def _selected_spec():
    try:
        return _state.spec  # every launch asks: the fast path is one attribute read
    except AttributeError:
        _state.spec = _canonical(os.environ.get("CUTWIN_BACKEND", "auto"))
        return _state.spec


def current_backend():
    """'sim' or 'gpu:N': where kernels launched now run."""
    return _selected_spec()


def _device():
    """The C++ device kernels and arrays use now."""
    return _open(_selected_spec())


class _BackendScope:
    def __init__(self, previous):
        self._previous = previous

    def __enter__(self):
        return current_backend()

    def __exit__(self, *exc):
        if self._previous is None:
            del _state.spec  # back to $CUTWIN_BACKEND on the next launch
        else:
            _state.spec = self._previous
        return False


def use_backend(spec):
    """Selects the backend for this thread: "sim", "gpu", "gpu:N" or "auto". Returns a
    context manager that restores the previous one, so both forms work:

        cuda.use_backend("sim")
        with cuda.use_backend("gpu"): ...
    """
    previous = getattr(_state, "spec", None)
    _state.spec = _canonical(spec)
    _open(_state.spec)  # fail here, not at the first launch
    return _BackendScope(previous)


# -- numba.cuda's device functions -----------------------------------------------------------


def is_available():
    """True: kernels can run (on the GPU, or on the simulator where there is none). Use
    `gpu_available()` to ask for a GPU."""
    try:
        _device()
        return True
    except DeviceError:
        return False


def synchronize():
    """Waits for all work on the current device; raises the fault of a kernel that failed."""
    _device().synchronize()


class _DeviceInfo:
    """A device as numba's driver describes it (`cuda.get_current_device()`, the items of
    `cuda.gpus` and `cuda.list_devices()`, `cudadrv.driver.Device(n)`): id, name,
    compute capability, the driver's attributes (MULTIPROCESSOR_COUNT, ...), and a
    context manager that makes it current."""

    def __init__(self, spec):
        self._spec = spec
        self.id = 0 if spec == "sim" else int(spec.split(":")[1])

    @property
    def name(self):
        return _open(self._spec).name

    @property
    def supports_float16(self):
        return True

    @property
    def supports_bfloat16(self):
        return True  # as cuda.is_bfloat16_supported()

    def get_primary_context(self):
        with use_backend(self._spec):
            return _current_context()

    def release_primary_context(self):
        pass

    def __eq__(self, other):
        return isinstance(other, _DeviceInfo) and other._spec == self._spec

    def __hash__(self):
        return hash(self._spec)

    @property
    def compute_capability(self):
        return (9, 0)  # the simulator applies sm_90 limits; GPUs are asked below

    @property
    def is_simulator(self):
        return self._spec == "sim"

    def __getattr__(self, name):
        # numba's device attributes: MULTIPROCESSOR_COUNT, MAX_THREADS_PER_BLOCK, WARP_SIZE, ...
        if name.isupper():
            v = _open(self._spec).attribute(name)
            if v is not None:
                return v
        raise AttributeError("%s has no attribute %r" % (type(self).__name__, name))

    def __enter__(self):
        self._scope = use_backend(self._spec)
        return self

    def __exit__(self, *exc):
        self._scope.__exit__(*exc)
        return False

    def reset(self):
        synchronize()

    def __repr__(self):
        return "<cutwin device %s: %s>" % (self._spec, self.name)


class _GpuInfo(_DeviceInfo):
    @property
    def compute_capability(self):
        name = self.name  # "NVIDIA H200 (sm_90)"
        sm = name[name.rfind("sm_") + 3:].rstrip(")")
        return (int(sm[:-1]), int(sm[-1]))


def _info(spec):
    return _DeviceInfo(spec) if spec == "sim" else _GpuInfo(spec)


def get_current_device():
    return _info(_selected_spec())


def list_devices():
    """The devices of the current backend, as numba lists them (`[d.id for d in
    cuda.list_devices()]`): the GPUs, or the simulator as device 0."""
    return list(gpus)


def select_device(device_id):
    """Makes GPU `device_id` current (numba's meaning); on the simulator backend only
    device 0 exists."""
    if _selected_spec() == "sim":
        if device_id != 0:
            raise DeviceError("the simulator backend has one device (0)")
        return get_current_device()
    use_backend("gpu:%d" % device_id)
    return get_current_device()


def close():
    """Synchronises; cutwin keeps devices open for the life of the process."""
    synchronize()


class _Gpus:
    """`cuda.gpus`: the devices of the current backend (the simulator counts as one)."""

    def _specs(self):
        if _selected_spec() == "sim":
            return ["sim"]
        specs = []
        while True:
            spec = "gpu:%d" % len(specs)
            try:
                _open(spec)
            except DeviceError:
                return specs
            specs.append(spec)

    def __len__(self):
        return len(self._specs())

    def __getitem__(self, i):
        return _info(self._specs()[i])

    def __iter__(self):
        return (_info(s) for s in self._specs())

    @property
    def current(self):
        return get_current_device()


gpus = _Gpus()


def detect():
    """Prints the devices cutwin can use and returns True (numba's `cuda.detect`)."""
    print("cutwin backend: %s" % current_backend())
    print("  simulator: %s" % _open("sim").name)
    if gpu_available():
        for g in _Gpus()._specs() if _selected_spec() != "sim" else ["gpu:0"]:
            print("  %s: %s" % (g, _open(g).name))
    else:
        print("  no GPU: %s" % _gpu_probe)
    return True


# -- streams and events -------------------------------------------------------------------------


class Address(int):
    """An address as numba-cuda gives one (a CUstream, a device array's data pointer): the
    int, which also reads as a ctypes pointer does (`.value`; None for 0)."""

    @property
    def value(self):
        return int(self) or None


class Stream:
    """A CUDA stream (on the simulator, launches complete in order anyway). `external` is
    true for a stream another library made (external_stream)."""

    def __init__(self, native=None, external=False):
        self._native = native
        self.external = external

    @property
    def handle(self):
        return Address(int(self))

    def __int__(self):
        return 0 if self._native is None else self._native.handle

    def synchronize(self):
        if self._native is None:
            synchronize()
        else:
            self._native.synchronize()

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def __repr__(self):
        return "<cutwin stream %s>" % ("default" if self._native is None else hex(self._native.handle))


def stream():
    return Stream(_device().create_stream())


def default_stream():
    return Stream(None)


def external_stream(ptr):
    """A Stream over a CUDA stream another library made (its CUstream handle, as an int);
    cutwin does not destroy it. On the simulator, which has no CUDA streams, the handle is
    the stream's identity (launches on it run in order, as on every stream there)."""
    return Stream(_device().external_stream(int(ptr or 0)), external=True)


legacy_default_stream = default_stream
per_thread_default_stream = default_stream


def _native_stream(s):
    """The C++ stream of a launch or copy argument: 0/None/default -> None."""
    if s is None or s == 0 or isinstance(s, int):
        return None
    return s._native


class Event:
    def __init__(self, timing=True):
        self._native = _device().create_event()

    def record(self, stream=0):
        self._native.record(_native_stream(stream))

    def synchronize(self):
        self._native.synchronize()

    def wait(self, stream=0):
        self._native.synchronize()

    def query(self):
        self._native.synchronize()
        return True

    def elapsed_time(self, end):
        """Milliseconds from this event to `end` (numba's argument order)."""
        return end._native.elapsed_ms(self._native)


def event(timing=True):
    return Event(timing)


def event_elapsed_time(start, end):
    return start.elapsed_time(end)
