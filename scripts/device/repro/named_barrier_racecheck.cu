// compute-sanitizer racecheck and named barriers (docs/benchmarks/twitter.md, tenth session): a
// correct producer/consumer pair of named barriers (bar.arrive 64 / bar.sync 64) is reported as a
// race; the same kernel without them is clean. On the device: nvcc -arch=sm_90 -lineinfo -o nbr
// named_barrier_racecheck.cu && compute-sanitizer --tool racecheck ./nbr 0 (then ./nbr 1).
#include <cstdio>
#include <cstdlib>
__global__ void with_named(double* out, int use_named) {
  __shared__ double a[256];
  __shared__ double b[32];
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (use_named) {
    for (int it = 0; it < 4; ++it) {
      if (w == 1) { b[lane] = it + lane; asm volatile("bar.arrive 1, 64;" ::: "memory"); }
      if (w == 0) { asm volatile("bar.sync 1, 64;" ::: "memory"); out[blockIdx.x * 32 + lane] += b[(lane + 1) % 32]; }
      if (w == 0) { asm volatile("bar.arrive 2, 64;" ::: "memory"); }
      if (w == 1) { asm volatile("bar.sync 2, 64;" ::: "memory"); }
    }
  }
  __syncthreads();
  a[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] += a[(threadIdx.x + 1) % 256];
}
int main(int argc, char** argv) {
  const int named = argc > 1 ? atoi(argv[1]) : 0;
  double* out; cudaMalloc(&out, 4 * 256 * sizeof(double)); cudaMemset(out, 0, 4 * 256 * sizeof(double));
  with_named<<<4, 256>>>(out, named); printf("named %d: %s\n", named, cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
