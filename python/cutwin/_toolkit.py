"""Where the CUDA toolkit's files come from: libdevice (both backends' math functions),
libNVVM (the GPU's second code generator) and NVRTC (`.cu` files linked into kernels).

cutwin's C++ core reads them through CUTWIN_LIBDEVICE, CUTWIN_LIBNVVM and CUTWIN_LIBNVRTC.
Where those are unset, this module sets them, once, at `import cutwin`, from the first place
that has the file:
  1. a CUDA toolkit: $CUDA_HOME, $CUDA_PATH, the one `nvcc` on PATH belongs to, /usr/local/cuda;
  2. NVIDIA's pip packages, which `pip install cutwin[cu13]` (or `[cu12]`) installs:
     nvidia-nvvm (CUDA 13: nvidia/cu13/...), nvidia-cuda-nvcc-cu12 and nvidia-cuda-nvrtc-cu12
     (CUDA 12), found on sys.path as cuda-pathfinder finds them.
Nothing is imported or loaded here: a few file-existence checks.
"""
import os
import shutil
import sys

# (environment variable, paths under a toolkit root, paths under site-packages)
_FILES = (
    ("CUTWIN_LIBDEVICE", ("nvvm/libdevice/libdevice.10.bc",),
     ("nvidia/cu13/nvvm/libdevice/libdevice.10.bc", "nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc")),
    # CUDA 12 keeps libNVVM under nvvm/lib64, CUDA 13 under lib (or lib64); the C++ core's
    # own search (backend_gpu/libnvvm.cpp) looks in the same places.
    ("CUTWIN_LIBNVVM", ("nvvm/lib64/libnvvm.so", "lib64/libnvvm.so", "lib/libnvvm.so"),
     ("nvidia/cu13/lib/libnvvm.so.4", "nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so")),
    ("CUTWIN_LIBNVRTC", ("lib64/libnvrtc.so", "lib/libnvrtc.so"),
     ("nvidia/cu13/lib/libnvrtc.so.13", "nvidia/cuda_nvrtc/lib/libnvrtc.so.12")),
)


def toolkit_roots(environ=os.environ):
    """CUDA toolkit roots, in order of preference."""
    roots = [environ.get("CUDA_HOME"), environ.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc", path=environ.get("PATH"))
    if nvcc:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    roots.append("/usr/local/cuda")
    return [r for r in roots if r]


def locate(environ=os.environ, search_path=None):
    """{variable: path} for each file found (a variable already set is kept as it is)."""
    search_path = sys.path if search_path is None else search_path
    roots = toolkit_roots(environ)
    found = {}
    for variable, in_toolkit, in_site_packages in _FILES:
        if environ.get(variable):
            continue
        candidates = [os.path.join(r, p) for r in roots for p in in_toolkit]
        candidates += [os.path.join(d, p) for d in search_path if d for p in in_site_packages]
        for c in candidates:
            if os.path.isfile(c):
                found[variable] = c
                break
    return found


def configure(environ=os.environ, search_path=None):
    """Sets the variables of the files found; returns what it set."""
    found = locate(environ, search_path)
    environ.update(found)
    return found

