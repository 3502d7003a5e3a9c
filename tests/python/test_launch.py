"""Kernels from Python: compile, launch, arguments, results against NumPy."""
import collections
import warnings

import numpy as np
import pytest

import cutwin
from cutwin import cuda, float32, int32, void

N = 1000
SCALE = float(np.float32(0.5)) * 2  # computed by host code


@cuda.jit
def vadd(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@cuda.jit
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * factor * SCALE


@cuda.jit(void(float32[:], int32))
def fill_index(a, offset):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i + offset


def test_vadd_with_device_arrays(cutwin_backend):
    rng = np.random.default_rng(1)
    a = rng.random(N, dtype=np.float32)
    b = rng.random(N, dtype=np.float32)
    d_out = cuda.device_array(N, np.float32)
    vadd[(N + 127) // 128, 128](cuda.to_device(a), cuda.to_device(b), d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), a + b)


def test_numpy_arguments_are_copied_back(cutwin_backend):
    a = np.arange(N, dtype=np.float64)
    scale[4, 256](a, 3.0)
    np.testing.assert_array_equal(a, np.arange(N) * 3.0)


def test_numpy_scalar_argument_keeps_its_type(cutwin_backend):
    a = np.ones(8, np.float32)
    scale[1, 8](a, np.float32(1.5))
    np.testing.assert_array_equal(a, np.full(8, 1.5, np.float32))


def test_explicit_signature_and_forall(cutwin_backend):
    a = cuda.device_array(300, np.float32)
    fill_index.forall(300)(a, 7)
    np.testing.assert_array_equal(a.copy_to_host(), np.arange(300, dtype=np.float32) + 7)


def test_launch_without_configuration_is_refused():
    with pytest.raises(ValueError, match="launch configuration"):
        vadd(1, 2, 3)


def test_bad_argument_type_is_a_type_error(cutwin_backend):
    with pytest.raises(TypeError, match="cannot pass a str"):
        vadd[1, 1]("a", "b", "c")


@cuda.jit
def reverse_blocks(a):
    s = cuda.shared.array(0, float32)  # the launch's dynamic shared memory
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * cuda.blockDim.x
    s[t] = a[base + t]
    cuda.syncthreads()
    a[base + t] = s[cuda.blockDim.x - 1 - t]


def test_dynamic_shared_memory_from_the_launch(cutwin_backend):
    x = np.arange(96, dtype=np.float32)
    reverse_blocks[3, 32, 0, 32 * 4](x)
    np.testing.assert_array_equal(x, np.arange(96, dtype=np.float32).reshape(3, 32)[:, ::-1].ravel())
    with pytest.raises(IndexError):  # no dynamic bytes: the array is empty (bounds checks on)
        with cuda.use_backend("sim"):
            reverse_blocks[1, 32](np.zeros(32, np.float32))


@cuda.jit(["void(float64[::1], float32)", "void(float64[::1], float64)", "void(float64[::1], int8)"])
def store_scalar(out, v):
    out[0] = v


def test_explicit_signatures_pick_the_best_conversion(cutwin_backend):
    # numba rates each declared signature by the conversions the arguments need (exact,
    # promote, safe, unsafe) and takes the best, not the first that fits: a Python float
    # is float64, so 0.1 must not pass through float32; a NumPy float32 takes float32.
    out = np.zeros(1)
    store_scalar[1, 1](out, 0.1)
    assert out[0] == 0.1
    store_scalar[1, 1](out, np.float32(0.1))
    assert out[0] == np.float64(np.float32(0.1))
    store_scalar[1, 1](out, np.int8(-3))
    assert out[0] == -3
    store_scalar[1, 1](out, 2**40 + 1)  # an int64 converts safely to float64 (unsafely to float32, int8)
    assert out[0] == 2.0**40 + 1


def test_kernels_compile_and_launch_from_several_threads(cutwin_backend):
    # Host threads each launch (and the first of each specialisation compiles); on a GPU
    # each thread needs the device's context made current.
    import threading

    @cuda.jit
    def fill(out, v):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = v

    results, errors = {}, []

    def work(k):
        try:
            with cuda.use_backend(cutwin_backend):  # the backend is chosen per thread
                out = np.zeros(100, np.float64 if k % 2 else np.int64)
                for _ in range(5):
                    fill[1, 128](out, k)
            results[k] = out
        except Exception as e:  # reported below: a thread's exception is not the test's
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k, out in results.items():
        np.testing.assert_array_equal(out, np.full(100, k))


@cuda.jit
def uses_tuple_arguments(out, t, nested, empty):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = t[0] + t[1][i] * t[2] + nested[0][1] - nested[1] + len(empty)


def test_tuple_arguments(cutwin_backend):
    # Heterogeneous tuples of numbers, NumPy scalars and device arrays, nested and empty
    # (numba's Tuple, UniTuple and the empty tuple), flattened into the argument buffer.
    d = cuda.to_device(np.arange(6.0))
    out = np.zeros(6)
    uses_tuple_arguments[1, 8](out, (1, d, np.float32(2.5)), ((7, np.int8(-3)), 0.25), ())
    np.testing.assert_array_equal(out, 1 + np.arange(6.0) * 2.5 + -3 - 0.25)


Point = collections.namedtuple("Point", ("x", "y", "r"))
Pair = collections.namedtuple("Pair", ("x", "y"))


@cuda.jit
def uses_named_tuples(out, p, q):
    out[0] = p.x + p.y * 10
    out[1] = p.r
    out[2] = p[0] + q.x * 2 + q.y  # by index too


def test_namedtuple_arguments(cutwin_backend):
    out = np.zeros(3)
    uses_named_tuples[1, 1](out, Point(1, 2, 2.5), Pair(3.5, 4))
    np.testing.assert_array_equal(out, [21, 2.5, 12])
    # Another namedtuple class with the same element types is another type (compiled apart)
    Other = collections.namedtuple("Other", ("y", "x"))
    uses_named_tuples[1, 1](out, Point(1, 2, 2.5), Other(3.5, 4))
    np.testing.assert_array_equal(out, [21, 2.5, 12.5])

    @cuda.jit
    def missing(out, p):
        out[0] = p.z

    with pytest.raises(cutwin.errors.CompileError, match="no field 'z'"):
        missing[1, 1](out, Pair(1, 2))


def test_host_arrays_inside_tuples_are_copied_both_ways(cutwin_backend):
    @cuda.jit
    def add(t):
        i = cuda.grid(1)
        if i < t[0].size:
            t[0][i] = t[1][i] + t[2][1]

    x0, x1 = np.zeros(10), np.arange(10.0)
    add[1, 16]((x0, x1, (7, 3)))
    np.testing.assert_array_equal(x0, x1 + 3)
    named = Pair(np.zeros(4), np.ones(4))

    @cuda.jit
    def fill(p):
        i = cuda.grid(1)
        if i < p.x.size:
            p.x[i] = p.y[i] * 5

    fill[1, 4](named)
    np.testing.assert_array_equal(named.x, 5.0)


def test_launch_bounds(cutwin_backend):
    @cuda.jit(launch_bounds=(128, 2, 4))
    def bounded(out):
        out[cuda.grid(1)] = 1

    out = np.zeros(128)
    bounded[1, 128](out)
    assert out.sum() == 128
    with pytest.raises(cutwin.errors.LaunchError, match="launch bounds|CUDA_ERROR_INVALID_VALUE"):
        bounded[1, 256](np.zeros(256))
    ptx = bounded.inspect_asm((cuda.float64[::1],))
    assert ".maxntid 128, 1, 1" in ptx and ".minnctapersm 2" in ptx and ".maxclusterrank 4" in ptx
    with pytest.raises(ValueError, match="Got 4 launch bounds"):
        cuda.jit(launch_bounds=(1, 2, 3, 4))(lambda: None)


def test_forall_refuses_a_negative_task_count():
    @cuda.jit
    def noop(a):
        pass

    with pytest.raises(ValueError, match="negative task count"):
        noop.forall(-1)
    out = np.zeros(0)
    noop.forall(0)(out)  # no tasks: a launch of one block that does nothing


def test_refused_launch_carries_the_driver_error_name(cutwin_backend):
    @cuda.jit(launch_bounds=64)
    def bounded(out):
        out[cuda.grid(1)] = 1

    with pytest.raises(cutwin.errors.LaunchError) as e:
        bounded[1, 128](np.zeros(128))
    assert e.value.code == "CUDA_ERROR_INVALID_VALUE" and e.value.msg == str(e.value)


def test_signatures_list_declared_then_compiled(cutwin_backend):
    @cuda.jit
    def no_args():
        pass

    @cuda.jit
    def fill(a, v):
        a[0] = v

    no_args[1, 1]()
    assert [tuple(s) for s in no_args.signatures] == [()]
    fill[1, 1](np.zeros(1), 2.0)
    fill[1, 1](np.zeros(1, np.int32), 2)
    assert [tuple(str(t) for t in s) for s in fill.signatures] == [("float64[::1]", "float64"),
                                                                    ("int32[::1]", "int64")]
    assert [str(s) for s in fill_index.signatures] == ["void(float32[:], int32)"]


def test_kernel_attributes_by_signature(cutwin_backend):
    @cuda.jit
    def smem(a):
        s = cuda.shared.array(10, dtype=a.dtype)
        s[0] = 1
        a[0] = s[0]

    smem[1, 1](np.zeros(10, np.float32))
    smem[1, 1](np.zeros(10, np.float64))
    by_types = smem.get_shared_mem_per_block()
    assert by_types[(float32[::1],)] == 40 and by_types[(cuda.float64[::1],)] == 80
    assert smem.get_shared_mem_per_block(void(float32[::1])) == 40
    # One declared signature: the value itself, as numba gives for specialized kernels.
    assert isinstance(fill_index.get_max_threads_per_block(), int)


def test_numba_performance_warnings_when_asked_for(cutwin_backend, monkeypatch):
    @cuda.jit
    def inc(a):
        cuda.atomic.add(a, 0, 1)

    host = np.zeros(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        inc[1, 1](host)  # off unless asked for
    monkeypatch.setenv("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "1")
    with pytest.warns(cutwin.errors.NumbaPerformanceWarning, match="Grid size 6 will likely .* low occupancy"):
        inc[(3, 2), 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        inc[128, 1]
    monkeypatch.setenv("NUMBA_CUDA_WARN_ON_IMPLICIT_COPY", "1")
    with pytest.warns(cutwin.errors.NumbaPerformanceWarning, match="Host array used in CUDA kernel"):
        inc[128, 1](host)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        inc[128, 1](cuda.to_device(host))  # device arrays are not copied


def test_no_matching_signature_is_a_type_error(cutwin_backend):
    @cuda.jit(["(int64[::1], int64)", "(float64[::1], float64)"])
    def put(r, x):
        r[0] = x

    with pytest.raises(TypeError, match=r"No matching definition for argument type\(s\) array\(complex128, 1d, C\)"):
        put[1, 1](np.zeros(1, np.complex128), 1j)
    assert len(put.overloads) == 2 and "(int64[::1], int64)" in put.overloads


def test_one_signature_takes_integers_of_the_other_signedness(cutwin_backend):
    # numba launches a kernel of one signature without looking at an array's dtype; cutwin
    # takes the integers of the declared size and either signedness (every bit kept)
    @cuda.jit("void(int32[:])")
    def dec(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] -= 1

    u = np.array([0, 1, 2 ** 31, 2 ** 32 - 1], np.uint32)
    dec[1, 4](u)
    assert u.tolist() == [2 ** 32 - 1, 0, 2 ** 31 - 1, 2 ** 32 - 2]  # int32's bits, as uint32
    with pytest.raises(TypeError, match=r"No matching definition for argument type\(s\) array\(float32, 1d, C\)"):
        dec[1, 4](np.zeros(4, np.float32))  # another kind: refused
    with pytest.raises(TypeError, match=r"No matching definition for argument type\(s\) array\(uint16, 1d, C\)"):
        dec[1, 4](np.zeros(4, np.uint16))  # another size: refused

    @cuda.jit(["void(int32[:])", "void(int64[:])"])
    def two(a):
        a[0] = 1

    with pytest.raises(TypeError, match="No matching definition"):
        two[1, 1](np.zeros(1, np.uint32))  # several signatures: dtypes must match


def test_launch_configuration_is_current_while_a_launch_compiles():
    """numba's launchconfig: a launch that compiles a new specialisation calls the
    dispatcher's _compile_for_args with its configuration current in that thread only."""
    import threading

    from cutwin.cuda import launchconfig

    @cuda.jit
    def f(x):
        x[0] = 1

    seen = []
    original = f._compile_for_args

    def wrapped(*args):
        cfg = launchconfig.ensure_current_launch_config()
        seen.append((cfg.dispatcher, cfg.griddim, cfg.blockdim, cfg.args))
        cfg.dispatcher.mark_launch_config_sensitive()
        return original(*args)

    f._compile_for_args = wrapped
    a = np.zeros(1, np.int32)
    f[2, (3, 2)](a)
    f[2, (3, 2)](a)  # compiled: no second call
    assert seen == [(f, (2, 1, 1), (3, 2, 1), (a,))] and a[0] == 1
    assert launchconfig.current_launch_config() is None
    with pytest.raises(RuntimeError, match="no launch configuration is current"):
        launchconfig.ensure_current_launch_config()
    assert next(iter(f.overloads.values())).launch_config_sensitive

    @cuda.jit
    def g(x):
        x[0] = 2

    results = []

    def launch(arr):
        with launchconfig.capture_compile_config(g) as capture:
            g[1, 1](arr)
        results.append(capture["config"])

    threads = [threading.Thread(target=launch, args=(np.zeros(1, np.float64),))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results[0] is not None and results[0].dispatcher is g
    assert "_compile_for_args" not in g.__dict__


@pytest.mark.parametrize("carveout, error", [(150, "between -1 and 100"), (-2, "between -1 and 100"),
                                             ("MaxLots", "Invalid carveout value")])
def test_shared_memory_carveout_is_checked(carveout, error):
    with pytest.raises(ValueError, match=error):
        cuda.jit(shared_memory_carveout=carveout)(lambda x: None)
    for good in (-1, 0, 100, "MaxL1", "maxshared", "default"):
        cuda.jit(shared_memory_carveout=good)(lambda x: None)


def test_numba_config_warnings_in_numba_programs(monkeypatch):
    """numba's NumbaInvalidConfigWarning for debug=True with optimisation and for debug with
    lineinfo, where the program runs with numba's configuration loaded (a numba program);
    numba's CUDA_DEBUGINFO_DEFAULT and OPT settings are the defaults of debug and opt."""
    import sys
    import types as pytypes

    def jit_warnings(**options):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            cuda.jit(**options)(lambda a: None)
        return [str(x.message) for x in w if issubclass(x.category, cutwin.errors.NumbaInvalidConfigWarning)]

    assert jit_warnings(debug=True) == []  # a cutwin program: no numba warnings
    config = pytypes.SimpleNamespace(OPT=3, CUDA_DEBUGINFO_DEFAULT=0)
    monkeypatch.setitem(sys.modules, "numba.cuda.core.config", config)
    assert any("not supported by CUDA" in m for m in jit_warnings(debug=True))
    assert jit_warnings(debug=True, opt=False) == [] and jit_warnings() == []
    assert any("mutually exclusive" in m for m in jit_warnings(debug=True, opt=False, lineinfo=True))
    config.CUDA_DEBUGINFO_DEFAULT = 1
    assert any("not supported by CUDA" in m for m in jit_warnings())
    config.OPT = 0
    assert jit_warnings() == [] and jit_warnings(debug=True) == []


@cuda.jit
def halve_into(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] / 2


def test_alternating_specializations_each_run_their_own(cutwin_backend):
    """Launches that switch between argument types, NumPy scalar types and layouts use the
    specialization of each launch's types (the runtime remembers only the last lookup)."""
    f32, f64 = np.arange(7, dtype=np.float32), np.arange(7, dtype=np.float64)
    i32, strided = np.arange(7, dtype=np.int32), np.arange(14, dtype=np.float64)[::2]
    for _ in range(2):
        for x, out_dtype in ((f32, np.float32), (f64, np.float64), (i32, np.float64), (strided, np.float64),
                             (f32, np.float64)):
            out = np.zeros(7, out_dtype)
            halve_into[1, 32](out, cuda.to_device(np.ascontiguousarray(x)) if x is not strided else x)
            np.testing.assert_array_equal(out, (x / 2).astype(out_dtype))
    sums = []

    @cuda.jit
    def scaled(out, k):  # (one kernel, a specialization per scalar type)
        out[0] = k * 3

    for k in (np.int8(-100), np.float32(0.1), np.int64(1 << 40), np.float16(1.5), 7, 2.5):
        out = np.zeros(1, np.float64)
        scaled[1, 1](out, k)
        sums.append(out[0])
    # numba's typing: an integer scalar times an int64 literal is an int64, float32 times
    # int64 a float64
    want = [-300.0, float(np.float64(np.float32(0.1)) * 3), float(3 << 40), 4.5, 21.0, 7.5]
    assert sums == want
