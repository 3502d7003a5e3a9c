// Uses a CUDA built-in the CPU does not have: the simulator reports the compiler's error.
extern "C" __device__ int lane_of(int *result, int v) {
  *result = threadIdx.x + v;
  return 0;
}
