#!/usr/bin/env python3
"""Packs the tables measure_tables.cu wrote into the form the simulator embeds: each table
in chunks of 2^12 entries, each chunk zlib-compressed on its own, so that a kernel decodes
only the chunks its inputs reach. A chunk holds its first entry (four bytes) and then the
differences between consecutive entries as int32s split into four byte planes (low bytes
first): the planes above the first are nearly constant where a table is smooth, and zlib
takes them to almost nothing.

    python3 compress_tables.py DIR     (DIR/*.u32 -> DIR/*.chunks)

File layout (little-endian u32s): entries, entries per chunk, then per chunk its
compressed size and bytes."""
import glob
import os
import struct
import sys
import zlib

import numpy as np

CHUNK = 1 << 12


def pack(t):
    out = [struct.pack("<II", t.size, CHUNK)]
    for start in range(0, t.size, CHUNK):
        c = t[start:start + CHUNK]
        d = np.diff(c.astype(np.int64)).astype(np.uint32)  # wraps as the decoder does
        planes = b"".join(((d >> (8 * k)) & 0xFF).astype(np.uint8).tobytes() for k in range(4))
        body = zlib.compress(struct.pack("<I", int(c[0])) + planes, 9)
        out.append(struct.pack("<I", len(body)) + body)
    return b"".join(out)


for path in sorted(glob.glob(os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", "*.u32"))):
    t = np.fromfile(path, dtype="<u4")
    target = path[:-len(".u32")] + ".chunks"
    with open(target, "wb") as f:
        f.write(pack(t))
    os.remove(path)
    print(target, os.path.getsize(target))
