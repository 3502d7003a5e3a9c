"""cutwin.cuda.random against a NumPy reference of xoroshiro128+ and numba-cuda's known
answers, on every selected backend."""
import importlib.util
import math
import os

import numpy as np
import pytest

from cutwin import cuda
from cutwin.cuda.random import (create_xoroshiro128p_states, init_xoroshiro128p_states,
                                xoroshiro128p_dtype, xoroshiro128p_normal_float32, xoroshiro128p_uniform_float32,
                                xoroshiro128p_uniform_float64)

_spec = importlib.util.spec_from_file_location(
    "xoroshiro_ref", os.path.join(os.path.dirname(__file__), "..", "..", "conformance", "tools", "xoroshiro_ref.py"))
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)


@cuda.jit
def uniforms(states, out32, out64):
    i = cuda.grid(1)
    if i < out32.size:
        out32[i] = xoroshiro128p_uniform_float32(states, i)
        out64[i] = xoroshiro128p_uniform_float64(states, i)


@cuda.jit
def normals(states, out32, out64):
    i = cuda.grid(1)
    if i < out32.size:
        out32[i] = xoroshiro128p_normal_float32(states, i)
        out64[i] = cuda.random.xoroshiro128p_normal_float64(states, i)


def test_states_have_numbas_record_layout_and_known_answers(cutwin_backend):
    st = create_xoroshiro128p_states(3, seed=1)
    assert st.dtype == xoroshiro128p_dtype and st.shape == (3,) and st.strides == (16,)
    host = st.copy_to_host()
    assert host["s0"][1] == 0x73C19A5348FC9098 and host["s1"][1] == 0x6C96C932F21D71EE
    init_xoroshiro128p_states(st, 1, subsequence_start=3)
    assert st.copy_to_host()["s1"][0] == 0xB43C70624D182BBB


def test_uniforms_equal_the_reference_sequence(cutwin_backend):
    n = 200
    st = create_xoroshiro128p_states(n, seed=42, subsequence_start=2)
    out32, out64 = np.zeros(n, np.float32), np.zeros(n, np.float64)
    uniforms[2, 128](st, out32, out64)
    s0, s1 = ref.states(n, 42, 2)
    np.testing.assert_array_equal(out32, ref.uniform_float32(ref.next_u64(s0, s1)))
    np.testing.assert_array_equal(out64, ref.uniform_float64(ref.next_u64(s0, s1)))
    got = st.copy_to_host()  # the kernel advanced every state twice
    np.testing.assert_array_equal(got["s0"], s0)
    np.testing.assert_array_equal(got["s1"], s1)


def test_normals_follow_box_muller_on_float32_uniforms(cutwin_backend):
    n = 256
    st = create_xoroshiro128p_states(n, seed=7)
    out32, out64 = np.zeros(n, np.float32), np.zeros(n, np.float64)
    normals[2, 128](st, out32, out64)
    s0, s1 = ref.states(n, 7)

    def box_muller():
        u1 = ref.uniform_float32(ref.next_u64(s0, s1)).astype(np.float64)
        u2 = ref.uniform_float32(ref.next_u64(s0, s1)).astype(np.float64)
        return np.sqrt(-2 * np.log(u1)) * np.cos(2 * math.pi * u2)
    # float32: logf/cosf are within 2 ulp; float64 uses a float32 log, as numba does.
    np.testing.assert_allclose(out32, box_muller(), rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(out64, box_muller(), rtol=1e-6, atol=1e-6)


def test_device_functions_refuse_host_calls():
    with pytest.raises(TypeError, match="device function"):
        xoroshiro128p_uniform_float32(None, 0)


def test_large_state_arrays_equal_jumped_single_states(cutwin_backend):
    # Large arrays take the parallel path (a kernel on GPUs); state i must equal state 0
    # advanced by i jumps, which a one-state array with subsequence_start=i computes.
    n = 70000
    big = create_xoroshiro128p_states(n, seed=3).copy_to_host()
    for i in (0, 1, 64, 65535, n - 1):
        one = create_xoroshiro128p_states(1, seed=3, subsequence_start=i).copy_to_host()
        assert big[i] == one[0], i
