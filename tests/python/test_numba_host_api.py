"""The host API numba-cuda programs call beyond kernels and arrays: the device list, contexts
(deallocations, memory info, reset), cudadrv.driver.Device, and the DeviceNDArray methods
numba-cuda has (to_host, split, squeeze, bind, getitem/setitem, __array__, copy_to_host with a
stream). Data results are checked against NumPy; what cutwin reports to code that asks whether
it runs on a simulator is checked against the documented choice (docs/ci.md)."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cutwin import cuda
from cutwin.cuda.cudadrv import devices, driver


def test_list_devices_and_gpus(cutwin_backend):
    listed = cuda.list_devices()
    assert [d.id for d in listed] == list(range(len(cuda.gpus)))
    assert len(listed) >= 1
    assert listed[0] == cuda.gpus[0]
    # stumpy's pattern: each listed id makes its device current in a with-block.
    for device_id in [d.id for d in listed]:
        with cuda.gpus[device_id]:
            assert cuda.get_current_device().id == device_id


def test_driver_device(cutwin_backend):
    dev = driver.Device(0)
    current = cuda.get_current_device()
    assert dev.id == 0 and dev.name == current.name and isinstance(dev.name, str)
    assert dev.compute_capability == current.compute_capability
    assert dev.MULTIPROCESSOR_COUNT == current.MULTIPROCESSOR_COUNT > 0
    assert dev.supports_float16
    assert driver.driver.get_device_count() == len(cuda.list_devices())
    with pytest.raises(driver.CudaSupportError, match="no CUDA device 99"):
        driver.Device(99)


def test_context_deallocations_memory_info_and_reset(cutwin_backend):
    ctx = cuda.current_context()
    assert type(ctx).__name__ != "FakeCUDAContext"  # code that looks for numba's simulator runs its GPU path
    with ctx.deallocations.disable():
        assert ctx.deallocations.is_disabled
        d = cuda.to_device(np.arange(1000.0))
        del d
    assert not ctx.deallocations.is_disabled
    ctx.deallocations.clear()
    assert len(ctx.deallocations) == 0
    free, total = ctx.get_memory_info()
    assert 0 < free <= total
    assert devices.get_context() == ctx and devices.get_context(0) == ctx
    ctx.synchronize()
    ctx.reset()
    # The device works after a reset.
    np.testing.assert_array_equal(cuda.to_device(np.arange(5)).copy_to_host(), np.arange(5))


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def test_to_host_copies_back_into_the_source_array(cutwin_backend):
    host = np.arange(40, dtype=np.float64)
    expected = host + 1
    d = cuda.to_device(host)
    add_one[2, 32](d)
    d.to_host()
    np.testing.assert_array_equal(host, expected)
    with pytest.raises(ValueError, match="not made by to_device"):
        cuda.device_array(3).to_host()


def test_split_matches_numpy_pieces(cutwin_backend):
    host = np.arange(23, dtype=np.int32)
    d = cuda.to_device(host)
    pieces = list(d.split(5))
    assert [p.shape for p in pieces] == [(5,), (5,), (5,), (5,), (3,)]
    for k, p in enumerate(pieces):
        np.testing.assert_array_equal(p.copy_to_host(), host[5 * k:5 * k + 5])
    add_one[1, 32](pieces[1])  # a piece is a view of the same memory
    expected = host.copy()
    expected[5:10] += 1
    np.testing.assert_array_equal(d.copy_to_host(), expected)
    with pytest.raises(ValueError, match="1d"):
        list(cuda.device_array((2, 2)).split(1))
    with pytest.raises(ValueError, match="unit stride"):
        list(d[::2].split(2))


def test_squeeze_bind_getitem_setitem_and_array(cutwin_backend):
    host = np.arange(12, dtype=np.float32).reshape(1, 3, 1, 4)
    d = cuda.to_device(host)
    np.testing.assert_array_equal(d.squeeze().copy_to_host(), host.squeeze())
    np.testing.assert_array_equal(d.squeeze(axis=2).copy_to_host(), host.squeeze(axis=2))
    with pytest.raises(ValueError):
        d.squeeze(axis=1)
    s = cuda.stream()
    bound = d.bind(s)
    assert bound.stream is s and bound.squeeze().stream is s
    assert d.getitem((0, 2, 0, 3)) == host[0, 2, 0, 3]
    d.setitem((0, 1, 0, 1), 99.0)
    host[0, 1, 0, 1] = 99.0
    np.testing.assert_array_equal(np.asarray(d), host)
    np.testing.assert_array_equal(np.asarray(d, dtype=np.float64), host.astype(np.float64))
    assert d.__cuda_ndarray__ and d.__cuda_memory__
    flat = d.ravel(stream=s)
    assert flat.shape == (12,) and flat.stream is s
    assert d.gpu_data.device_pointer_value == d.__cuda_array_interface__["data"][0]
    assert d.as_cuda_arg().size == d.nbytes


def test_copy_to_host_on_a_stream(cutwin_backend):
    s = cuda.stream()
    host = np.arange(64, dtype=np.int64)
    d = cuda.to_device(host, stream=s)
    add_one[2, 32, s](d)
    out = np.empty_like(host)
    d.copy_to_host(out, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(out, host + 1)
    np.testing.assert_array_equal(d.copy_to_host(stream=s), host + 1)


# The same host-API calls through numba-cuda (its simulator: an independent implementation
# of the same API) and through cutwin; the results must agree.
HOST_API_PROGRAM = textwrap.dedent("""
    import json, sys
    import numpy as np
    np.row_stack = getattr(np, "row_stack", np.vstack)
    if sys.argv[1] == "numba":
        from numba import cuda
    else:
        from cutwin import cuda
    out = {}
    d = cuda.to_device(np.arange(23, dtype=np.int32))
    out["split"] = [p.copy_to_host().tolist() for p in d.split(5)]
    dd = cuda.to_device(np.arange(12, dtype=np.float32).reshape(1, 3, 1, 4))
    out["squeeze"] = list(dd.squeeze().shape)
    out["squeeze_axis"] = list(dd.squeeze(axis=2).shape)
    out["ravel"] = dd.ravel().copy_to_host().tolist()
    out["list_devices"] = [x.id for x in cuda.list_devices()]
    out["gpus"] = len(cuda.gpus)
    out["memory_info"] = len(cuda.current_context().get_memory_info())
    out["asarray"] = list(np.asarray(dd).shape)
    s = cuda.stream()
    out["bind"] = dd.bind(s).stream is s
    print(json.dumps(out))
""")


def test_host_api_agrees_with_numba_cudas_simulator(tmp_path):
    program = tmp_path / "host_api.py"
    program.write_text(HOST_API_PROGRAM)
    env = {k: v for k, v in os.environ.items() if k != "CUTWIN_NUMBA"}
    numba = subprocess.run([sys.executable, str(program), "numba"], capture_output=True, text=True,
                           env=dict(env, NUMBA_ENABLE_CUDASIM="1"))
    if numba.returncode != 0 and "No module named 'numba" in numba.stderr:
        pytest.skip("numba-cuda is not installed: no oracle")
    assert numba.returncode == 0, numba.stderr
    ours = subprocess.run([sys.executable, str(program), "cutwin"], capture_output=True, text=True,
                          env=dict(env, CUTWIN_BACKEND="sim"))
    assert ours.returncode == 0, ours.stderr
    assert json.loads(ours.stdout) == json.loads(numba.stdout)
