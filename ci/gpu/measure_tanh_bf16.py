"""On the GPU machine: tanh.approx.bf16 (cuda.bf16.htanh_approx) of all 65,536 bfloat16
inputs on the GPU backend against the simulator's model of it (the float32 unit's result
rounded to bfloat16). Prints the count of differing results and the first few; writes
the GPU's table to $OUT/tanh_approx_bf16.npy for a measured table if they differ."""
import os
import sys

import numpy as np

from cutwin import cuda
from cutwin.cuda import bf16

import ml_dtypes


@cuda.jit
def table(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = bf16.htanh_approx(x[i])


def run(backend):
    cuda.use_backend(backend)
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(ml_dtypes.bfloat16)
    out = np.zeros(1 << 16, np.uint16).view(ml_dtypes.bfloat16)
    table[256, 256](x, out)
    return out.view(np.uint16)


gpu, sim = run("gpu"), run("sim")
nan = lambda b: (b & 0x7FFF) > 0x7F80  # noqa: E731
differ = np.nonzero((gpu != sim) & ~(nan(gpu) & nan(sim)))[0]
print("tanh.approx.bf16: %d of 65536 inputs differ between the GPU and the simulator's model" % differ.size)
for i in differ[:20]:
    print("  input 0x%04x: gpu 0x%04x sim 0x%04x" % (i, gpu[i], sim[i]))
if os.environ.get("OUT"):
    np.save(os.path.join(os.environ["OUT"], "tanh_approx_bf16.npy"), gpu)
sys.exit(0)
