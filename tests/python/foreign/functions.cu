// Foreign device functions in numba's calling convention: int f(T *result, args...).
// Portable C++: the GPU links them through NVRTC, the simulator compiles them for the CPU.
extern "C" __device__ int mul_f32_f32(float *result, float x, float y) {
  *result = x * y;
  return 0;
}

// Integer arithmetic with wrap-around and a branch.
extern "C" __device__ int collatz_steps(int *result, long long n) {
  int steps = 0;
  while (n != 1 && steps < 1000) {
    n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
    ++steps;
  }
  *result = steps;
  return 0;
}

// A pointer argument: sums `n` doubles from device memory.
extern "C" __device__ int sum_f64(double *result, const double *values, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += values[i];
  *result = s;
  return 0;
}

// No result: writes through the pointer.
extern "C" __device__ int store_twice(void *unused, int *out, int v) {
  (void)unused;
  out[0] = v;
  out[1] = 2 * v;
  return 0;
}
