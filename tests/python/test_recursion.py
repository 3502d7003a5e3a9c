"""Recursive device functions: self-recursion with a declared signature or an inferred one
(numba's rule: the returns that do not recurse give the type), mutual recursion, recursion
in a kernel whose threads meet at barriers (fibers on the simulator), and the typing error
for a recursion that never returns a value. Oracle: the same Python functions on the host."""
import numpy as np
import pytest

from cutwin import cuda


@cuda.jit("int64(int64)", device=True)
def fib_declared(n):
    if n < 2:
        return n
    return fib_declared(n - 1) + fib_declared(n - 2)


@cuda.jit(device=True)
def fib_inferred(n):
    if n < 2:
        return n
    return fib_inferred(n - 1) + fib_inferred(n - 2)


@cuda.jit(device=True)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@cuda.jit(device=True)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@cuda.jit(device=True)
def power_sum(x, k):
    # float result, int counter: the types of the non-recursive return decide
    if k == 0:
        return 1.0
    return 1.0 + x * power_sum(x, k - 1)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


@cuda.jit
def recursive_kernel(n, f1, f2, even, geo):
    i = cuda.grid(1)
    if i < n.size:
        f1[i] = fib_declared(n[i])
        f2[i] = fib_inferred(n[i])
        even[i] = is_even(n[i])
        geo[i] = power_sum(0.5, n[i])


def test_recursive_device_functions(cutwin_backend):
    n = np.arange(20, dtype=np.int64)
    f1, f2, geo = np.zeros(20, np.int64), np.zeros(20, np.int64), np.zeros(20)
    even = np.zeros(20, np.bool_)
    recursive_kernel[1, 32](n, f1, f2, even, geo)
    want = np.array([fib(k) for k in n])
    np.testing.assert_array_equal(f1, want)
    np.testing.assert_array_equal(f2, want)
    np.testing.assert_array_equal(even, n % 2 == 0)
    np.testing.assert_allclose(geo, [sum(0.5 ** j for j in range(k + 1)) for k in n], rtol=1e-15)


@cuda.jit
def recursion_between_barriers(out):
    s = cuda.shared.array(64, np.int64)
    t = cuda.threadIdx.x
    s[t] = fib_inferred(t % 16)
    cuda.syncthreads()
    out[t] = s[63 - t] + fib_declared(t % 12)


def test_recursion_in_a_kernel_with_barriers(cutwin_backend):
    out = np.zeros(64, np.int64)
    recursion_between_barriers[1, 64](out)
    np.testing.assert_array_equal(out, [fib((63 - t) % 16) + fib(t % 12) for t in range(64)])


def test_runaway_recursion_is_a_typing_error(tmp_path):
    path = tmp_path / "runaway.py"
    path.write_text("from cutwin import cuda\n\n@cuda.jit(device=True)\ndef forever(x):\n"
                    "    return forever(x)\n\n@cuda.jit('void()')\ndef k():\n    forever(1)\n")
    ns = {"__name__": "runaway"}
    with pytest.raises(cuda.TypingError, match="runaway recursion") as e:
        exec(compile(path.read_text(), str(path), "exec"), ns)
    assert "runaway.py:5" in str(e.value)
