# kernel: k  signature: void(float32[:])
# expect: 5:1: error: unindent does not match any outer indentation level
# (found by the libFuzzer target under ASan: the lexer popped its base indentation and read before its stack)
    x = 1
from numba import cuda

@cuda.jit
def k(a):
    a[0] = 1
