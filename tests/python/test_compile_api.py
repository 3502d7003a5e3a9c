"""numba's compilation API (compile_ptx, compile, ..._for_current_device): the C ABI gives
an unmangled function with plain parameters, numba's ABI a mangled one returning a status
and storing the result through its first parameter. The PTX is checked by ptxas where the
toolkit is installed; its behaviour is checked on the GPU by linking it into a kernel
(test_foreign_functions.py)."""
import re
import shutil
import subprocess

import pytest

from cutwin import cuda
from cutwin.errors import CompileError
from cutwin.types import float32, float64, int32, int64, void


def add(x, y):
    return x + y


def scaled_sum(a, n):
    s = 0.0
    for i in range(n):
        s += a[i]
    return s * 0.5


def prototype(ptx, name):
    """The parameter list of .func `name`: [(kind, bits)], and the result's bits or None."""
    m = re.search(r"\.visible \.func\s*(\(\.param \.b(\d+) func_retval0\))?\s*%s\(([^)]*)\)" % re.escape(name),
                  ptx)
    assert m, "no .visible .func %s in the PTX" % name
    params = re.findall(r"\.param \.(\w)(\d+) %s_param_\d+" % re.escape(name), m.group(3))
    return [(k, int(b)) for k, b in params], (int(m.group(2)) if m.group(2) else None)


def assemble(ptx, tmp_path):
    """ptxas accepts the PTX as relocatable code (a device function is linked later)."""
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        return
    src = tmp_path / "f.ptx"
    src.write_text(ptx)
    r = subprocess.run([ptxas, "-arch=sm_90", "--compile-only", str(src), "-o", str(tmp_path / "f.o")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_c_abi_is_unmangled_with_plain_parameters(tmp_path):
    ptx, resty = cuda.compile_ptx(add, int32(int32, int32), device=True, abi="c")
    assert resty == int32
    assert prototype(ptx, "add") == ([("b", 32), ("b", 32)], 32)
    assert "add.s32" in ptx
    assemble(ptx, tmp_path)


def test_c_abi_name_from_abi_info(tmp_path):
    ptx, resty = cuda.compile_ptx(add, float32(float32, float32), device=True, abi="c",
                                  abi_info={"abi_name": "add_f32"})
    assert resty == float32
    assert prototype(ptx, "add_f32") == ([("b", 32), ("b", 32)], 32)
    assert "add.f32" in ptx or "add.rn.f32" in ptx
    assemble(ptx, tmp_path)


def test_numba_abi_returns_status_and_stores_result(tmp_path):
    ptx, resty = cuda.compile_ptx(add, int32(int32, int32), device=True)
    assert resty == int32
    name = re.search(r"\.visible \.func[^\n]*?(_Z\w+)\(", ptx).group(1)
    assert name.startswith("_ZN") and "add" in name
    params, ret = prototype(ptx, name)
    assert ret == 32 and params == [("b", 64), ("b", 32), ("b", 32)]  # result pointer first
    assert re.search(r"st(\.global)?\.u32|st\.b32|st\.u32", ptx)
    assemble(ptx, tmp_path)


def test_result_type_inferred_from_argument_tuple():
    _, resty = cuda.compile_ptx(add, (float64, int32), device=True)
    assert resty == float64
    _, resty = cuda.compile_ptx(add, (int32, int64), device=True, abi="c")
    assert resty == int64


def test_declared_result_type_converts():
    ptx, resty = cuda.compile_ptx(add, float32(float64, float64), device=True, abi="c")
    assert resty == float32
    assert "cvt.rn.f32.f64" in ptx


def test_array_arguments_in_numba_array_layout(tmp_path):
    ptx, resty = cuda.compile_ptx(scaled_sum, float64(float64[:], int32), device=True, abi="c",
                                  abi_info={"abi_name": "scaled_sum"})
    assert resty == float64
    params, _ = prototype(ptx, "scaled_sum")
    # meminfo, parent, nitems, itemsize, data, shape, stride, then n
    assert params == [("b", 64)] * 7 + [("b", 32)]
    assemble(ptx, tmp_path)


def test_kernel_has_an_entry_and_no_result():
    def double(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = x[i] * 2

    ptx, resty = cuda.compile_ptx(double, (float32[:], float32[:]))
    assert resty == void
    assert ".entry" in ptx and "func_retval" not in ptx


def test_for_current_device_targets_its_architecture():
    ptx, _ = cuda.compile_ptx_for_current_device(add, (float32, float32), device=True)
    cc = cuda.get_current_device().compute_capability
    assert ".target sm_%d%d" % cc in ptx
    ptx, _ = cuda.compile_for_current_device(add, (float32, float32))
    assert ".target sm_%d%d" % cc in ptx


def test_compile_defaults_to_the_c_abi_and_ltoir_is_bytes():
    ptx, resty = cuda.compile(add, float32(float32, float32))
    assert prototype(ptx, "add") == ([("b", 32), ("b", 32)], 32)
    code, resty = cuda.compile(add, float32(float32, float32), output="ltoir")
    assert isinstance(code, bytes) and len(code) > 100 and resty == float32
    assert b".func" not in code  # NVVM IR for the LTO linker, not PTX text


def test_older_architecture(tmp_path):
    ptx, _ = cuda.compile_ptx(add, int32(int32, int32), device=True, cc=(7, 5))
    assert ".target sm_75" in ptx


def test_errors_are_clear():
    with pytest.raises(NotImplementedError, match="ABI"):
        cuda.compile_ptx(add, int32(int32, int32), device=True, abi="fortran")
    with pytest.raises(NotImplementedError, match="output"):
        cuda.compile(add, int32(int32, int32), output="cubin")

    def pair(x):
        return x, x

    with pytest.raises(CompileError, match="scalar or None"):
        cuda.compile_ptx(pair, (int32,), device=True)


def test_compile_device_names_the_function_in_its_code():
    """numba's compile_device result: fndesc.mangled_name is the function's name in the
    LLVM IR and the PTX of the device function compiled on its own."""
    @cuda.jit(device=True)
    def foo(x, y):
        return x + y

    cres = foo.compile_device((int32, int32))
    name = cres.fndesc.mangled_name
    assert "foo" in name and str(cres.signature) == "int64(int32, int32)"
    assert name in foo.inspect_llvm((int32, int32))
    assert name in foo.inspect_asm((int32, int32))


def test_inspect_sass_needs_nvdisasm(monkeypatch):
    """numba's inspect_sass: ptxas and nvdisasm of the kernel's PTX; a clear error without them."""
    @cuda.jit((float32[::1],))
    def f(x):
        x[0] = 0

    if shutil.which("nvdisasm") and shutil.which("ptxas"):
        sass = f.inspect_sass((float32[::1],))
        assert "f__" in sass and ("STG" in sass or "ST." in sass)
        assert "digraph" in f.inspect_sass_cfg((float32[::1],))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="nvdisasm was not found"):
        f.inspect_sass()
    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        cuda.jit(device=True)(lambda a: a).inspect_sass((float32,))
