"""Records (NumPy structured dtypes, numba's Record) in kernels: arrays of records, record
arguments (passed by reference: the kernel's stores reach the host record), fields read and
written by attribute, by name and by position, nested arrays and nested records, whole
records copied, records in shared and local memory, device functions taking and returning
records, and the errors numba gives (misaligned fields of packed records, unknown fields).
Oracle: the same operations done by NumPy on the host."""
import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import CompileError
from cutwin.types import from_dtype

POINT = np.dtype([("x", np.float64), ("n", np.int32), ("z", np.complex64), ("ok", np.bool_),
                  ("v", np.uint8, 5)], align=True)
GRID = np.dtype([("id", np.int32), ("m", np.float32, (3, 2))])  # packed, every field aligned
OUTER = np.dtype([("tag", np.int16), ("p", POINT), ("w", np.float32, 2)], align=True)


def assert_records_equal(got, want):
    """Field by field (nested records too); padding bytes are not part of a record's value."""
    assert got.dtype == want.dtype
    for name in want.dtype.names:
        if want.dtype[name].names:
            assert_records_equal(got[name], want[name])
        else:
            np.testing.assert_array_equal(got[name], want[name], err_msg="field " + name)


def points(n):
    a = np.zeros(n, POINT)
    for i in range(n):
        a[i] = (i / 2, 10 * i, complex(i, -i), i % 2 == 0, [i + k for k in range(5)])
    return a


def test_fields_by_attribute_name_and_position(cutwin_backend):
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i] = a[i].x + a[i]["n"] + a[i][2].imag + a[i].ok + a[i].v[4]
            a[i].x = a[i].n * 0.25
            a[i]["z"] = a[i].z * 2j
            a[i].ok = not a[i].ok
            a[i].v[1] = 200

    a = points(7)
    want = a.copy()
    expect = want["x"] + want["n"] + want["z"].imag + want["ok"] + want["v"][:, 4]
    want["x"] = want["n"] * 0.25
    want["z"] = want["z"] * 2j
    want["ok"] = ~want["ok"]
    want["v"][:, 1] = 200
    out = np.zeros(7)
    k[2, 4](a, out)
    np.testing.assert_array_equal(out, expect)
    assert_records_equal(a, want)


def test_record_argument_is_written_back(cutwin_backend):
    @cuda.jit
    def k(r, out):
        out[0] = r.x
        r.n += 5
        r.v[0] = 7

    host = points(3)
    out = np.zeros(1)
    k[1, 1](host[2], out)  # a view into the array: the kernel's stores reach it
    assert out[0] == 1.0 and host[2]["n"] == 25 and host[2]["v"][0] == 7
    rec = np.recarray(2, dtype=POINT)
    rec[:] = points(2)
    k[1, 1](rec[1], out)
    assert out[0] == 0.5 and rec[1].n == 15


def test_whole_records_copied(cutwin_backend):
    @cuda.jit
    def k(a, b, r):
        a[0] = a[2]
        b[1] = r

    a, b = points(3), np.zeros(2, POINT)
    want_a = a.copy()
    want_a[0] = want_a[2]
    r = points(5)[4]
    k[1, 1](a, b, r)
    assert_records_equal(a, want_a)
    assert_records_equal(b[1:], np.array([r]))
    assert_records_equal(b[:1], np.zeros(1, POINT))


def test_nested_arrays_read_filled_and_copied(cutwin_backend):
    @cuda.jit
    def k(g, src, out):
        i = cuda.grid(1)
        if i < g.shape[0]:
            out[i] = g[i].m[2, 1] + g[i].m.shape[0] * 10 + g[i]["m"].size * 100
            if i == 0:
                g[i]["m"] = src  # an array of the field's shape copied in
            else:
                g[i].m[:, 0] = -1.5  # a view of the field filled

    g = np.zeros(3, GRID)
    g["m"] = np.arange(18, dtype=np.float32).reshape(3, 3, 2)
    want = g.copy()
    src = np.arange(6, dtype=np.float32).reshape(3, 2) * 7
    expect = want["m"][:, 2, 1] + 30 + 600
    want[0]["m"] = src
    want["m"][1:, :, 0] = -1.5
    out = np.zeros(3)
    k[1, 3](g, src, out)
    np.testing.assert_array_equal(out, expect)
    assert_records_equal(g, want)


def test_nested_records(cutwin_backend):
    # Thread 1 copies the record thread 0 writes: a race the test means (it compares only
    # what the order cannot change), so the sanitizer (CUTWIN_SANITIZE) is off for it.
    @cuda.jit(sanitize=False)
    def k(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            p = a[i].p  # a reference into the same bytes
            out[i] = p.x + a[i].w[1] + a[i].tag
            p.n = i * 3
            a[i]["p"].v[2] = 9
            if i == 1:
                a[i].p = a[0].p

    a = np.zeros(3, OUTER)
    a["p"] = points(3)
    a["tag"] = [4, 5, 6]
    a["w"] = [[0, 1], [2, 3], [4, 5]]
    want = a.copy()
    expect = want["p"]["x"] + want["w"][:, 1] + want["tag"]
    out = np.zeros(3)
    k[1, 3](a, out)
    want["p"]["n"] = [0, 3, 6]
    want["p"]["v"][:, 2] = 9
    np.testing.assert_array_equal(out, expect)
    # thread 1 copied thread 0's record: the result depends on their order only in p.n
    # and p.v of element 1, which both threads wrote; compare the rest exactly.
    np.testing.assert_array_equal(a["tag"], want["tag"])
    np.testing.assert_array_equal(a["w"], want["w"])
    assert_records_equal(a["p"][[0, 2]], want["p"][[0, 2]])
    assert a["p"]["x"][1] == want["p"]["x"][0]


def test_device_functions_take_and_return_records(cutwin_backend):
    @cuda.jit(device=True)
    def norm2(p):
        return p.x * p.x + p.n * p.n

    @cuda.jit(device=True)
    def pick(a, i):
        return a[i]

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            r = pick(a, a.shape[0] - 1 - i)
            out[i] = norm2(r)
            r.x = -1.0

    a = points(4)
    want = a.copy()
    expect = (want["x"] ** 2 + want["n"].astype(np.float64) ** 2)[::-1]
    out = np.zeros(4)
    k[1, 4](a, out)
    np.testing.assert_array_equal(out, expect)
    np.testing.assert_array_equal(a["x"], -1.0)


def test_shared_and_local_arrays_of_records(cutwin_backend):
    @cuda.jit
    def k(out):
        s = cuda.shared.array(8, dtype=POINT)
        loc = cuda.local.array(2, dtype=GRID)
        t = cuda.threadIdx.x
        s[t].x = t * 1.5
        s[t].n = t
        loc[1].m[2, 1] = t + 0.5
        loc[1].id = 3
        cuda.syncthreads()
        out[t] = s[7 - t].x + s[(t + 1) % 8]["n"] + loc[1].m[2, 1] + loc[1].id

    out = np.zeros(8)
    k[1, 8](out)
    t = np.arange(8)
    np.testing.assert_array_equal(out, (7 - t) * 1.5 + (t + 1) % 8 + t + 0.5 + 3)


def test_signature_with_record_types(cutwin_backend):
    rec = from_dtype(POINT)

    @cuda.jit((rec[::1], rec))
    def k(a, r):
        a[0].x = r.x + 1

    a = points(2)
    k[1, 1](a, points(3)[2])
    assert a[0]["x"] == 2.0


def test_rng_states_read_as_records(cutwin_backend):
    from cutwin.cuda.random import create_xoroshiro128p_states

    @cuda.jit
    def k(states, out):
        i = cuda.grid(1)
        if i < states.shape[0]:
            out[i, 0] = states[i].s0
            out[i, 1] = states[i]["s1"]

    states = create_xoroshiro128p_states(4, seed=7)
    out = np.zeros((4, 2), np.uint64)
    k[1, 4](states, out)
    host = states.copy_to_host()
    np.testing.assert_array_equal(out[:, 0], host["s0"])
    np.testing.assert_array_equal(out[:, 1], host["s1"])


def test_misaligned_field_of_packed_record_is_a_compile_error(cutwin_backend):
    packed = np.dtype([("a", np.int32), ("b", np.float64)])  # b at offset 4

    @cuda.jit
    def k(a):
        a[0].a = a[0].b

    with pytest.raises(CompileError, match=r"\.b of type float64 is not aligned"):
        k[1, 1](np.zeros(1, packed))


def test_unknown_field_and_runtime_name_are_compile_errors(cutwin_backend):
    @cuda.jit
    def unknown(a):
        a[0].nope = 1

    @cuda.jit
    def runtime_key(a, i):
        a[0][i] = 1

    with pytest.raises(CompileError, match="has no field 'nope'"):
        unknown[1, 1](points(1))
    with pytest.raises(CompileError, match="constant position"):
        runtime_key[1, 1](points(1), 0)


def test_records_of_dates_are_refused_with_the_field_named(cutwin_backend):
    # (string fields are supported: test_strings.py)
    dates = np.dtype([("x", np.float32), ("when", "M8[D]")])
    with pytest.raises(TypeError, match="record field 'when' has dtype"):
        cuda.to_device(np.zeros(2, dates))


def test_record_types_compare_with_numbas():
    numba_support = pytest.importorskip("numba.np.numpy_support")
    assert from_dtype(POINT) == numba_support.from_dtype(POINT)
    assert from_dtype(POINT)[::1] == numba_support.from_dtype(POINT)[::1]


_TABLE = np.array([(1, 2, 0xDEADBEEF, 8.5), (4, 5, 0xBEEFDEAD, -1.0)],
                  dtype=np.dtype([("a", np.uint8), ("b", np.uint8), ("y", np.uint32), ("f", np.float64)], align=True))


def test_global_record_arrays_are_constants(cutwin_backend):
    @cuda.jit
    def read(out):
        i = cuda.grid(1)
        if i < _TABLE.shape[0]:
            c = cuda.const.array_like(_TABLE)
            out[i, 0] = c[i].a
            out[i, 1] = _TABLE[i]["b"]
            out[i, 2] = c[i].y
            out[i, 3] = c[i].f

    @cuda.jit
    def write(out):
        _TABLE[0].a = 1

    @cuda.jit
    def increment(out):
        _TABLE[1]["b"] += 1

    out = np.zeros((2, 4))
    read[1, 2](out)
    np.testing.assert_array_equal(out, np.stack([_TABLE[n].astype(np.float64) for n in "aby"] + [_TABLE["f"]], 1))
    with pytest.raises(CompileError, match="read-only in kernels"):
        write[1, 1](out)
    with pytest.raises(CompileError, match="read-only in kernels"):
        increment[1, 1](out)
