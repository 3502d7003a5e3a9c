"""The kernel cache on disk from Python: numba's `cache=True` and `Dispatcher.stats`. Each
run is a process of its own (the cache is for later processes) on the backend under test,
its results checked against NumPy; a changed source or global never finds the old kernel."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

SCRIPT = '''
import json
import numpy as np
from cutwin import cuda

OFFSET = {offset}

@cuda.jit({jit})
def scale(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * 3 {op} OFFSET

@cuda.jit({jit})
def reverse(out, x):
    s = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    out[t] = s[63 - t]

x = np.arange(64, dtype=np.float32) * np.float32(0.5)
report = {{}}
for kernel in (scale, reverse):
    out = np.zeros_like(x)
    kernel[1, 64](out, x)
    s = kernel.stats
    report[kernel.__name__] = {{"out": out.tolist(), "hits": sum(s.cache_hits.values()),
                               "misses": sum(s.cache_misses.values()), "path": s.cache_path}}
print(json.dumps(report))
'''


def child_env(tmp_path, backend, **env):
    """The child processes' environment: the test's own cache folder, on `backend`."""
    environ = dict(os.environ, CUTWIN_CACHE_DIR=str(tmp_path / "cache"), CUTWIN_BACKEND=backend)
    for mode in ("CUTWIN_CACHE", "CUTWIN_SIM_THREADS", "CUTWIN_SIM_CPU", "CUTWIN_SANITIZE"):
        environ.pop(mode, None)  # (the test's own; the runs that want one set it)
    environ.update(env)
    return environ


def run(tmp_path, backend, offset=0.5, op="+", jit="cache=True", **env):
    script = tmp_path / "kernels.py"
    script.write_text(SCRIPT.format(offset=offset, op=op, jit=jit))
    environ = child_env(tmp_path, backend, **env)
    done = subprocess.run([sys.executable, str(script)], env=environ, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def expected(offset, op="+"):
    x = np.arange(64, dtype=np.float32) * np.float32(0.5)
    scale = x * np.float32(3) + np.float32(offset) if op == "+" else x * np.float32(3) - np.float32(offset)
    return {"scale": scale.tolist(), "reverse": x[::-1].tolist()}


def entries(tmp_path):
    folder = tmp_path / "cache" / "kernels"
    return sorted(p.name for p in folder.iterdir() if p.name != ".pruned") if folder.exists() else []


def test_a_second_process_loads_the_kernels_the_first_compiled(tmp_path, cutwin_backend):
    first = run(tmp_path, cutwin_backend)
    second = run(tmp_path, cutwin_backend)
    want = expected(0.5)
    for name in ("scale", "reverse"):
        assert first[name]["out"] == want[name]
        assert second[name]["out"] == want[name]
        assert (first[name]["hits"], first[name]["misses"]) == (0, 1)
        assert (second[name]["hits"], second[name]["misses"]) == (1, 0)
        assert second[name]["path"] == str(tmp_path / "cache" / "kernels")
    assert len(entries(tmp_path)) == 2


def test_a_changed_source_or_global_never_finds_the_old_kernel(tmp_path, cutwin_backend):
    run(tmp_path, cutwin_backend)
    edited = run(tmp_path, cutwin_backend, op="-")
    assert edited["scale"]["out"] == expected(0.5, "-")["scale"]
    assert (edited["scale"]["hits"], edited["scale"]["misses"]) == (0, 1)
    rebound = run(tmp_path, cutwin_backend, offset=4.25)
    assert rebound["scale"]["out"] == expected(4.25)["scale"]
    assert (rebound["scale"]["hits"], rebound["scale"]["misses"]) == (0, 1)
    # reverse's own source did not change, but its file's did: the cache keys a function by
    # its own source and the values it uses, so it is found again
    assert rebound["reverse"]["hits"] == 1
    assert len(entries(tmp_path)) == 4


def test_cutwin_cache_0_keeps_nothing(tmp_path, cutwin_backend):
    report = run(tmp_path, cutwin_backend, CUTWIN_CACHE="0")
    assert report["scale"]["out"] == expected(0.5)["scale"]
    assert report["scale"]["path"] is None
    assert (report["scale"]["hits"], report["scale"]["misses"]) == (0, 0)
    assert entries(tmp_path) == []


def test_processes_starting_at_once_all_get_the_right_kernels(tmp_path, cutwin_backend):
    script = tmp_path / "kernels.py"
    script.write_text(SCRIPT.format(offset=1.5, op="+", jit="cache=True"))
    environ = child_env(tmp_path, cutwin_backend)
    procs = [subprocess.Popen([sys.executable, str(script)], env=environ, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    want = expected(1.5)
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        report = json.loads(out.strip().splitlines()[-1])
        assert report["scale"]["out"] == want["scale"]
        assert report["reverse"]["out"] == want["reverse"]
    assert all(name.endswith(".ck") for name in entries(tmp_path))
    assert len(entries(tmp_path)) == 2
    after = run(tmp_path, cutwin_backend, offset=1.5)
    assert after["scale"]["hits"] == 1 and after["reverse"]["hits"] == 1


@pytest.mark.parametrize("damage", ["truncate", "garbage"])
def test_a_damaged_entry_is_compiled_again(tmp_path, cutwin_backend, damage):
    run(tmp_path, cutwin_backend)
    for name in entries(tmp_path):
        path = tmp_path / "cache" / "kernels" / name
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3] if damage == "truncate" else b"\x00" * len(data))
    again = run(tmp_path, cutwin_backend)
    assert again["scale"]["out"] == expected(0.5)["scale"]
    assert (again["scale"]["hits"], again["scale"]["misses"]) == (0, 1)
    assert run(tmp_path, cutwin_backend)["scale"]["hits"] == 1


@pytest.mark.parametrize("jit", ["cache=False", ""])
def test_cache_false_keeps_nothing_and_unset_is_the_backends_default(tmp_path, cutwin_backend, jit):
    report = run(tmp_path, cutwin_backend, jit=jit)
    assert report["scale"]["out"] == expected(0.5)["scale"]
    kept = jit == "" and cutwin_backend == "sim"  # the simulator keeps kernels by default
    assert (report["scale"]["path"] is not None) == kept
    assert len(entries(tmp_path)) == (2 if kept else 0)


def test_the_simulators_modes_are_keys_of_their_own(tmp_path):
    """Kernels split at barriers or uncut, compiled for this CPU or the baseline x86-64:
    different code, so different entries; sanitized kernels are not kept."""
    run(tmp_path, "sim")
    want = expected(0.5)
    for env in ({"CUTWIN_SIM_THREADS": "fibers"}, {"CUTWIN_SIM_CPU": "x86-64"}):
        first, again = run(tmp_path, "sim", **env), run(tmp_path, "sim", **env)
        for name in ("scale", "reverse"):
            assert first[name]["out"] == want[name]
            assert (first[name]["hits"], again[name]["hits"]) == (0, 1), env
    assert len(entries(tmp_path)) == 6
    sanitized = run(tmp_path, "sim", CUTWIN_SANITIZE="race")
    assert sanitized["reverse"]["out"] == want["reverse"] and sanitized["reverse"]["hits"] == 0
    assert len(entries(tmp_path)) == 6


def test_python_m_cutwin_cache_shows_and_clears_the_entries(tmp_path):
    run(tmp_path, "sim")
    environ = child_env(tmp_path, "sim")
    show = subprocess.run([sys.executable, "-m", "cutwin", "cache"], env=environ, capture_output=True, text=True)
    assert show.returncode == 0, show.stderr
    assert show.stdout.strip().startswith(str(tmp_path / "cache" / "kernels") + ": 2 entries")
    clear = subprocess.run([sys.executable, "-m", "cutwin", "cache", "--clear"], env=environ, capture_output=True,
                           text=True)
    assert clear.returncode == 0, clear.stderr
    assert clear.stdout.startswith("removed 2 entries")
    assert entries(tmp_path) == []
