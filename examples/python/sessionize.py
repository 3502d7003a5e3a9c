"""Sessions in a click stream: a new session starts when the user changes or more than
SESSION_TIMEOUT seconds pass between two events. Threads at a session start write their
index, the whole grid synchronises (the other threads have already returned), then each
start fills its session.

    python examples/python/sessionize.py [events]
"""
import sys

import numpy as np

from cutwin import cuda

SESSION_TIMEOUT = 30 * 60
THREADS = 64


@cuda.jit
def sessionize(user_id, timestamp, results):
    gid = cuda.grid(1)
    size = len(user_id)
    if gid >= size:
        return
    starts = gid == 0 or user_id[gid] != user_id[gid - 1] or \
        timestamp[gid] - timestamp[gid - 1] > SESSION_TIMEOUT
    if starts:
        results[gid] = gid
        cuda.cg.this_grid().sync()
        j = gid + 1
        while j < size and results[j] == -1:
            results[j] = gid
            j += 1


def make_events(n, seed=4):
    r = np.random.default_rng(seed)
    users = np.repeat(np.arange(n // 16), 16)[:n]  # 16 events per user
    users = np.concatenate([users, np.full(n - users.size, users[-1] if users.size else 0)])
    gaps = r.choice([5, 90, 900, 7200], n, p=[0.5, 0.3, 0.15, 0.05])
    return users.astype(np.int64), np.cumsum(gaps).astype(np.int64)


def reference(users, stamps):
    start = np.ones(users.size, bool)
    start[1:] = (users[1:] != users[:-1]) | (np.diff(stamps) > SESSION_TIMEOUT)
    idx = np.flatnonzero(start)
    return idx[np.searchsorted(idx, np.arange(users.size), side="right") - 1]


def main(n=4096):
    users, stamps = make_events(n)
    results = cuda.to_device(np.full(n, -1, np.int64))
    sessionize[(n + THREADS - 1) // THREADS, THREADS](cuda.to_device(users), cuda.to_device(stamps), results)
    np.testing.assert_array_equal(results.copy_to_host(), reference(users, stamps))
    print("sessionize: %d events OK" % n)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4096)
