"""Foreign device functions: cuda.declare_device + @cuda.jit(link=[...]). On the GPU the
.cu files are compiled by NVRTC and linked by the driver; on the simulator the same source
is compiled for the CPU. Results are checked against NumPy on every backend."""
import gc
import os

import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import CompileError, CutwinError
from cutwin.types import CPointer, float32, float64

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "foreign")
FUNCTIONS = os.path.join(HERE, "functions.cu")

mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)")
collatz = cuda.declare_device("collatz_steps", "int32(int64)")
sum_f64 = cuda.declare_device("sum_f64", float64(CPointer(float64), cuda.int32))
store_twice = cuda.declare_device("store_twice", "void(CPointer(int32), int32)")
is_odd = cuda.declare_device("is_odd", "boolean(int32)", link=[os.path.join(HERE, "is_odd.cu")])


@cuda.jit(link=[FUNCTIONS])
def multiply(r, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = mul(x[i], y[i])


@cuda.jit(link=[FUNCTIONS])
def steps(r, n):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = collatz(n[i])


@cuda.jit(link=[FUNCTIONS])
def row_sums(r, m):
    i = cuda.grid(1)
    if i < r.size:
        row = m[i]
        r[i] = sum_f64(row, m.shape[1])


@cuda.jit(link=[FUNCTIONS])
def pairs(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        store_twice(out[i], i + 7)


@cuda.jit
def odd_flags(r, v):  # is_odd brings its own link file
    i = cuda.grid(1)
    if i < r.size:
        r[i] = is_odd(v[i])


def test_float_function(cutwin_backend):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(1000).astype(np.float32)
    y = rng.standard_normal(1000).astype(np.float32)
    r = np.zeros_like(x)
    multiply.forall(r.size)(r, x, y)
    np.testing.assert_array_equal(r, x * y)


def collatz_ref(n):
    s = 0
    while n != 1 and s < 1000:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        s += 1
    return s


def test_integer_function_with_loop(cutwin_backend):
    n = np.arange(1, 301, dtype=np.int64)
    r = np.zeros(n.size, np.int32)
    steps[3, 128](r, n)
    assert r.tolist() == [collatz_ref(int(v)) for v in n]


def left_to_right_sum(values):
    s = 0.0  # not sum(): Python 3.12's compensates rounding errors
    for v in values:
        s += float(v)
    return s


def test_pointer_argument(cutwin_backend):
    m = np.random.default_rng(2).random((50, 33))
    r = np.zeros(50)
    row_sums.forall(50)(r, m)
    assert r.tolist() == [left_to_right_sum(row) for row in m]


def test_void_function_writes_through_pointer(cutwin_backend):
    out = np.zeros((40, 2), np.int32)
    pairs.forall(40)(out)
    i = np.arange(40) + 7
    np.testing.assert_array_equal(out, np.stack([i, 2 * i], axis=1))


def test_link_given_to_declare_device_and_bool_result(cutwin_backend):
    v = np.arange(-20, 20, dtype=np.int32)
    r = np.zeros(v.size, np.bool_)
    odd_flags.forall(v.size)(r, v)
    np.testing.assert_array_equal(r, v % 2 != 0)


def test_ptx_from_compile_ptx_with_cpu_source_beside_it(cutwin_backend, tmp_path):
    """A .ptx made by compile_ptx (numba's ABI) links on the GPU; the simulator takes the
    C++ file of the same name beside it."""
    def scale(x, k):
        return x * k + 1.0

    ptx, resty = cuda.compile_ptx(scale, float64(float64, float64), device=True, abi="numba",
                                  abi_info={"abi_name": "scale_plus_one"})
    (tmp_path / "scale.ptx").write_text(ptx)
    (tmp_path / "scale.cpp").write_text(
        'extern "C" int scale_plus_one(double *r, double x, double k) { *r = x * k + 1.0; return 0; }\n')
    scaled = cuda.declare_device("scale_plus_one", "float64(float64, float64)")

    @cuda.jit(link=[str(tmp_path / "scale.ptx")])
    def apply(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = scaled(x[i], 3.0)

    x = np.linspace(-2, 2, 257)
    r = np.zeros_like(x)
    apply.forall(x.size)(r, x)
    np.testing.assert_array_equal(r, x * 3.0 + 1.0)


def test_missing_link_is_a_clear_error(cutwin_backend):
    @cuda.jit
    def unlinked(r):
        r[0] = mul(2.0, 3.0)

    with pytest.raises(CutwinError, match=r"test_foreign_functions.py:\d+:\d+: kernel 'unlinked' calls foreign "
                                          r"device function 'mul_f32_f32'.*link="):
        unlinked[1, 1](np.zeros(1, np.float32))


def test_missing_file_is_a_clear_error(cutwin_backend):
    @cuda.jit(link=["no_such_file.cu"])
    def k(r):
        r[0] = mul(2.0, 3.0)

    with pytest.raises(CutwinError, match="link file 'no_such_file.cu' not found"):
        k[1, 1](np.zeros(1, np.float32))


def test_wrong_argument_type_is_a_typing_error():
    @cuda.jit(link=[FUNCTIONS])
    def k(r, m):
        r[0] = sum_f64(m, 3)

    with pytest.raises(CompileError, match="argument 1 of foreign device function 'sum_f64' must be "
                                           r"CPointer\(float64\)"):
        k[1, 1](np.zeros(1), np.zeros(3, np.float32))


def test_simulator_without_cpu_version_names_the_function(tmp_path):
    (tmp_path / "only.ptx").write_text("// GPU code only\n")
    f = cuda.declare_device("gpu_only", "int32(int32)")

    @cuda.jit(link=[str(tmp_path / "only.ptx")])
    def k(r):
        r[0] = f(1)

    with cuda.use_backend("sim"):
        with pytest.raises(CutwinError, match="'gpu_only', which has no CPU version for the simulator.*only.ptx"):
            k[1, 1](np.zeros(1, np.int32))


def test_simulator_reports_non_portable_source():
    lane = cuda.declare_device("lane_of", "int32(int32)")

    @cuda.jit(link=[os.path.join(HERE, "not_portable.cu")])
    def k(r):
        r[0] = lane(1)

    with cuda.use_backend("sim"):
        with pytest.raises(CompileError, match="could not compile .*not_portable.cu(.|\n)*threadIdx"):
            k[1, 1](np.zeros(1, np.int32))


def test_code_in_memory_with_setup_and_teardown_callbacks(cutwin_backend):
    events = []

    def setup_callback(mod: cuda.cudadrv.drvapi.cu_module):
        events.append(("setup", mod.value))

    def teardown_callback(mod: cuda.cudadrv.drvapi.cu_module):
        events.append(("teardown", mod.value))

    source = cuda.CUSource('extern "C" __device__ int triple_i32(int *r, int v) { *r = 3 * v; return 0; }\n',
                           setup_callback=setup_callback, teardown_callback=teardown_callback)
    triple = cuda.declare_device("triple_i32", "int32(int32)")

    @cuda.jit(link=[source])
    def tripled(r, v):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = triple(v[i])

    v = np.arange(-50, 50, dtype=np.int32)
    r = np.zeros_like(v)
    tripled.forall(v.size)(r, v)
    tripled.forall(v.size)(r, v)  # loaded once
    np.testing.assert_array_equal(r, 3 * v)
    assert len(events) == 1 and events[0][0] == "setup"
    handle = events[0][1]
    assert (handle is None) == (cutwin_backend == "sim")  # the CUmodule on a GPU
    del tripled
    gc.collect()
    assert events == [("setup", handle), ("teardown", handle)]


@pytest.mark.parametrize("container", [list, tuple, set])
def test_a_linked_file_calls_a_function_of_another(cutwin_backend, container):
    # The GPU links every file into one program; the simulator must resolve across files too.
    square = cuda.CUSource('extern "C" __device__ int square_i32(int *r, int v) { *r = v * v; return 0; }\n')
    fourth = cuda.CUSource('extern "C" __device__ int square_i32(int *r, int v);\n'
                           'extern "C" __device__ int fourth_i32(int *r, int v) {\n'
                           '  int s; square_i32(&s, v); return square_i32(r, s);\n}\n')
    fourth_power = cuda.declare_device("fourth_i32", "int32(int32)", link=container([square, fourth]))

    @cuda.jit
    def powers(r, v):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = fourth_power(v[i])

    v = np.arange(-12, 13, dtype=np.int32)
    r = np.zeros_like(v)
    powers.forall(v.size)(r, v)
    np.testing.assert_array_equal(r, v.astype(np.int64) ** 4)


def test_ptx_source_in_memory(cutwin_backend, tmp_path):
    def quarter(x):
        return x * 0.25

    ptx, _ = cuda.compile_ptx(quarter, "float64(float64)", device=True, abi_info={"abi_name": "quarter_f64"})
    code = cuda.PTXSource(ptx)
    assert code.path.endswith(".ptx")
    # The simulator needs a CPU version beside the cached PTX file.
    with open(code.path[:-4] + ".cpp", "w") as fh:
        fh.write('extern "C" int quarter_f64(double *r, double x) { *r = x * 0.25; return 0; }\n')
    q = cuda.declare_device("quarter_f64", "float64(float64)", link=[code])

    @cuda.jit
    def apply(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = q(x[i])

    x = np.linspace(-8, 8, 33)
    r = np.zeros_like(x)
    apply.forall(x.size)(r, x)
    np.testing.assert_array_equal(r, x * 0.25)


C_ABI = os.path.join(HERE, "c_abi.cu")
scale_add = cuda.declare_device("scale_add", "int32(int32, int32)", link=C_ABI, abi="c")
half_of = cuda.declare_device("half_of", float64(float64), link=C_ABI, abi="c")
forty_two = cuda.declare_device("forty_two", "int32()", link=C_ABI, abi="c")


@cuda.jit(device=True)
def through_device_function(x):
    return scale_add(x, 3)


@cuda.jit
def calls_c_abi(r, h, x):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = through_device_function(x[i]) + forty_two()
        h[i] = half_of(x[i])


def test_c_abi_foreign_functions(cutwin_backend):
    x = np.arange(-5, 20, dtype=np.int32)
    r, h = np.zeros_like(x), np.zeros(x.size)
    calls_c_abi[1, 32](r, h, x)
    np.testing.assert_array_equal(r, 3 * x + 1 + 42)
    np.testing.assert_array_equal(h, 0.5 * x)


def test_declare_device_needs_a_return_type():
    with pytest.raises(TypeError, match="Return type"):
        cuda.declare_device("f", "(int32,)")
    with pytest.raises(NotImplementedError, match="ABI"):
        cuda.declare_device("f", "int32(int32)", abi="fortran")
