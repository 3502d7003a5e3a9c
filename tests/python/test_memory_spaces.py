"""Memory spaces from Python: global NumPy arrays and cuda.const.array_like (constant
memory), local arrays, shared arrays shaped by module constants."""
import numpy as np
import pytest

import cutwin
from cutwin import cuda, float64

# Host-computed tables: the kernels read them from constant memory.
COEFFS = np.polynomial.chebyshev.cheb2poly([0.5, -1.25, 0.75, 2.0]).astype(np.float64)
LUT = (np.arange(12, dtype=np.int32) * 7 % 5).reshape(3, 4)
TILE = (4, 8)


@cuda.jit
def horner(x, out):
    i = cuda.grid(1)
    if i < x.size:
        c = cuda.const.array_like(COEFFS)
        acc = 0.0
        for k in range(c.size - 1, -1, -1):
            acc = acc * x[i] + c[k]
        out[i] = acc


@cuda.jit
def lookup(rows, cols, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = LUT[rows[i] % LUT.shape[0], cols[i] % LUT.shape[1]]


@cuda.jit
def overwrite_table(out):
    LUT[0, 0] = 1


def test_global_array_through_const_array_like(cutwin_backend):
    x = np.linspace(-2, 2, 257)
    out = np.zeros_like(x)
    horner[3, 128](x, out)
    np.testing.assert_allclose(out, np.polynomial.polynomial.polyval(x, COEFFS), rtol=1e-14, atol=1e-14)


def test_global_array_read_directly(cutwin_backend):
    rng = np.random.default_rng(5)
    rows, cols = rng.integers(0, 50, 100).astype(np.int32), rng.integers(0, 50, 100).astype(np.int32)
    out = np.zeros(100, np.int32)
    lookup[1, 128](rows, cols, out)
    np.testing.assert_array_equal(out, LUT[rows % 3, cols % 4])


def test_global_arrays_are_read_only(cutwin_backend):
    with pytest.raises(cutwin.errors.TypingError, match="read-only") as e:
        overwrite_table[1, 1](np.zeros(1, np.int32))
    assert e.value.line == overwrite_table.py_func.__code__.co_firstlineno + 2


@cuda.jit
def tile_transpose(a, out):
    t = cuda.shared.array(TILE, float64)          # shape from a module constant
    scratch = cuda.local.array(TILE[1], np.float64)  # dtype given as a NumPy type
    i, j = cuda.threadIdx.x, cuda.threadIdx.y
    t[i, j] = a[i, j]
    cuda.syncthreads()
    for k in range(TILE[1]):
        scratch[k] = t[i, k] * 2
    out[j, i] = scratch[j]


def test_shared_and_local_arrays_shaped_by_constants(cutwin_backend):
    a = np.arange(32, dtype=np.float64).reshape(TILE)
    out = np.zeros(TILE[::-1])
    tile_transpose[1, TILE](a, out)
    np.testing.assert_array_equal(out, 2 * a.T)


@cuda.jit(device=True)
def block_total(sm, v):
    """A shared array passed to a device function that syncs the block."""
    t = cuda.threadIdx.x
    sm[t] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    return sm[0]


@cuda.jit
def totals(x, out):
    sm = cuda.shared.array(64, float64)
    i = cuda.grid(1)
    total = block_total(sm, x[i])
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = total


def test_shared_array_passed_to_a_device_function(cutwin_backend):
    x = np.arange(256, dtype=np.float64)
    out = np.zeros(4)
    totals[4, 64](x, out)
    np.testing.assert_array_equal(out, x.reshape(4, 64).sum(axis=1))


TENTH = np.float32(0.1)  # a NumPy scalar global keeps its dtype in kernels, as in numba


@cuda.jit
def typed_scalar_global(r):
    r[0] = TENTH
    r[1] = TENTH * TENTH


def test_numpy_scalar_globals_keep_their_dtype(cutwin_backend):
    r = np.zeros(2)
    typed_scalar_global[1, 1](r)
    assert r.tolist() == [float(TENTH), float(TENTH * TENTH)]  # float32 arithmetic
    assert r[0] != 0.1


CONST_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
                "float64", "complex64", "complex128"]


def _table(dtype, ndim):
    """A table of `dtype` with distinct, non-trivial values (negative, fractional, imaginary
    parts where the dtype has them)."""
    n = {1: (7,), 2: (3, 5), 3: (2, 3, 4)}[ndim]
    v = np.arange(np.prod(n)).reshape(n)
    if dtype == "bool":
        return (v % 3 == 1)
    if dtype.startswith("complex"):
        return (v * 0.5 - 3 + 1j * (v - 2.25)).astype(dtype)
    if dtype.startswith("float"):
        return (v * 0.37 - 2.5).astype(dtype)
    if dtype.startswith("uint"):
        return (v * 37 + 200).astype(dtype)
    return (v * 13 - 40).astype(dtype)


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("dtype", CONST_DTYPES)
def test_const_array_like_of_every_dtype(cutwin_backend, dtype, ndim):
    # Every element of a constant table of each dtype and rank reads back bit for bit,
    # through cuda.const.array_like and through the global directly.
    table = _table(dtype, ndim)

    if ndim == 1:
        @cuda.jit
        def copy_out(out_a, out_b):
            c = cuda.const.array_like(table)
            i = cuda.grid(1)
            if i < c.size:
                out_a[i] = c[i]
                out_b[i] = table[i]
    elif ndim == 2:
        @cuda.jit
        def copy_out(out_a, out_b):
            c = cuda.const.array_like(table)
            i = cuda.grid(1)
            if i < c.size:
                out_a[i] = c[i // c.shape[1], i % c.shape[1]]
                out_b[i] = table[i // c.shape[1], i % c.shape[1]]
    else:
        @cuda.jit
        def copy_out(out_a, out_b):
            c = cuda.const.array_like(table)
            i = cuda.grid(1)
            if i < c.size:
                r, s = i // (c.shape[1] * c.shape[2]), i // c.shape[2] % c.shape[1]
                out_a[i] = c[r, s, i % c.shape[2]]
                out_b[i] = table[r, s, i % c.shape[2]]

    out_a = np.zeros(table.size, table.dtype)
    out_b = np.zeros(table.size, table.dtype)
    copy_out[1, 32](out_a, out_b)
    np.testing.assert_array_equal(out_a, table.ravel())
    np.testing.assert_array_equal(out_b, table.ravel())


@cuda.jit
def aligned_arrays(out):
    s = cuda.shared.array(3, np.float32, alignment=256)
    loc = cuda.local.array(5, np.int64, alignment=128)
    t = cuda.threadIdx.x
    s[t % 3] = t
    loc[0] = t
    cuda.syncthreads()
    # The address of the first element, as numba's tests check alignment.
    out[t, 0] = s[t % 3]
    out[t, 1] = loc[0]


def test_array_alignment_option(cutwin_backend):
    out = np.zeros((3, 2))
    aligned_arrays[1, 3](out)
    np.testing.assert_array_equal(out, [[0, 0], [1, 1], [2, 2]])
    ptx = aligned_arrays.inspect_asm((cuda.float64[:, :],))  # the GPU's code, on any backend
    assert ".shared .align 256" in ptx
    with pytest.raises(cutwin.errors.CompileError, match="power of two"):
        @cuda.jit
        def bad(out):
            s = cuda.shared.array(4, np.float32, alignment=3)
            out[0] = s[0]
        bad[1, 1](np.zeros(1))


def test_device_arrays_in_globals_are_captured_by_address(cutwin_backend):
    # numba captures a global device array by address: the kernel reads and writes that
    # memory, so changes made after compiling are seen, and the kernel's writes land there.
    table = cuda.to_device(np.arange(6, dtype=np.float32).reshape(2, 3))
    counts = cuda.to_device(np.zeros(4, np.int32))
    scope = {"cuda": cuda, "TABLE": table, "COUNTS": counts}
    exec("def k(out):\n"
         "    i = cuda.grid(1)\n"
         "    if i < out.size:\n"
         "        out[i] = TABLE[i // 3, i % 3] * 2\n"
         "        cuda.atomic.add(COUNTS, i % 4, 1)\n", scope)
    kern = cuda.jit(scope["k"])
    out = np.zeros(6, np.float32)
    kern[1, 8](out)
    np.testing.assert_array_equal(out, np.arange(6) * 2)
    table.copy_to_device(np.full((2, 3), 5, np.float32))
    kern[1, 8](out)
    np.testing.assert_array_equal(out, np.full(6, 10))
    np.testing.assert_array_equal(counts.copy_to_host(), [4, 4, 2, 2])
    strided = cuda.to_device(np.arange(10.0))[::3]  # a strided view is captured as it is
    scope2 = {"cuda": cuda, "V": strided}
    exec("def g(out):\n    for j in range(V.size):\n        out[j] = V[j]\n", scope2)
    res = np.zeros(4)
    cuda.jit(scope2["g"])[1, 1](res)
    np.testing.assert_array_equal(res, [0, 3, 6, 9])


def test_locals_assigned_once_from_constants_shape_arrays(cutwin_backend):
    # numba propagates such constants: a shared or local array may be shaped by a local
    @cuda.jit
    def k(out):
        N = 64
        SHAPE = (N // 16, 3)
        buf = cuda.shared.array(N, np.int32)
        scratch = cuda.local.array(SHAPE, np.float64)
        i = cuda.threadIdx.x
        buf[i] = i * 2
        scratch[SHAPE[0] - 1, 2] = 0.5
        cuda.syncthreads()
        if i == 0:
            total = 0
            for j in range(N):
                total += buf[j]
            out[0] = total + scratch[3, 2]

    out = np.zeros(1)
    k[1, 64](out)
    assert out[0] == 2 * sum(range(64)) + 0.5

    @cuda.jit
    def renewed(out):
        n = 4
        n = n + 1  # a new version of n, assigned once from a constant (numba's SSA)
        buf = cuda.shared.array(n, np.int32)
        out[0] = buf.size

    renewed[1, 1](out)
    assert out[0] == 5

    @cuda.jit
    def reassigned(out, m):
        n = 4
        for i in range(m):
            n = n + 1
        buf = cuda.shared.array(n, np.int32)  # two assignments meet here: not a constant
        out[0] = buf.size

    with pytest.raises(cutwin.errors.CompileError, match="shape must be a constant"):
        reassigned[1, 1](out, 1)


# Local memory per thread: an H100 refuses a launch whose threads need 512 KiB or more of
# local arrays with CUDA_ERROR_INVALID_VALUE (ptxas accepts such frames), and so does the
# simulator, before running it. 64 KiB runs on both.
LOCAL_WORDS_512K = 512 * 1024 // 4


@cuda.jit
def local_of_64k(out, n):
    a = cuda.local.array(LOCAL_WORDS_512K // 8, cutwin.float32)
    for k in range(n):  # filled to a length the compiler cannot know: the array stays
        a[k] = k
    i = cuda.grid(1)
    out[i] = a[i * 4099 % n]


@cuda.jit
def local_of_512k(out, n):
    a = cuda.local.array(LOCAL_WORDS_512K, cutwin.float32)
    for k in range(n):
        a[k] = k
    i = cuda.grid(1)
    out[i] = a[i * 4099 % n]


@cuda.jit
def local_of_megabytes(out, n):
    a = cuda.local.array(4 * LOCAL_WORDS_512K, cutwin.float32)
    for k in range(n):
        a[k] = k
    i = cuda.grid(1)
    out[i] = a[i * 4099 % n]


def test_local_memory_per_thread_is_limited_as_on_the_gpu(cutwin_backend):
    out = np.zeros(64, np.float32)
    local_of_64k[2, 32](out, 1000)
    np.testing.assert_array_equal(out, np.arange(64) * 4099 % 1000)
    assert list(local_of_64k.get_local_mem_per_thread().values()) == [64 * 1024]
    for kernel in (local_of_512k, local_of_megabytes):
        with pytest.raises(cutwin.errors.LaunchError, match="CUDA_ERROR_INVALID_VALUE") as e:
            kernel[2, 32](out, 1000)
        if cutwin_backend == "sim":
            assert "bytes of local memory per thread (its local arrays); the device allows less than 524288" \
                in str(e.value)
    local_of_64k[1, 32](out, 10)  # and the device still works
    np.testing.assert_array_equal(out[:32], np.arange(32) * 4099 % 10)
