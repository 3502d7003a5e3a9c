from numba import cuda, int32, uint32


@cuda.jit
def intrinsics_adversarial(i32, i64, u64, f32, f64, bits, fl32, fl64, roots32, roots64, votes, hits, wraps,
                           cas_hits, counters, ucounters):
    """Bit intrinsics on negative, extreme and 64-bit values; fma and cbrt with negative
    and huge operands; block votes; and the values atomics return under contention, made
    order-independent by counting them: every old value of an atomic add or of a CAS loop
    occurs once, inc's wrapping old values equally often."""
    i = cuda.grid(1)
    n = i32.size
    a = i32[i]
    b = i64[i]
    c = u64[i]
    bits[i, 0] = cuda.popc(a)
    bits[i, 1] = cuda.popc(b)
    bits[i, 2] = cuda.popc(c)
    bits[i, 3] = cuda.clz(a)
    bits[i, 4] = cuda.clz(b)
    bits[i, 5] = cuda.clz(c)
    bits[i, 6] = cuda.ffs(a)
    bits[i, 7] = cuda.ffs(b)
    bits[i, 8] = cuda.ffs(c)
    bits[i, 9] = cuda.brev(uint32(a))
    bits[i, 10] = cuda.brev(c)
    bits[i, 11] = b.bit_count()
    bits[i, 12] = cuda.selp(a < 0, b, -b)

    x32, y32, z32 = f32[i], f32[(i + 1) % n], f32[(i + 2) % n]
    fl32[i, 0] = cuda.fma(x32, y32, z32)
    fl32[i, 1] = cuda.fma(x32, -x32, x32 * x32)  # the rounding error of x*x, exactly
    roots32[i] = cuda.cbrt(x32)
    x64, y64, z64 = f64[i], f64[(i + 1) % n], f64[(i + 2) % n]
    fl64[i, 0] = cuda.fma(x64, y64, z64)
    fl64[i, 1] = cuda.fma(x64, -x64, x64 * x64)
    roots64[i] = cuda.cbrt(x64)

    # numba-cuda's block votes take an int32 predicate
    votes[i, 0] = cuda.syncthreads_count(int32(a % 3 == 0))
    votes[i, 1] = cuda.syncthreads_and(int32(a != 12345))
    votes[i, 2] = cuda.syncthreads_or(int32(b == 0))
    votes[i, 3] = cuda.syncthreads_and(int32(cuda.threadIdx.x < 255))

    cuda.atomic.add(hits, cuda.atomic.add(counters, 0, 1), 1)
    cuda.atomic.add(wraps, cuda.atomic.inc(ucounters, 0, 9), 1)
    cuda.atomic.add(wraps, 10 + cuda.atomic.dec(ucounters, 1, 4), 1)
    while True:  # an add made of compare-and-swap
        old = counters[1]
        if cuda.atomic.cas(counters, 1, old, old + 1) == old:
            cuda.atomic.add(cas_hits, old, 1)
            break
