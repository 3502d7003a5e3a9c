// A boolean result (one byte, as numba passes booleans).
extern "C" __device__ int is_odd(bool *result, int v) {
  *result = (v & 1) != 0;
  return 0;
}
