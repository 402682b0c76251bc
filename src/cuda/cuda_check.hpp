// WF_CUDA_CHECK(call): throws cuda_error naming the call, file:line and the CUDA error name.
// Use it on every runtime call and as WF_CUDA_CHECK(cudaGetLastError()) straight after <<<>>>.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "wildfire/error.hpp"

namespace wildfire::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  std::string message = std::string("CUDA call failed: ") + call + ": " + cudaGetErrorName(status) + " (" +
                        cudaGetErrorString(status) + ") at " + file + ":" + std::to_string(line);
  // Launchers check sizes against cudaMemGetInfo first and throw resource_error with the bytes;
  // an allocation failing anyway still ends here, with the call named.
  throw cuda_error(message);
}

}  // namespace wildfire::cuda

#define WF_CUDA_CHECK(call)                                                                \
  do {                                                                                     \
    const cudaError_t wf_status_ = (call);                                                 \
    if (wf_status_ != cudaSuccess) ::wildfire::cuda::throw_cuda_error(wf_status_, #call, __FILE__, __LINE__); \
  } while (0)
