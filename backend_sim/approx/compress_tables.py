#!/usr/bin/env python3
"""Packs the tables measure_tables.cu wrote into the form the simulator embeds: each table
in chunks of 2^16 entries, each chunk zlib-compressed on its own (its first entry as four
bytes, then int8 deltas), so that a kernel decodes only the chunks its inputs reach.

    python3 compress_tables.py DIR     (DIR/*.delta -> DIR/*.chunks)

File layout (little-endian u32s): entries, entries per chunk, then per chunk its
compressed size and bytes."""
import glob
import os
import struct
import sys
import zlib

import numpy as np

CHUNK = 1 << 16


def values(raw):
    """A .delta file (first entry, then int8 deltas) as the table's uint32 entries."""
    first = struct.unpack("<I", raw[:4])[0]
    deltas = np.frombuffer(raw[4:], np.int8).astype(np.int64)
    return ((np.concatenate([[first], first + np.cumsum(deltas)])) & 0xFFFFFFFF).astype(np.uint32)


def pack(t):
    out = [struct.pack("<II", t.size, CHUNK)]
    for start in range(0, t.size, CHUNK):
        c = t[start:start + CHUNK].astype(np.int64)
        d = np.diff(c)
        assert d.min() >= -128 and d.max() <= 127
        body = zlib.compress(struct.pack("<I", int(c[0])) + d.astype(np.int8).tobytes(), 9)
        out.append(struct.pack("<I", len(body)) + body)
    return b"".join(out)


for path in sorted(glob.glob(os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", "*.delta"))):
    with open(path, "rb") as f:
        t = values(f.read())
    target = path[:-len(".delta")] + ".chunks"
    with open(target, "wb") as f:
        f.write(pack(t))
    os.remove(path)
    print(target)
