from numba import cuda


@cuda.jit
def while_break(start, steps, peak):
    """Collatz: steps until 1 (capped at 500), and the largest value seen."""
    i = cuda.grid(1)
    if i >= start.shape[0]:
        return
    n = start[i]
    count = 0
    top = n
    while True:
        if n == 1:
            break
        if count >= 500:
            count = -1
            break
        if n % 2 == 0:
            n //= 2
            count += 1
            continue
        n = 3 * n + 1
        top = max(top, n)
        count += 1
    steps[i] = count
    peak[i] = top
