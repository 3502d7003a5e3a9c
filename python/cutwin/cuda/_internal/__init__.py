"""numba-cuda's generated bindings of CUDA's headers (`numba.cuda._internal.cuda_bf16`,
`cuda_fp8`), by the names numba-cuda gives them, backed by cutwin's implementations."""
