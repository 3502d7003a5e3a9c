from numba import cuda

SESSION_TIMEOUT = 1800


@cuda.jit
def grid_sync_sessionize(user_id, timestamp, results):
    """Session labels: a thread at a session boundary writes its own index, the grid syncs
    (threads that are no boundary have returned), then each boundary fills its session."""
    gid = cuda.grid(1)
    size = len(user_id)
    if gid >= size:
        return
    if gid == 0:
        boundary = True
    else:
        boundary = user_id[gid] != user_id[gid - 1] or timestamp[gid] - timestamp[gid - 1] > SESSION_TIMEOUT
    if boundary:
        results[gid] = gid
        cuda.cg.this_grid().sync()
        j = gid + 1
        while j < size and results[j] == -1:
            results[j] = gid
            j += 1
