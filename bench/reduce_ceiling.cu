// Reference points for cuda.reduce on a GPU (bench/reduce.py): what the hardware and CUB
// reach for a 16 M float64 sum, timed with CUDA events, beside kernels shaped like the one
// cutwin generates (a strided fold with 8 loads in flight, then a shared-memory tree), and
// the host round trip a call that returns its result cannot avoid. Built by
// ci/gpu/bundle.sh with nvcc; run by ci/gpu/run_on_gpu.sh.
#include <cub/device/device_reduce.cuh>
#include <cstdio>
#include <vector>
#include <chrono>

__global__ void scalar8(const double* __restrict__ a, long n, double* out) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x, s = (long)gridDim.x * blockDim.x;
  double acc = 0;
  long j = i;
  for (; j + 7 * s < n; j += 8 * s) {
    double v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = a[j + k * s];
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += v[k];
  }
  for (; j < n; j += s) acc += a[j];
  __shared__ double sm[256];
  sm[threadIdx.x] = acc; __syncthreads();
  for (int h = 128; h > 0; h >>= 1) { if (threadIdx.x < h) sm[threadIdx.x] += sm[threadIdx.x + h]; __syncthreads(); }
  if (threadIdx.x == 0) out[blockIdx.x] = sm[0];
}


__global__ void scalar8_plain(const double* a, long n, double* out) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x, s = (long)gridDim.x * blockDim.x;
  double acc = 0;
  long j = i;
  for (; j + 7 * s < n; j += 8 * s) {
    double v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) { long q = j + k * s; q += (q >> 63) & n; v[k] = a[q]; }
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += v[k];
  }
  for (; j < n; j += s) acc += a[j];
  __shared__ double sm[256];
  sm[threadIdx.x] = acc; __syncthreads();
  for (int h = 128; h > 0; h >>= 1) { if (threadIdx.x < h) sm[threadIdx.x] += sm[threadIdx.x + h]; __syncthreads(); }
  if (threadIdx.x == 0) out[blockIdx.x] = sm[0];
}

template <int U>
__global__ void vec2(const double2* __restrict__ a, long n2, double* out) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x, s = (long)gridDim.x * blockDim.x;
  double acc = 0;
  long j = i;
  for (; j + (U - 1) * s < n2; j += U * s) {
    double2 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = a[j + k * s];
#pragma unroll
    for (int k = 0; k < U; ++k) acc += v[k].x + v[k].y;
  }
  for (; j < n2; j += s) { acc += a[j].x + a[j].y; }
  __shared__ double sm[256];
  sm[threadIdx.x] = acc; __syncthreads();
  for (int h = 128; h > 0; h >>= 1) { if (threadIdx.x < h) sm[threadIdx.x] += sm[threadIdx.x + h]; __syncthreads(); }
  if (threadIdx.x == 0) out[blockIdx.x] = sm[0];
}

__global__ void empty() {}

template <class F> float timeit(F f, int reps = 200) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 5; ++i) f();
  cudaEventRecord(a);
  for (int i = 0; i < reps; ++i) f();
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b);
  return ms * 1000 / reps;
}

int main() {
  const long n = 1L << 24;
  std::vector<double> h(n);
  for (long i = 0; i < n; ++i) h[i] = (i % 1000) * 0.001;
  double *a, *partials, *res, *copy; cudaMalloc(&a, n * 8); cudaMalloc(&partials, 8192 * 8); cudaMalloc(&res, 8);
  cudaMalloc(&copy, n * 8);
  cudaMemcpy(a, h.data(), n * 8, cudaMemcpyHostToDevice);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  printf("| 16 M float64 sum, C++ on %d SMs | us per call | TB/s read |\n|---|---|---|\n", sms);
  size_t tmp = 0; void* tmpp = nullptr;
  cub::DeviceReduce::Sum(tmpp, tmp, a, res, (int)n); cudaMalloc(&tmpp, tmp);
  float t = timeit([&] { cub::DeviceReduce::Sum(tmpp, tmp, a, res, (int)n); });
  printf("| cub::DeviceReduce::Sum | %.1f | %.2f |\n", t, n * 8 / t / 1e6);
  t = timeit([&] { cudaMemcpyAsync(copy, a, n * 8, cudaMemcpyDeviceToDevice); });
  printf("| cudaMemcpy D2D (read+write) | %.1f | %.2f moved |\n", t, 2 * n * 8 / t / 1e6);
  for (int blocks : {528, 1024, 2048, 4096}) {
    t = timeit([&] { scalar8<<<blocks, 256>>>(a, n, partials); });
    printf("| scalar, 8 in flight, %4d blocks | %.1f | %.2f |\n", blocks, t, n * 8 / t / 1e6);
    t = timeit([&] { vec2<4><<<blocks, 256>>>((const double2*)a, n / 2, partials); });
    printf("| double2, 4 in flight, %4d blocks | %.1f | %.2f |\n", blocks, t, n * 8 / t / 1e6);
    t = timeit([&] { vec2<8><<<blocks, 256>>>((const double2*)a, n / 2, partials); });
    printf("| double2, 8 in flight, %4d blocks | %.1f | %.2f |\n", blocks, t, n * 8 / t / 1e6);
  }
  for (int blocks : {660, 1024}) {
    t = timeit([&] { scalar8_plain<<<blocks, 256>>>(a, n, partials); });
    printf("| scalar, no restrict, wrap, %4d | %.1f | %.2f |\n", blocks, t, n * 8 / t / 1e6);
  }
  t = timeit([&] { empty<<<1, 1>>>(); });
  printf("| empty launch (throughput) | %.1f | |\n", t);
  // Host round trip: launch + synchronise, as a Python call would see it.
  for (int k = 0; k < 5; ++k) { empty<<<1, 1>>>(); cudaDeviceSynchronize(); }
  auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < 200; ++k) { empty<<<1, 1>>>(); cudaDeviceSynchronize(); }
  auto t1 = std::chrono::steady_clock::now();
  printf("| empty launch + sync (round trip) | %.1f | |\n", std::chrono::duration<double, std::micro>(t1 - t0).count() / 200);
  t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < 200; ++k) { cub::DeviceReduce::Sum(tmpp, tmp, a, res, (int)n); double r; cudaMemcpy(&r, res, 8, cudaMemcpyDeviceToHost); }
  t1 = std::chrono::steady_clock::now();
  printf("| cub sum + result to host | %.1f | |\n", std::chrono::duration<double, std::micro>(t1 - t0).count() / 200);
  return 0;
}
