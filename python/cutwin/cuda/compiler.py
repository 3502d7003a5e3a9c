"""numba's compilation API: `compile`, `compile_ptx` and their `_for_current_device`
forms. GPU code comes from cutwin's GPU code generator whatever the backend, so PTX can be
made on a machine without a GPU. Device functions take numba's ABI (`int f(T *ret,
args...)`, the result stored through `ret`, status 0) or the C ABI (`T f(args...)`)."""
from .. import types as ct
from . import runtime
from .dispatcher import _JitFunction, _codegen
from .signatures import compile_signature_text


def _type_named(name):
    return ct.none if name == "none" else ct.parse_signature("(%s,)" % name).args[0]


def _arch(cc):
    if cc is None:
        return "sm_90"
    major, minor = cc
    return "sm_%d%d" % (major, minor)


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None, opt=None, abi="c",
            abi_info=None, output="ptx", forceinline=False):
    """GPU code for `pyfunc` and `sig`: (PTX text, or LTO-IR bytes for output="ltoir";
    the result type). `abi_info={"abi_name": name}` names the C-ABI function;
    `forceinline=True` marks it alwaysinline for the program it is linked into (LTO-IR
    only, as numba: PTX has no such mark)."""
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    if abi not in ("c", "numba"):
        raise NotImplementedError("unsupported ABI: %r (expected 'c' or 'numba')" % (abi,))
    if not device and abi == "c":
        raise NotImplementedError("the C ABI is for device functions; kernels use numba's")
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError("unsupported output kind: %r (expected 'ptx' or 'ltoir')" % (output,))
    fn = getattr(pyfunc, "py_func", pyfunc)
    options = {"device": bool(device), "debug": bool(debug), "opt": 0 if opt is False else 3,
               "lineinfo": bool(lineinfo), "fastmath": bool(fastmath), "boundscheck": None, "cache": None,
               "inline": False, "forceinline": bool(forceinline)}
    jf = _JitFunction(fn, None, options)
    module = jf._module(runtime._selected_spec(), codegen="nvvm" if output == "ltoir" else _codegen())
    abi_name = (abi_info or {}).get("abi_name", "")
    code, resty, _ = module.compile_function(jf._code_name, compile_signature_text(sig), bool(device), abi, abi_name,
                                             _arch(cc), output)
    return code, _type_named(resty)


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None, opt=True,
                abi="numba", abi_info=None):
    """PTX for `pyfunc` and `sig`: (ptx, result type). Kernels by default."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc,
                   opt=opt, abi=abi, abi_info=abi_info, output="ptx")


def _current_cc():
    return runtime.get_current_device().compute_capability


def compile_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False,
                               opt=None, abi="c", abi_info=None, output="ptx"):
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                   cc=_current_cc(), opt=opt, abi=abi, abi_info=abi_info, output=output)


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False,
                                   opt=True, abi="numba", abi_info=None):
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                       cc=_current_cc(), opt=opt, abi=abi, abi_info=abi_info)
