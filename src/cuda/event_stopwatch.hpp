// Device time of the work queued on a stream between two points, by a pair of cudaEvents (the
// events are destroyed with the stopwatch, also when a step between throws).
#pragma once

#include <cuda_runtime.h>

#include "cuda/cuda_check.hpp"

namespace wildfire::cuda {

class event_stopwatch {
 public:
  event_stopwatch() {
    WF_CUDA_CHECK(cudaEventCreate(&start_));
    WF_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~event_stopwatch() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  event_stopwatch(const event_stopwatch&) = delete;
  event_stopwatch& operator=(const event_stopwatch&) = delete;

  /// Marks the start on `stream`.
  void start(cudaStream_t stream = nullptr) { WF_CUDA_CHECK(cudaEventRecord(start_, stream)); }
  /// Marks the stop on `stream` and returns the seconds since the start. Blocks until the stop.
  double stop_seconds(cudaStream_t stream = nullptr) {
    WF_CUDA_CHECK(cudaEventRecord(stop_, stream));
    WF_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    WF_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms / 1000.0;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace wildfire::cuda
