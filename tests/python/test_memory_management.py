"""External memory management (numba's EMM plugin interface): allocations go through the
installed plugin (a counting one that takes device memory from another library), set by
set_memory_manager or by the environment variable; pinned and mapped host arrays."""
import gc
import os
import subprocess
import sys

import numpy as np
import pytest

from cutwin import cuda

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emm_counting_plugin import CountingMemoryManager  # noqa: E402


@cuda.jit
def scale_add(r, x, k):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = (x[i] + k) * 2.0  # no multiply-add to contract: NumPy gives the same bits


@pytest.fixture
def counting():
    """The counting plugin installed for one test, its counters reset."""
    for k in CountingMemoryManager.counts:
        CountingMemoryManager.counts[k] = 0
    cuda.set_memory_manager(CountingMemoryManager)
    try:
        yield CountingMemoryManager.counts
    finally:
        cuda.set_memory_manager(None)
        gc.collect()


def test_device_allocations_go_through_the_plugin(cutwin_backend, counting):
    x = np.linspace(-1, 1, 1000)
    d = cuda.to_device(x)
    r = cuda.device_array_like(d)
    assert counting["initialize"] == 1
    assert counting["memalloc"] == 2 and counting["bytes"] == 2 * x.nbytes
    scale_add.forall(x.size)(r, d, 3.0)
    np.testing.assert_array_equal(r.copy_to_host(), (x + 3.0) * 2.0)
    del d, r
    gc.collect()
    assert counting["freed"] == 2  # the finalizers ran when the arrays went


def test_launch_copies_of_numpy_arguments_use_the_plugin(cutwin_backend, counting):
    x = np.arange(64, dtype=np.float32)
    r = np.zeros_like(x)
    scale_add.forall(64)(r, x, np.float32(0.5))
    np.testing.assert_array_equal(r, (x + np.float32(0.5)) * np.float32(2))
    gc.collect()
    assert counting["memalloc"] == 2 and counting["freed"] == 2


def test_strided_and_empty_arrays(cutwin_backend, counting):
    f = cuda.device_array((3, 5), np.float64, order="F")
    assert f.is_f_contiguous() and counting["memalloc"] == 1 and counting["bytes"] == 120
    e = cuda.device_array((0, 4), np.int32)
    assert e.size == 0 and counting["memalloc"] == 1  # nothing to allocate


def test_context_reports_the_plugins_memory_info(cutwin_backend, counting):
    info = cuda.current_context().get_memory_info()
    assert info == (2 ** 30, 2 ** 31) and info.free == 2 ** 30


def test_builtin_manager_memory_info(cutwin_backend):
    info = cuda.current_context().get_memory_info()
    assert 0 < info.free <= info.total
    assert isinstance(cuda.current_context().memory_manager, cuda.CutwinMemoryManager)


def test_pinned_array_is_page_locked_host_memory(cutwin_backend, counting):
    p = cuda.pinned_array((6, 7), np.int16)
    assert isinstance(p, np.ndarray) and p.shape == (6, 7) and p.dtype == np.int16
    assert counting["memhostalloc"] == 1
    p[:] = np.arange(42, dtype=np.int16).reshape(6, 7)
    d = cuda.to_device(p)
    back = cuda.pinned_array((6, 7), np.int16)
    d.copy_to_host(back)
    np.testing.assert_array_equal(back, p)
    view = p[2:, 1::2]  # views keep the memory alive
    del p
    gc.collect()
    assert view[0, 0] == 15


def test_mapped_array_is_written_by_kernels_in_place(cutwin_backend, counting):
    m = cuda.mapped_array(500, np.float64)
    x = np.linspace(0, 5, 500)
    scale_add.forall(500)(m, x, -2.0)
    cuda.synchronize()
    np.testing.assert_array_equal(m, (x - 2.0) * 2.0)
    assert counting["memhostalloc"] == 1
    # A view of a mapped array addresses the same memory from its own first element.
    scale_add.forall(100)(m[400:], x[:100], 10.0)
    cuda.synchronize()
    np.testing.assert_array_equal(m[400:], (x[:100] + 10.0) * 2.0)


def test_mapped_and_pinned_context_managers(cutwin_backend, counting):
    a = np.zeros(300)
    with cuda.mapped(a) as d:
        scale_add.forall(300)(d, np.ones(300), 4.0)
    np.testing.assert_array_equal(a, np.full(300, 10.0))
    b = np.arange(10.0)
    with cuda.pinned(b):
        assert np.array_equal(cuda.to_device(b).copy_to_host(), b)
    assert counting["mempin"] == 2
    gc.collect()
    assert not cuda.current_context().memory_manager.allocations  # both unpinned


def test_environment_variable_names_the_plugin(cutwin_backend):
    here = os.path.dirname(os.path.abspath(__file__))
    script = ("import numpy as np\n"
              "from cutwin import cuda\n"
              "from emm_counting_plugin import CountingMemoryManager as C\n"
              "with cuda.use_backend(%r):\n"
              "    d = cuda.to_device(np.arange(8.0))\n"
              "    r = cuda.device_array(8)\n"
              "    print(type(cuda.current_context().memory_manager).__name__, C.counts['memalloc'],\n"
              "          d.copy_to_host().sum())\n" % cutwin_backend)
    env = dict(os.environ, NUMBA_CUDA_MEMORY_MANAGER="emm_counting_plugin",
               PYTHONPATH=os.pathsep.join([here] + os.environ.get("PYTHONPATH", "").split(os.pathsep)))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["CountingMemoryManager", "2", "28.0"]


def test_ipc_handle(cutwin_backend):
    d = cuda.device_array(1024, np.uint8)
    ctx = cuda.current_context()
    mem = cuda.MemoryPointer(ctx, d.device_ctypes_pointer + 256, 512)
    h = ctx.get_ipc_handle(mem)  # (the simulator's: docs/devices.md)
    assert len(h.handle) == 64 and h.offset == 256 and h.size == 512


CHILD = """
import base64, pickle, sys
import numpy as np
from cutwin import cuda

@cuda.jit
def double(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= 2

handle, raw, offset = pickle.loads(base64.b64decode(sys.stdin.read()))
with handle as arr:                      # the exported array, mapped here
    double.forall(arr.size)(arr)
    cuda.synchronize()
with cuda.open_ipc_array(raw, 10, np.float64, offset=offset) as part:  # a slice of it by raw bytes
    print(repr(part.copy_to_host().tolist()))
"""


def test_arrays_shared_with_another_process(cutwin_backend, tmp_path):
    import base64
    import pickle
    x = np.arange(1000, dtype=np.float64)
    d = cuda.to_device(x)
    h = d.get_ipc_handle()
    payload = base64.b64encode(pickle.dumps((h, h._ipc_handle.handle, h._ipc_handle.offset + 8 * 100))).decode()
    child = tmp_path / "ipc_child.py"  # cutwin compiles kernels from a source file
    child.write_text(CHILD)
    run = subprocess.run([sys.executable, str(child)], input=payload, capture_output=True, text=True,
                         timeout=300, env=dict(os.environ, CUTWIN_BACKEND=cutwin_backend))
    assert run.returncode == 0, run.stderr
    np.testing.assert_array_equal(d.copy_to_host(), 2 * x)  # the other process wrote our memory
    assert eval(run.stdout) == (2 * x[100:110]).tolist()


def test_rng_states_come_from_the_memory_manager(cutwin_backend, counting):
    from cutwin.cuda.random import create_xoroshiro128p_states
    states = create_xoroshiro128p_states(100, seed=7)
    assert counting["memalloc"] == 1 and counting["bytes"] == 100 * 16
    cuda.set_memory_manager(None)
    same = create_xoroshiro128p_states(100, seed=7)
    assert states.copy_to_host().tobytes() == same.copy_to_host().tobytes()


def test_plugin_must_implement_interface_version_1(cutwin_backend):
    class Future(CountingMemoryManager):
        @property
        def interface_version(self):
            return 2

    cuda.set_memory_manager(Future)
    try:
        with pytest.raises(RuntimeError, match="interface version 2"):
            cuda.device_array(4)
    finally:
        cuda.set_memory_manager(None)
    with pytest.raises(TypeError, match="subclass of BaseCUDAMemoryManager"):
        cuda.set_memory_manager(object)


def test_memory_pointer_views_and_free(cutwin_backend):
    freed = []
    ctx = cuda.current_context()
    mem = cuda.MemoryPointer(ctx, 4096, 100, finalizer=lambda: freed.append(1))
    v = mem.view(10, 30)
    assert v.device_pointer_value == 4106 and v.size == 20 and v.owner is mem
    with pytest.raises(IndexError):
        mem.view(50, 200)
    mem.free()
    mem.free()
    assert freed == [1]
