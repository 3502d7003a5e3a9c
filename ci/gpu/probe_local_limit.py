#!/usr/bin/env python3
"""Finds, on the GPU, the largest local array per thread (float32 words) a launch accepts:
an H100 refuses 512 KiB with CUDA_ERROR_INVALID_VALUE and runs 64 KiB; this bisects the
boundary between. On an H100 80 GB it is the card's memory (CUDA_ERROR_OUT_OF_MEMORY from
313,460 bytes: the frame reserved for every resident thread), not a per-thread rule; the
simulator refuses 512 KiB and more (backend_sim/device_limits.h). Results:
docs/results/local_limit_h100_2026-12-06.txt.
Run on the GPU machine with PYTHONPATH naming cutwin's package:

    python3 ci/gpu/probe_local_limit.py
"""
import linecache

import numpy as np

from cutwin import cuda
from cutwin.errors import LaunchError

SOURCE = """
from cutwin import cuda, float32

@cuda.jit
def local_words(out, n):
    a = cuda.local.array({words}, float32)
    for k in range(n):
        a[k] = k
    i = cuda.grid(1)
    out[i] = a[i * 4099 % n]
"""


def accepted(words):
    name = "<local %d>" % words
    text = SOURCE.format(words=words)
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    scope = {}
    exec(compile(text, name, "exec"), scope)
    kernel = scope["local_words"]
    try:
        kernel[2, 32](np.zeros(64, np.float32), 100)
        return True, list(kernel.get_local_mem_per_thread().values())[0]
    except LaunchError as e:
        return False, str(e)


with cuda.use_backend("gpu"):
    lo, hi = 64 * 1024 // 4, 512 * 1024 // 4  # accepted, refused
    assert accepted(lo)[0] and not accepted(hi)[0]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        ok, what = accepted(mid)
        print("%7d words (%d bytes): %s" % (mid, 4 * mid, "runs, local %s bytes" % what if ok else what))
        lo, hi = (mid, hi) if ok else (lo, mid)
    print("largest accepted: %d words, %d bytes of local array per thread" % (lo, 4 * lo))
    try:  # the driver reserves local memory for every resident thread: free memory may bound it
        free, total = cuda.current_context().get_memory_info()
        print("device memory: %d MiB free of %d MiB" % (free >> 20, total >> 20))
    except Exception as e:  # noqa: BLE001 - informative only
        print("device memory: unknown (%s)" % e)
