"""SASS of a kernel (numba's `inspect_sass` / `inspect_sass_cfg`): its PTX assembled by the
CUDA toolkit's ptxas for sm_90 (the architecture the PTX targets) and disassembled by
nvdisasm; both tools must be on PATH."""
import os
import shutil
import subprocess
import tempfile

ARCH = "sm_90"


def _tool(name):
    path = shutil.which(name)
    if path is None:
        raise RuntimeError("%s was not found: inspect_sass needs the CUDA toolkit's ptxas and nvdisasm on PATH"
                           % name)
    return path


def sass(ptx, cfg=False):
    """nvdisasm's SASS listing of `ptx` (with cfg: its control-flow graph, in DOT)."""
    nvdisasm, ptxas = _tool("nvdisasm"), _tool("ptxas")
    with tempfile.TemporaryDirectory() as d:
        src, cubin = os.path.join(d, "kernel.ptx"), os.path.join(d, "kernel.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        subprocess.run([ptxas, "-arch=" + ARCH, src, "-o", cubin], check=True, capture_output=True, text=True)
        out = subprocess.run([nvdisasm] + (["-cfg"] if cfg else []) + [cubin], check=True, capture_output=True,
                             text=True)
        return out.stdout
