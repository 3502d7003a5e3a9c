// Foreign device functions for the conformance case foreign_device_functions: portable
// C++ in numba's calling convention, linked by NVRTC on the GPU and compiled for the CPU
// on the simulator. fma() is one rounding on both (neither compiler contracts a*b + c).
#ifdef __CUTWIN_SIMULATOR__
#include <cmath>
using std::fma;
#endif

extern "C" __device__ int horner3(double *result, double x, double a, double b, double c, double d) {
  *result = fma(fma(fma(a, x, b), x, c), x, d);
  return 0;
}

extern "C" __device__ int clamp_index(int *result, int i, int n) {
  *result = i < 0 ? 0 : (i >= n ? n - 1 : i);
  return 0;
}

extern "C" __device__ int mean_f32(float *result, float x, float y) {
  *result = (x + y) * 0.5f; // nothing to contract: numba-cuda's NVRTC (-fmad=true) agrees
  return 0;
}
