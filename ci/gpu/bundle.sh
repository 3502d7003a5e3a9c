#!/usr/bin/env bash
# Builds here what the GPU machine cannot build (it has no LLVM headers and no TBB) and
# packs it into dist/: the cutwin command and the benchmarks with rpath $ORIGIN/../lib,
# and the shared libraries that machine lacks (oneTBB, Boost.Context). libLLVM-16.so.1
# is present there and is not carried.
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir="${BUILD_DIR:-build}"
cmake --build "$build_dir"
rm -rf dist
cmake --install "$build_dir" --prefix dist --component cutwin_bundle >/dev/null
mkdir -p dist/lib
for lib in libtbb.so.12 libboost_context.so.1.74.0; do
  cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')" dist/lib/
done
# The hardware/CUB reference points for cuda.reduce (bench/reduce_ceiling.cu), where nvcc is.
if command -v nvcc >/dev/null; then
  nvcc -O3 -arch=sm_90 -std=c++17 -o dist/bin/cutwin_reduce_ceiling bench/reduce_ceiling.cu
fi
strip --strip-all dist/bin/* && strip --strip-debug dist/lib/*
du -sh dist
# Carried as one archive: each binary holds the simulator's tables, and a window as large
# as dist/ stores them once (the tree and what is carried share a 64 MiB limit).
tar -cf - dist | xz -T1 --lzma2=preset=6,dict=64MiB >dist.tar.xz
du -sh dist.tar.xz
