"""numba.cuda's runtime functions and how kernels find their globals and device functions."""
import numpy as np
import pytest

from cutwin import cuda

TPB = 16
OFFSETS = (3, 5)


@cuda.jit(device=True)
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@cuda.jit
def clamped(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = clamp(a[i], OFFSETS[0], OFFSETS[1]) + TPB


def test_globals_and_device_functions(cutwin_backend):
    a = np.arange(10, dtype=np.int64)
    out = np.zeros(10, np.int64)
    clamped[1, 16](a, out)
    np.testing.assert_array_equal(out, np.clip(a, 3, 5) + 16)


def test_device_function_called_from_host_is_refused():
    with pytest.raises(TypeError, match="device function"):
        clamp(1, 2, 3)


def test_nested_kernel_with_closure_constants(cutwin_backend):
    width = 3

    @cuda.jit
    def fill(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = i * width

    a = np.zeros(7, np.int64)
    fill[1, 8](a)
    np.testing.assert_array_equal(a, np.arange(7) * 3)


def test_jit_without_decorator_syntax(cutwin_backend):
    def double(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= 2

    k = cuda.jit(double)
    a = np.arange(5, dtype=np.float32)
    k[1, 32](a)
    np.testing.assert_array_equal(a, np.arange(5) * 2)


def test_streams_events_and_synchronize(cutwin_backend):
    s = cuda.stream()
    start, end = cuda.event(), cuda.event()
    start.record(s)
    d = cuda.to_device(np.zeros(4, np.int64), stream=s)
    clamped[1, 4, s](d, d)
    end.record(s)
    end.synchronize()
    assert start.elapsed_time(end) >= 0
    assert cuda.event_elapsed_time(start, end) >= 0
    s.synchronize()
    cuda.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), [19, 19, 19, 19])
    with s.auto_synchronize():
        pass
    assert cuda.default_stream() is not None


def test_devices_and_backends():
    assert cuda.is_available()
    with cuda.use_backend("sim") as name:
        assert name == "sim" and cuda.current_backend() == "sim"
        dev = cuda.get_current_device()
        assert "simulator" in dev.name and dev.compute_capability == (9, 0) and dev.id == 0
        assert len(cuda.gpus) == 1
        assert cuda.select_device(0).id == 0
    with pytest.raises(ValueError):
        cuda.use_backend("tpu")


def test_detect_prints_the_devices(capsys):
    assert cuda.detect()
    assert "simulator" in capsys.readouterr().out


def test_inspect_llvm_and_asm():
    k = cuda.jit("void(float32[:], float32)")(_scale)
    sig = cuda.void(cuda.float32[:], cuda.float32)
    ir = k.inspect_llvm(sig)
    assert "define" in ir and "fmul float" in ir
    ptx = k.inspect_asm(sig)
    assert ".entry" in ptx and "mul.rn.f32" in ptx
    assert list(k.inspect_llvm()) == [(cuda.float32[:], cuda.float32)]  # keyed by argument types, as numba


def _scale(a, f):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * f


def test_kernel_only_names_raise_on_the_host():
    with pytest.raises(RuntimeError, match="inside a kernel"):
        cuda.syncthreads()
    with pytest.raises(RuntimeError):
        cuda.grid(1)


ACC = np.dtype("f" + str(8))  # a dtype computed by host code
LANES = int("4")


@cuda.jit
def partial_sums(x, out):
    acc = cuda.local.array(LANES, ACC)
    for k in range(LANES):
        acc[k] = 0
    for i in range(x.size):
        acc[i % LANES] += x[i]
    out[0] = acc[0] + acc[1] + acc[2] + acc[3]


def test_host_computed_dtype_and_size_globals(cutwin_backend):
    # float32 inputs summed in a float64 local array: 1 + 2**-30 survives only in float64.
    x = np.array([1.0, 2.0 ** -30, 0, 0], np.float32)
    out = np.zeros(1, np.float64)
    partial_sums[1, 1](x, out)
    assert out[0] == 1.0 + 2.0 ** -30


_TABLE = np.arange(10, dtype=np.float64)


def _uses_memory(out):
    sm = cuda.shared.array(64, cuda.float32)
    t = cuda.threadIdx.x
    sm[t] = t
    cuda.syncthreads()
    out[t] = sm[63 - t] + _TABLE[t % 10]


def test_kernel_properties(cutwin_backend):
    sig = cuda.void(cuda.float64[::1])
    k = cuda.jit(sig)(_uses_memory)
    assert k.get_shared_mem_per_block(sig) == 64 * 4
    assert k.get_const_mem_size(sig) >= _TABLE.nbytes
    regs = k.get_regs_per_thread(sig)
    assert isinstance(regs, int) and (regs > 0 if cutwin_backend == "gpu" else regs == 0)
    assert 0 < k.get_max_threads_per_block(sig) <= 1024
    assert k.get_local_mem_per_thread(sig) >= 0
    assert k.get_shared_mem_per_block() == 64 * 4  # one declared signature: its value, as numba


def test_specialize_and_device_function_inspection():
    @cuda.jit
    def store(x):
        x[0] = 1

    f32 = store.specialize(cuda.float32[::1])
    assert f32 is store.specialize(cuda.float32[::1]) and len(store.specializations) == 1
    assert store.specialize(np.zeros(3, np.int32)) is not f32 and len(store.specializations) == 2
    with pytest.raises(RuntimeError, match="already specialized"):
        f32.specialize(cuda.float32[::1])

    @cuda.jit("float32(float32)", device=True)
    def plus_one(v):
        return v + 1

    assert "fadd float" in plus_one.inspect_llvm()[(cuda.float32,)]
    assert "add.rn.f32" in plus_one.inspect_asm(cuda.float32(cuda.float32))
    with pytest.raises(RuntimeError, match="SASS"):
        plus_one.inspect_sass()
    with pytest.raises(TypeError, match="Cannot compile a device function as a kernel"):
        plus_one[1, 1]


def test_device_attributes_match_the_launch_limits(cutwin_backend):
    dev = cuda.get_current_device()
    assert dev.WARP_SIZE == 32
    assert dev.MULTIPROCESSOR_COUNT >= 1
    assert dev.MAX_SHARED_MEMORY_PER_BLOCK >= 48 * 1024
    limit = dev.MAX_THREADS_PER_BLOCK
    assert limit == 1024 and dev.MAX_BLOCK_DIM_X == limit

    @cuda.jit
    def count(out):
        cuda.atomic.add(out, 0, 1)

    out = np.zeros(1, np.int64)
    count[1, limit](out)
    assert out[0] == limit
    with pytest.raises(cuda.LaunchError):
        count[1, limit + 1](out)
    with pytest.raises(AttributeError):
        dev.NOT_AN_ATTRIBUTE


def test_external_stream_runs_launches(cutwin_backend):
    @cuda.jit
    def inc(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    own = cuda.stream()
    ext = cuda.external_stream(own.handle.value)
    d = cuda.to_device(np.arange(8, dtype=np.int32))
    inc[1, 8, ext](d)
    ext.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(8) + 1)


def test_pinned_mapped_and_managed_like_allocators(cutwin_backend):
    f = np.asfortranarray(np.zeros((3, 4), np.float32))
    p = cuda.pinned_array_like(f)
    assert p.shape == (3, 4) and p.dtype == np.float32 and p.flags.f_contiguous
    m = cuda.mapped_array_like(np.zeros(5, np.int16))
    assert m.shape == (5,) and m.dtype == np.int16

    @cuda.jit
    def square(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * a[i]

    u = cuda.managed_array(10, dtype=np.int64)
    u[:] = np.arange(10)
    square[1, 16](u)
    cuda.synchronize()
    np.testing.assert_array_equal(u, np.arange(10) ** 2)


def test_tuple_types_in_signatures(cutwin_backend):
    pair = cuda.UniTuple(cuda.int64, 2)
    assert str(pair) == "UniTuple(int64, 2)" and len(pair) == 2
    mixed = cuda.Tuple(cuda.int64, cuda.float64)
    assert str(mixed) == "Tuple(int64, float64)" and mixed == cuda.Tuple((cuda.int64, cuda.float64))

    @cuda.jit(mixed(cuda.int64, cuda.float64), device=True)
    def swap_kinds(i, x):
        return i * 2, x / 2

    @cuda.jit(cuda.void(pair, mixed, cuda.float64[:]))
    def use(p, m, out):
        a, b = swap_kinds(p[0] + p[1], m[1])
        out[0] = a
        out[1] = b + m[0]

    out = np.zeros(2)
    use[1, 1]((3, 4), (5, 7.0), out)
    np.testing.assert_array_equal(out, [14.0, 8.5])


def test_libdevicefuncs_lists_libdevice():
    from cutwin.cuda import libdevicefuncs

    ret, args = libdevicefuncs.functions["__nv_sin"]
    assert ret == cuda.float64 and [a.ty for a in args] == [cuda.float64] and not args[0].is_ptr
    ret, args = libdevicefuncs.functions["__nv_sincosf"]
    assert ret == cuda.void and [a.is_ptr for a in args] == [False, True, True]
    sig = libdevicefuncs.create_signature(ret, args)
    assert str(sig) == "UniTuple(float32, 2)(float32)"
    ret, args = libdevicefuncs.functions["__nv_frexp"]
    assert str(libdevicefuncs.create_signature(ret, args)) == "Tuple(float64, int32)(float64)"
