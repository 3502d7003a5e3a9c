"""Code to link given in memory (numba's LinkableCode): `@cuda.jit(link=[CUSource(text)])`
as well as file names. Each object is written once to a cache folder (named by its
content) and linked like a file of its kind; `setup_callback(module)` runs after a kernel
linked with it is loaded and `teardown_callback(module)` before it is unloaded, with the
loaded module's handle (a ctypes.c_void_p holding the CUmodule on a GPU, None on the
simulator)."""
import hashlib
import os
import tempfile


def _cache_dir():
    root = (os.environ.get("CUTWIN_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "cutwin"))
    d = os.path.join(root, "linkable")
    try:
        os.makedirs(d, exist_ok=True)
    except OSError:
        d = os.path.join(tempfile.gettempdir(), "cutwin-linkable")
        os.makedirs(d, exist_ok=True)
    return d


class LinkableCode:
    """Code of one kind (subclasses say which) to link with kernels."""

    kind = None  # the file extension its kind is linked as

    def __init__(self, data, name=None, setup_callback=None, teardown_callback=None):
        if isinstance(data, str):
            data = data.encode()
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("%s takes the code as bytes or str" % type(self).__name__)
        self.data = bytes(data)
        self.name = name or "<%s>" % type(self).__name__
        self.setup_callback, self.teardown_callback = setup_callback, teardown_callback
        self._path = None

    @property
    def path(self):
        """The file this code is linked from (written on first use)."""
        if self._path is None:
            digest = hashlib.sha256(self.data).hexdigest()[:24]
            path = os.path.join(_cache_dir(), "%s.%s" % (digest, self.kind))
            if not os.path.exists(path):
                tmp = "%s.%d.tmp" % (path, os.getpid())
                with open(tmp, "wb") as fh:
                    fh.write(self.data)
                os.replace(tmp, path)
            self._path = path
        return self._path

    @property
    def has_callbacks(self):
        return self.setup_callback is not None or self.teardown_callback is not None

    def __repr__(self):
        return "<%s %s, %d bytes>" % (type(self).__name__, self.name, len(self.data))


class CUSource(LinkableCode):
    """CUDA C++ source (NVRTC on a GPU; the host compiler on the simulator)."""
    kind = "cu"


class PTXSource(LinkableCode):
    kind = "ptx"


class Cubin(LinkableCode):
    kind = "cubin"


class Fatbin(LinkableCode):
    kind = "fatbin"


class Object(LinkableCode):
    kind = "o"


class Archive(LinkableCode):
    kind = "a"


class LTOIR(LinkableCode):
    kind = "ltoir"  # refused when linking: cutwin links through the driver, not nvJitLink
