"""Several devices: the simulator's (CUTWIN_SIM_DEVICES, cuda.set_simulated_devices) or the
GPUs of the machine. numba's device API (gpus, select_device, close, list_devices,
contexts), arrays, streams and kernels bound to their device, peer access and peer copies,
IPC handles opened by other processes on any device. Results are checked against NumPy."""
import os
import pickle
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import DeviceError, LaunchError

DEVICES = 3


@pytest.fixture
def devices(cutwin_backend):
    """The device count of the backend under test: 3 simulated devices (restored after),
    or the GPUs present (tests that need more skip on a machine of one GPU)."""
    if cutwin_backend == "sim":
        before = cuda.simulated_devices()
        cuda.set_simulated_devices(DEVICES)
        yield DEVICES
        cuda.close()
        cuda.set_simulated_devices(before)
    else:
        yield len(cuda.gpus)
        cuda.close()


def need(n, have):
    if have < n:
        pytest.skip("needs %d devices, this machine has %d" % (n, have))


@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def run_script(code, env_extra=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **(env_extra or {}))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_device_list_and_selection(devices):
    need(2, devices)
    assert len(cuda.gpus) == devices and len(cuda.gpus.lst) == devices
    assert [d.id for d in cuda.list_devices()] == list(range(devices))
    assert [d.id for d in cuda.gpus[1:]] == list(range(1, devices))
    assert cuda.get_current_device().id == 0
    assert cuda.select_device(1).id == 1 and cuda.get_current_device().id == 1
    with cuda.gpus[0]:
        assert cuda.gpus.current.id == 0
        with cuda.gpus[devices - 1]:
            assert cuda.current_context().device.id == devices - 1
        assert cuda.get_current_device().id == 0
    assert cuda.get_current_device().id == 1
    cuda.close()  # numba: the context stack is empty again, so device 0 is next
    assert cuda.get_current_device().id == 0
    with pytest.raises(DeviceError, match="no device %d" % devices):
        cuda.select_device(devices)
    assert len({d.uuid for d in cuda.gpus}) == devices


def test_each_device_runs_kernels_on_its_own_arrays(devices):
    need(2, devices)
    rng = np.random.default_rng(7)
    for d in range(devices):
        # (integers: exact whether a * x + y is fused or not)
        x, y = rng.integers(0, 1 << 16, 1000).astype(np.float32), rng.integers(0, 1 << 16, 1000).astype(np.float32)
        with cuda.gpus[d]:
            dx, dy, out = cuda.to_device(x), cuda.to_device(y), cuda.device_array(1000, np.float32)
            axpy[8, 128](out, np.float32(2.5), dx, dy)
            got = out.copy_to_host()
        np.testing.assert_array_equal(got, np.float32(2.5) * x + y)
    # NumPy arguments go to the current device and come back, on each device.
    for d in range(devices):
        host = np.zeros(10, np.float32)
        with cuda.gpus[d]:
            axpy[1, 32](host, np.float32(1), np.arange(10, dtype=np.float32), np.ones(10, np.float32))
        np.testing.assert_array_equal(host, np.arange(10, dtype=np.float32) + 1)


def test_memory_is_accounted_per_device(devices, cutwin_backend):
    need(2, devices)
    if cutwin_backend != "sim":
        pytest.skip("a GPU's free memory moves with everything else on it")
    before = [cuda.devices.get_context(d).get_memory_info() for d in range(devices)]
    with cuda.gpus[1]:
        a = cuda.device_array(32 << 20, np.uint8)
        assert cuda.current_context().get_memory_info().free == before[1].free - (32 << 20)
    after = [cuda.devices.get_context(d).get_memory_info() for d in range(devices)]
    assert after[0] == before[0] and after[2] == before[2]
    del a
    assert cuda.devices.get_context(1).get_memory_info() == before[1]


def test_a_thread_has_its_own_current_device(devices):
    need(2, devices)
    seen, errors = {}, []

    def work(d):
        try:
            cuda.select_device(d)
            x = np.arange(100, dtype=np.float32) * (d + 1)
            out = cuda.device_array(100, np.float32)
            axpy[1, 128](out, np.float32(1), cuda.to_device(x), cuda.to_device(np.zeros(100, np.float32)))
            seen[d] = (cuda.get_current_device().id, out.copy_to_host())
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(d,)) for d in range(devices)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for d in range(devices):
        assert seen[d][0] == d
        np.testing.assert_array_equal(seen[d][1], np.arange(100, dtype=np.float32) * (d + 1))
    assert cuda.get_current_device().id == 0  # this thread's selection did not move


def test_an_array_of_another_device_needs_peer_access(devices):
    need(2, devices)
    x = np.arange(256, dtype=np.float32)
    with cuda.gpus[0]:
        dx = cuda.to_device(x)
    with cuda.gpus[1]:
        out = cuda.device_array(256, np.float32)
        ctx = cuda.current_context()
        if not ctx.can_access_peer(0):
            pytest.skip("these GPUs cannot reach each other's memory")
        with pytest.raises(LaunchError, match="array on (sim|gpu):0.*CUDA_ERROR_ILLEGAL_ADDRESS"):
            axpy[2, 128](out, np.float32(3), dx, dx)
        ctx.enable_peer_access(cuda.devices.get_context(0))
        axpy[2, 128](out, np.float32(3), dx, dx)
        np.testing.assert_array_equal(out.copy_to_host(), 4 * x)
        ctx.disable_peer_access(cuda.devices.get_context(0))
        with pytest.raises(LaunchError):
            axpy[2, 128](out, np.float32(3), dx, dx)


def test_peer_copies(devices):
    need(2, devices)
    x = np.random.default_rng(3).random((64, 33))
    with cuda.gpus[0]:
        a = cuda.to_device(x)
    with cuda.gpus[devices - 1]:
        b = cuda.device_array_like(x)
    with cuda.gpus[0]:
        b.copy_to_device(a)  # numba's test_with_context_peer_copy: any device current
    np.testing.assert_array_equal(b.copy_to_host(), x)
    with cuda.gpus[1]:
        c = cuda.device_array_like(x)
    cuda.driver.device_to_device(c, b, x.nbytes)
    np.testing.assert_array_equal(c.copy_to_host(), x)
    back = np.zeros_like(x)
    cuda.driver.device_to_host(back, c, x.nbytes)
    np.testing.assert_array_equal(back, x)


def test_streams_and_events_belong_to_their_device(devices):
    need(2, devices)
    with cuda.gpus[1]:
        s1 = cuda.stream()
        e1 = cuda.event()
    out = cuda.device_array(4, np.float32)
    z = cuda.to_device(np.zeros(4, np.float32))
    with pytest.raises(LaunchError, match="stream is one of (sim|gpu):1.*CUDA_ERROR_INVALID_HANDLE"):
        axpy[1, 32, s1](out, np.float32(1), z, z)
    with pytest.raises(DeviceError, match="CUDA_ERROR_INVALID_HANDLE"):
        e1.record(cuda.stream())
    with cuda.gpus[1]:
        out1 = cuda.device_array(4, np.float32)
        z1 = cuda.to_device(np.ones(4, np.float32))
        axpy[1, 32, s1](out1, np.float32(1), z1, z1)
        e1.record(s1)
        e1.synchronize()
    np.testing.assert_array_equal(out1.copy_to_host(), np.full(4, 2, np.float32))


def test_require_context_keeps_the_device(devices):
    need(2, devices)

    @cuda.require_context
    def switch():
        with cuda.gpus[1]:
            pass

    with pytest.raises(RuntimeError, match="Cannot switch CUDA-context"):
        switch()
    assert cuda.get_current_device().id == 0

    @cuda.require_context
    def same():
        with cuda.gpus[0]:
            return cuda.get_current_device().id

    assert same() == 0


IPC_CHILD = """
import pickle, sys
import numpy as np
from cutwin import cuda
cuda.use_backend(sys.argv[1])
handle = pickle.load(open(sys.argv[2], "rb"))
with cuda.gpus[int(sys.argv[3])]:
    with handle as arr:
        print(" ".join(str(v) for v in arr.copy_to_host()))
        try:
            with handle:
                pass
        except ValueError as e:
            print("again:", e)
        @cuda.jit
        def negate(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = -a[i]
        negate[1, 32](arr)  # the exporter sees this: the memory is shared
        cuda.synchronize()
"""


@pytest.mark.parametrize("where", ["same", "other"])
def test_ipc_handles_open_in_other_processes_on_any_device(devices, cutwin_backend, tmp_path, where):
    if where == "other":
        need(2, devices)
    x = np.arange(1, 21, dtype=np.int64)
    with cuda.gpus[0]:
        dx = cuda.to_device(x)
        handle = dx[4:14].get_ipc_handle()
    path = tmp_path / "handle.pickle"
    path.write_bytes(pickle.dumps(handle))
    script = tmp_path / "child.py"
    script.write_text(IPC_CHILD)
    r = subprocess.run([sys.executable, str(script), cutwin_backend, str(path), "0" if where == "same" else "1"],
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path),
                                CUTWIN_SIM_DEVICES=str(max(devices, 1))),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert lines[0].split() == [str(v) for v in x[4:14]]
    assert lines[1] == "again: IpcHandle is already opened"
    want = x.copy()
    want[4:14] *= -1
    np.testing.assert_array_equal(dx.copy_to_host(), want)
    with pytest.raises(ValueError, match="from original process"):
        handle.open()


def test_a_released_or_damaged_handle_does_not_open(devices, cutwin_backend, tmp_path):
    if cutwin_backend != "sim":
        pytest.skip("the driver's errors for these are its own")
    import struct
    kept = cuda.to_device(np.arange(8))
    damaged = kept.get_ipc_handle()._ipc_handle
    raw = bytearray(damaged.handle)
    span = struct.unpack_from("<Q", raw, 24)[0]  # the memory file's size (backend_sim/ipc_memory.cpp)
    struct.pack_into("<Q", raw, 24, span * 1000)
    dx = cuda.to_device(np.arange(8))
    released = dx.get_ipc_handle()._ipc_handle
    del dx
    for name, handle in (("released", released), ("damaged", cuda.IpcHandle(None, bytes(raw), 64))):
        path = tmp_path / ("%s.pickle" % name)
        path.write_bytes(pickle.dumps(handle))
        r = run_script("""
            import pickle
            from cutwin import cuda
            h = pickle.load(open(%r, "rb"))
            try:
                h.open()
            except Exception as e:
                print(type(e).__name__, e)
        """ % str(path), {"CUTWIN_BACKEND": "sim"})
        want = "memory of this handle is gone" if name == "released" else "a damaged handle"
        assert want in r.stdout, r.stdout + r.stderr
    assert kept.copy_to_host().tolist() == list(range(8))


def test_the_environment_names_the_simulated_devices(cutwin_backend):
    if cutwin_backend != "sim":
        pytest.skip("about the simulator")
    r = run_script("""
        from cutwin import cuda
        print(len(cuda.gpus), cuda.gpus[3].id, cuda.gpus[3].is_simulator)
    """, {"CUTWIN_SIM_DEVICES": "4", "CUTWIN_BACKEND": "sim"})
    assert r.stdout.split() == ["4", "3", "True"], r.stderr
    r = run_script("from cutwin import cuda\nprint(len(cuda.gpus))", {"CUTWIN_SIM_DEVICES": "zero",
                                                                       "CUTWIN_BACKEND": "sim"})
    assert r.returncode != 0 and "CUTWIN_SIM_DEVICES is 'zero'" in r.stderr


def test_a_device_of_little_memory_runs_out(cutwin_backend):
    if cutwin_backend != "sim":
        pytest.skip("about the simulator")
    r = run_script("""
        import numpy as np
        from cutwin import cuda
        info = cuda.current_context().get_memory_info()
        print(info.total)
        a = cuda.device_array(3 << 20, np.uint8)
        try:
            cuda.device_array(2 << 20, np.uint8)
        except Exception as e:
            print(type(e).__name__, e)
        del a
        b = cuda.device_array(4 << 20, np.uint8)  # free again
        print("ok", b.size)
    """, {"CUTWIN_SIM_MEMORY_MB": "4", "CUTWIN_BACKEND": "sim"})
    lines = r.stdout.splitlines()
    assert lines[0] == str(4 << 20), r.stderr
    assert "CUDA_ERROR_OUT_OF_MEMORY" in lines[1]
    assert lines[2] == "ok %d" % (4 << 20)
    r = run_script("from cutwin import cuda\ncuda.device_array(1)", {"CUTWIN_SIM_MEMORY_MB": "lots",
                                                                    "CUTWIN_BACKEND": "sim"})
    assert r.returncode != 0 and "CUTWIN_SIM_MEMORY_MB is 'lots'" in r.stderr


def test_close_comes_back_to_the_selected_device_and_ends_peer_access(devices, cutwin_backend):
    need(3, devices)
    base = "sim:2" if cutwin_backend == "sim" else "gpu:2"
    with cuda.use_backend(base):
        cuda.select_device(1)
        ctx = cuda.current_context()
        if not ctx.can_access_peer(0):
            pytest.skip("these GPUs cannot reach each other's memory")
        ctx.enable_peer_access(cuda.devices.get_context(0))
        cuda.close()
        assert cuda.get_current_device().id == 2  # what use_backend selected, not device 0
        with cuda.gpus[0]:
            dx = cuda.to_device(np.ones(4, np.float32))
        with cuda.gpus[1]:
            out = cuda.device_array(4, np.float32)
            with pytest.raises(LaunchError, match="no peer access"):  # close() ended it
                axpy[1, 32](out, np.float32(1), dx, dx)


def test_device_specs_name_one_device_each(cutwin_backend):
    if cutwin_backend != "sim":
        pytest.skip("about the simulator's specs")
    with cuda.use_backend("sim:00"):
        assert cuda.current_backend() == "sim"
    with pytest.raises(ValueError, match="unknown cutwin backend"):
        cuda.use_backend("sim:\u0663")  # an Arabic-Indic three is no device number


def test_what_a_kernel_writes_into_a_peers_array_counts_as_written_there(devices, cutwin_backend):
    need(2, devices)
    if cutwin_backend != "sim":
        pytest.skip("the simulator's sanitizer")

    @cuda.jit(sanitize="init")
    def total(a, out):
        if cuda.grid(1) == 0:
            s = 0.0
            for i in range(a.size):
                s += a[i]
            out[0] = s

    with cuda.gpus[0]:
        a = cuda.device_array(64, np.float64)  # nothing written yet
        out = cuda.device_array(1, np.float64)
    with cuda.gpus[1]:
        cuda.current_context().enable_peer_access(cuda.devices.get_context(0))
        ones = cuda.to_device(np.ones(64))
        axpy[1, 64](a, 1.0, ones, ones)  # device 1 writes device 0's array
    with cuda.gpus[0]:
        total[1, 32](a, out)  # reads only bytes device 1 wrote: no uninitialised read
        assert out.copy_to_host()[0] == 128.0
