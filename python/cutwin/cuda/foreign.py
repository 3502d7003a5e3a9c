"""Code kernels link against: `link=` lists of files and code objects, and the device
functions they define that kernels call (`cuda.declare_device`)."""
import os

from .linkable_code import LinkableCode
from .signatures import as_signature


def link_paths(link):
    """`link=` as a list of paths: code objects (CUSource, ...) by their cached file;
    relative paths that exist from the working directory become absolute (numba reads them
    from there), others are looked up beside the kernel file when it compiles."""
    if not link:
        return []
    if isinstance(link, (str, os.PathLike, LinkableCode)):
        link = [link]
    out = []
    for f in link:
        if isinstance(f, LinkableCode):
            out.append(f.path)
            continue
        f = os.fspath(f)
        out.append(os.path.abspath(f) if os.path.exists(f) else f)
    return out


def with_callbacks(link):
    if isinstance(link, LinkableCode):
        link = [link]
    return [c for c in (link or ()) if isinstance(c, LinkableCode) and c.has_callbacks]


class ForeignFunction:
    """`cuda.declare_device(name, sig)`: a device function defined in a linked file
    (`@cuda.jit(link=[...])`, or `link=` here), called with numba's ABI `int name(T *ret,
    args...)`, or with abi="c" as `T name(args...)`. Kernels call it like any device
    function."""

    def __init__(self, name, sig, link=None, abi="numba"):
        if abi not in ("numba", "c"):
            raise NotImplementedError("unsupported ABI: %r (expected 'numba' or 'c')" % (abi,))
        try:
            sig = as_signature(sig)
        except TypeError as e:
            raise TypeError("Return type must be given: declare_device needs a signature such as "
                            "float32(float32, float32) (%s)" % e) from None
        if sig.return_type is None:
            raise TypeError("Return type must be given: declare_device needs a signature with a return type, "
                            "e.g. float32(float32, float32)")
        self.name, self.sig, self.link, self.abi = name, sig, link_paths(link), abi
        self.callbacks = with_callbacks(link)
        self.__name__ = name

    def __call__(self, *args):
        raise TypeError("'%s' is a foreign device function: call it from a kernel" % self.name)

    def __repr__(self):
        return "<cutwin foreign device function %s%s>" % (self.name, str(self.sig)[len(str(self.sig.return_type)):])


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """numba's `cuda.declare_device`: a foreign device function's name and signature
    (`use_cooperative` is accepted: cutwin sees grid syncs in the linked code itself)."""
    return ForeignFunction(name, sig, link, abi)
