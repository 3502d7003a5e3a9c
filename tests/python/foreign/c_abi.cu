// Device functions with the C ABI (declare_device(..., abi="c")): results returned.
extern "C" __device__ int scale_add(int x, int k) { return k * x + 1; }
extern "C" __device__ double half_of(double x) { return 0.5 * x; }
extern "C" __device__ int forty_two() { return 42; }
