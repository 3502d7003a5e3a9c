"""Devices and backends, streams, events: numba.cuda's runtime functions over cutwin's
devices. The backend is the simulator ("sim") or a GPU ("gpu", "gpu:N"), chosen by
CUTWIN_BACKEND=sim|gpu|auto (auto, the default: the GPU if one is available, else the
simulator) or in code with `cuda.use_backend(...)` (also a context manager). The simulator
presents CUTWIN_SIM_DEVICES devices (default 1; `set_simulated_devices(n)` in code): "sim"
is device 0, "sim:N" device N. Each host thread has its current device (`select_device`,
`with cuda.gpus[i]:`)."""
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
    if spec == "sim":
        return spec
    if spec.startswith(("gpu:", "sim:")) and spec[4:].isascii() and spec[4:].isdigit():
        return _spec_for(spec, int(spec[4:]))
    raise ValueError("unknown cutwin backend %r (expected sim, sim:N, gpu, gpu:N or auto)" % spec)


def _is_sim(spec):
    return spec.startswith("sim")


def _spec_for(kind_of, devnum):
    """The spec of device `devnum` of the kind `kind_of` (a spec) is."""
    if _is_sim(kind_of):
        return "sim" if int(devnum) == 0 else "sim:%d" % int(devnum)
    return "gpu:%d" % int(devnum)


def set_simulated_devices(n):
    """Makes the simulator present `n` devices from now on (as CUTWIN_SIM_DEVICES=n): they
    are `cuda.gpus` on the simulator backend, each with its own memory, streams and events."""
    _cutwin.Device.set_simulated_devices(int(n))


def simulated_devices():
    """How many devices the simulator presents."""
    return _cutwin.Device.count("sim")


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
    """Restores the thread's device (and, for use_backend, its backend) as it was."""

    def __init__(self, previous, previous_base=None, sets_base=False):
        self._previous, self._previous_base, self._sets_base = previous, previous_base, sets_base

    def __enter__(self):
        return current_backend()

    def __exit__(self, *exc):
        if self._previous is None:
            _state.__dict__.pop("spec", None)  # back to $CUTWIN_BACKEND on the next launch
        else:
            _state.spec = self._previous
        if self._sets_base:
            if self._previous_base is None:
                _state.__dict__.pop("base", None)
            else:
                _state.base = self._previous_base
        return False


def use_backend(spec):
    """Selects the backend (and its device) for this thread: "sim", "sim:N", "gpu",
    "gpu:N" or "auto". Returns a context manager that restores the previous one, so both
    forms work:

        cuda.use_backend("sim")
        with cuda.use_backend("gpu"): ...

    cuda.close() comes back to the device selected here."""
    previous, previous_base = getattr(_state, "spec", None), getattr(_state, "base", None)
    spec = _canonical(spec)
    _open(spec)  # fail here, not at the first launch
    _state.spec = _state.base = spec
    return _BackendScope(previous, previous_base, sets_base=True)


def _switch_device(spec):
    """numba's device switches (`with cuda.gpus[i]`, select_device): the thread's device,
    not while a function that requires the current context runs (numba's rule). Returns
    the scope that switches back."""
    attached = getattr(_state, "attached", None)
    if attached is not None and attached != spec:
        raise RuntimeError("Cannot switch CUDA-context.")
    return _select(spec)


def _select(spec):
    """Makes device `spec` the thread's; returns the scope that switches back."""
    previous = getattr(_state, "spec", None)
    _open(spec)
    _state.spec = spec
    return _BackendScope(previous)


@contextlib.contextmanager
def _on_device(spec):
    """Device `spec` current for the block, whatever require_context holds (cutwin's own
    work on a given device: an IPC handle opened in a context)."""
    with _select(spec):
        yield


@contextlib.contextmanager
def _attached():
    """The current device stays current for the block (numba's require_context)."""
    previous = getattr(_state, "attached", None)
    _state.attached = _selected_spec()
    try:
        yield
    finally:
        _state.attached = previous


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
        return _is_sim(self._spec)

    @property
    def uuid(self):
        """numba's device UUID text ("GPU-xxxxxxxx-..."): cutwin's, one per device, made from
        the device's PCI bus id (simulated devices: their number)."""
        n = _open(self._spec).attribute("PCI_BUS_ID") or 0
        return "GPU-c0717e00-0000-4000-8000-%012x" % (n if self.is_simulator else 0x100000 + n)

    def can_access_peer(self, peer_devnum):
        """Whether kernels of this device can reach device `peer_devnum`'s memory."""
        return _open(self._spec).can_access_peer(_open(_spec_for(self._spec, peer_devnum)))

    def __getattr__(self, name):
        # numba's device attributes: MULTIPROCESSOR_COUNT, MAX_THREADS_PER_BLOCK, WARP_SIZE, ...
        if name.isupper():
            v = _open(self._spec).attribute(name)
            if v is not None:
                return v
        raise AttributeError("%s has no attribute %r" % (type(self).__name__, name))

    def __enter__(self):
        # A stack per host thread: nested `with` blocks of one device each restore theirs.
        scopes = _state.__dict__.setdefault("device_scopes", [])
        scopes.append(_switch_device(self._spec))
        return self

    def __exit__(self, *exc):
        scopes = _state.__dict__.get("device_scopes")
        if scopes:  # (close() inside the block has made device 0 current already)
            scopes.pop().__exit__(*exc)
        return False

    def reset(self):
        _open(self._spec).synchronize()

    def __repr__(self):
        return "<cutwin device %s: %s>" % (self._spec, self.name)


class _GpuInfo(_DeviceInfo):
    @property
    def compute_capability(self):
        name = self.name  # "NVIDIA H200 (sm_90)"
        sm = name[name.rfind("sm_") + 3:].rstrip(")")
        return (int(sm[:-1]), int(sm[-1]))


def _info(spec):
    return _DeviceInfo(spec) if _is_sim(spec) else _GpuInfo(spec)


def get_current_device():
    return _info(_selected_spec())


def list_devices():
    """The devices of the current backend, as numba lists them (`[d.id for d in
    cuda.list_devices()]`): the GPUs, or the simulated devices."""
    return list(gpus)


def select_device(device_id):
    """Makes device `device_id` of the current backend current for this thread (numba's
    meaning) and returns it."""
    n = len(gpus)
    if not 0 <= int(device_id) < n:
        raise DeviceError("no device %d: the %s backend has %d" % (
            device_id, "simulator" if _is_sim(_selected_spec()) else "GPU", n))
    _switch_device(_spec_for(_selected_spec(), device_id))
    return get_current_device()


def close():
    """numba's close(): waits for the devices of the current backend, ends their peer
    access (in the main thread, where numba resets its devices), and makes the thread's device the one it started with (device 0, or what
    use_backend or $CUTWIN_BACKEND selected) again. cutwin keeps devices open for the life
    of the process: arrays made before stay valid."""
    opened = [_devices[s] for s in gpus._specs() if s in _devices]
    for d in opened:
        d.synchronize()
    if threading.current_thread() is threading.main_thread():  # numba resets devices there only
        for d in opened:
            for peer in opened:
                if peer is not d:
                    d.disable_peer_access(peer)
    if getattr(_state, "attached", None) is None:
        _state.spec = getattr(_state, "base", None) or _canonical(os.environ.get("CUTWIN_BACKEND", "auto"))
    _state.__dict__.pop("device_scopes", None)


class _Gpus:
    """`cuda.gpus`: the devices of the current backend (the simulator's: CUTWIN_SIM_DEVICES)."""

    def _specs(self):
        if _is_sim(_selected_spec()):
            return ["sim"] + ["sim:%d" % k for k in range(1, simulated_devices())]
        return ["gpu:%d" % k for k in range(_cutwin.Device.count("gpu"))]

    @property
    def lst(self):
        return list(self)

    def __len__(self):
        return len(self._specs())

    def __getitem__(self, i):
        specs = self._specs()
        if isinstance(i, slice):
            return [_info(s) for s in specs[i]]
        return _info(specs[int(i)])

    def __iter__(self):
        return (_info(s) for s in self._specs())

    @property
    def current(self):
        return get_current_device()


gpus = _Gpus()


def detect():
    """Prints the devices cutwin can use and returns True (numba's `cuda.detect`)."""
    print("cutwin backend: %s" % current_backend())
    print("  simulator: %s (%d device%s)" % (_open("sim").name, simulated_devices(),
                                             "" if simulated_devices() == 1 else "s"))
    if gpu_available():
        for g in ["gpu:%d" % k for k in range(_cutwin.Device.count("gpu"))]:
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
