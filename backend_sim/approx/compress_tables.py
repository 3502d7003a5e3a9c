#!/usr/bin/env python3
"""Compresses the tables measure_tables.cu wrote (zlib, level 9), the form the simulator
embeds: python3 compress_tables.py DIR  (DIR/*.delta -> DIR/*.delta.z)."""
import glob
import os
import sys
import zlib

for path in sorted(glob.glob(os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", "*.delta"))):
    with open(path, "rb") as f:
        data = f.read()
    with open(path + ".z", "wb") as f:
        f.write(zlib.compress(data, 9))
    os.remove(path)
    print(path + ".z")
