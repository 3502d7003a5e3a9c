"""The simulator's sanitizer (docs/sanitizers.md): data races and reads of unwritten memory,
reported with both accesses named. The planted-bug corpus (conformance/sanitize/corpus.py)
must be caught exactly - kind, memory and the marked lines - and its correct kernels must
pass, whatever the checks and the schedule."""
import os
import subprocess
import sys

import numpy as np
import pytest

from cutwin import cuda
from numba import float32

CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "conformance", "sanitize")
sys.path.insert(0, CORPUS)
import corpus  # noqa: E402
from run import judge, run_case  # noqa: E402


@pytest.mark.parametrize("case", corpus.CASES, ids=lambda c: c.name)
def test_corpus_with_every_check(case):
    kind, lines, memory, text = run_case(case, "all")
    assert judge(case, kind, lines, memory) == "", text


@pytest.mark.parametrize("case", [c for c in corpus.CASES if c.bug != "uninit"], ids=lambda c: c.name)
def test_corpus_with_race_checks_only(case):
    kind, lines, memory, text = run_case(case, "race")
    assert judge(case, kind, lines, memory) == "", text


@pytest.mark.parametrize("case", [c for c in corpus.CASES if c.bug != "race"], ids=lambda c: c.name)
def test_corpus_with_init_checks_only(case):
    kind, lines, memory, text = run_case(case, "init")
    assert judge(case, kind, lines, memory) == "", text


def test_corpus_under_a_shuffled_schedule():
    # Races are judged by CUDA's ordering rules, not by the order the threads ran in: a
    # random schedule finds the same bugs and no others.
    env = dict(os.environ, CUTWIN_SIM_SEED="424242")
    r = subprocess.run([sys.executable, os.path.join(CORPUS, "run.py")], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 failed" in r.stdout


def test_a_report_names_both_accesses_and_the_schedule():
    case = next(c for c in corpus.CASES if c.name == "neighbour_read_after_write")
    with pytest.raises(cuda.KernelRaceError) as e:
        case.launch("race")
    text = str(e.value)
    assert "data race (" in text and "shared memory: element [" in text
    assert text.count(" by thread (") == 2 and "CUTWIN_SIM_SEED=0" in text
    assert e.value.kernel == "neighbour_read_after_write" and e.value.line in case.marked_lines()
    assert isinstance(e.value, cuda.KernelError)


def test_the_process_keeps_working_after_a_report():
    bad = next(c for c in corpus.CASES if c.name == "blocks_update_one_element")
    good = next(c for c in corpus.CASES if c.name == "correct_tree_reduction")
    for _ in range(3):
        with pytest.raises(cuda.KernelRaceError):
            bad.launch("all")
        a, out = good.launch("all")
        np.testing.assert_array_equal(out, a.reshape(2, 64).sum(1))


def test_sanitize_option_values(monkeypatch):
    def body(out):
        out[0] = cuda.threadIdx.x

    monkeypatch.delenv("CUTWIN_SANITIZE", raising=False)  # None: the environment decides
    for off in (False, "none", None):
        out = np.zeros(1, np.float32)
        cuda.jit(sanitize=off)(body)[1, 4](out)
    for on in (True, "all", "race", "race,init", ["race"]):
        with pytest.raises(cuda.KernelRaceError):
            cuda.jit(sanitize=on)(body)[1, 4](np.zeros(1, np.float32))
    with pytest.raises(ValueError, match="unknown check 'races'"):
        cuda.jit(sanitize="races")(body)
    with pytest.raises(TypeError):
        cuda.jit(sanitize=3)(body)


def test_sanitize_in_the_decorator_of_a_source_file(tmp_path):
    # The option compiles from the source too (C++ API, CLI): a string or a bool.
    src = tmp_path / "k.py"
    src.write_text("import numpy as np\nfrom numba import cuda\n\n@cuda.jit(sanitize='race')\ndef k(out):\n"
                   "    out[0] = cuda.threadIdx.x\n\nk[1, 4](np.zeros(1, np.float32))\n")
    r = subprocess.run([sys.executable, "-m", "cutwin", "run", str(src)], capture_output=True, text=True)
    assert "KernelRaceError" in r.stderr and "write after write" in r.stderr, r.stderr


def test_environment_switch_and_pytest_option(tmp_path):
    test = tmp_path / "test_racy.py"
    test.write_text("import numpy as np\nfrom cutwin import cuda\n\n@cuda.jit\ndef k(out):\n"
                    "    out[0] = cuda.threadIdx.x\n\ndef test_k():\n    k[1, 8](np.zeros(1, np.float32))\n")
    import cutwin

    clean = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(cutwin.__file__))] +
                                                        os.environ.get("PYTHONPATH", "").split(os.pathsep)))
    clean.pop("CUTWIN_SANITIZE", None)
    run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "cutwin.pytest_plugin", str(test)]
    assert subprocess.run(run, capture_output=True, text=True, env=clean, cwd=tmp_path).returncode == 0
    r = subprocess.run(run + ["--cutwin-sanitize=race"], capture_output=True, text=True, env=clean, cwd=tmp_path)
    assert r.returncode == 1 and "KernelRaceError" in r.stdout, r.stdout
    r = subprocess.run(run, capture_output=True, text=True, env=dict(clean, CUTWIN_SANITIZE="all"), cwd=tmp_path)
    assert r.returncode == 1 and "KernelRaceError" in r.stdout, r.stdout
    r = subprocess.run(run, capture_output=True, text=True, env=dict(clean, CUTWIN_SANITIZE="rac"), cwd=tmp_path)
    assert r.returncode == 1 and "CUTWIN_SANITIZE: unknown sanitizer check 'rac'" in r.stdout, r.stdout


@cuda.jit(sanitize="all")
def _sum_rows(a, out):
    # a device array written by a copy, then by a kernel, then read: nothing to report
    sm = cuda.shared.array((4, 32), float32)
    x, y = cuda.threadIdx.x, cuda.threadIdx.y
    sm[y, x] = a[y, x]
    cuda.syncthreads()
    if x == 0:
        s = float32(0)
        for k in range(32):
            s += sm[y, k]
        out[y] = s


def test_device_memory_written_by_copies_and_kernels_counts_as_written():
    host = np.arange(128, dtype=np.float32).reshape(4, 32)
    d = cuda.device_array((4, 32), np.float32)
    d.copy_to_device(host)
    out = cuda.device_array(4, np.float32)
    _sum_rows[1, (32, 4)](d, out)
    np.testing.assert_array_equal(out.copy_to_host(), host.sum(1))
    # part of an array written: the unwritten part is reported, the written part is not
    part = cuda.device_array((4, 32), np.float32)
    part[:2].copy_to_device(host[:2])
    with pytest.raises(cuda.KernelUninitializedError, match=r"a\[2, 0\]"):
        _sum_rows[1, (32, 4)](part, out)
    states = cuda.random.create_xoroshiro128p_states(64, seed=1)  # written in place on the host
    _read_states[1, 64](states, cuda.device_array(64, np.float32))


@cuda.jit(sanitize="all")
def _read_states(states, out):
    i = cuda.grid(1)
    out[i] = cuda.random.xoroshiro128p_uniform_float32(states, i)
