import time, numpy as np
from cutwin import cuda
from cutwin.cuda import reduction
cuda.use_backend("gpu")
@cuda.reduce
def add(a, b):
    return a + b
n = 1 << 24
x = np.random.default_rng(0).uniform(0, 1, n)
d = cuda.to_device(x)
add(d)
k = add._kernel(d.dtype)
def best(f, r=30):
    ts = []
    for _ in range(r):
        cuda.synchronize()
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return min(ts) * 1e6
p = cuda.device_array(1024)
out1 = cuda.device_array(1)
print("full call us", best(lambda: add(d)))
for blocks, threads in [(1024, 256), (2048, 256), (528, 512), (1056, 256), (4224, 256), (264, 1024)]:
    pp = cuda.device_array(blocks)
    print("pass1 blocks", blocks, threads, "us", best(lambda: (k[blocks, 256](d, n, pp, 0.0, False), cuda.synchronize())) if threads == 256 else "-")
print("pass2 us", best(lambda: (k[1, 256](p, 1024, out1, 0.0, True), cuda.synchronize())))
print("alloc us", best(lambda: cuda.device_array(1024)))
print("getitem us", best(lambda: p[0]))
print("copy_to_host 1 us", best(lambda: out1.copy_to_host()))
print("sync us", best(lambda: cuda.synchronize()))
ev0, ev1 = cuda.event(), cuda.event()
ev0.record(); k[1024, 256](d, n, p, 0.0, False); ev1.record(); ev1.synchronize()
print("pass1 event ms", cuda.event_elapsed_time(ev0, ev1))
