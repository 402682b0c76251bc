// Device memory of the CUDA backend: a budget that every allocation is checked against up front
// (ARCHITECTURE.md section 2, "memory is budgeted"), and an owning buffer charged to it.
// Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "cuda/cuda_check.hpp"
#include "wildfire/error.hpp"

namespace wildfire::cuda {

/// Bytes of device memory a run may hold. Allocations beyond the limit throw resource_error naming
/// the bytes wanted and available before anything is allocated; peak use is recorded for reports.
class memory_budget {
 public:
  /// `limit_bytes` == 0: the memory free on the current device now, less a reserve for the
  /// runtime and CUB scratch (the smaller of 5% and 1 GiB).
  explicit memory_budget(std::uint64_t limit_bytes) {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    WF_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    device_free_bytes_ = free_bytes;
    if (limit_bytes == 0) {
      const std::uint64_t reserve = std::min<std::uint64_t>(free_bytes / 20, 1ULL << 30);
      limit_bytes = free_bytes - reserve;
    }
    limit_bytes_ = limit_bytes;
  }

  std::uint64_t limit_bytes() const noexcept { return limit_bytes_; }
  std::uint64_t in_use_bytes() const noexcept { return in_use_bytes_; }
  std::uint64_t peak_bytes() const noexcept { return peak_bytes_; }
  std::uint64_t available_bytes() const noexcept { return limit_bytes_ - in_use_bytes_; }
  bool fits(std::uint64_t bytes) const noexcept { return bytes <= available_bytes(); }

  /// Charges `bytes`; throws resource_error(what, bytes, available) if they do not fit.
  void charge(std::uint64_t bytes, const std::string& what) {
    if (!fits(bytes)) throw resource_error("GPU memory for " + what, bytes, available_bytes());
    in_use_bytes_ += bytes;
    if (in_use_bytes_ > peak_bytes_) peak_bytes_ = in_use_bytes_;
  }
  void refund(std::uint64_t bytes) noexcept { in_use_bytes_ -= bytes < in_use_bytes_ ? bytes : in_use_bytes_; }

 private:
  std::uint64_t limit_bytes_ = 0;
  std::uint64_t device_free_bytes_ = 0;
  std::uint64_t in_use_bytes_ = 0;
  std::uint64_t peak_bytes_ = 0;
};

/// An owning array of `T` in device memory, charged to a memory_budget (which must outlive it).
/// Contents are uninitialised. Move-only.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(memory_budget& budget, std::uint64_t count, const std::string& what) : budget_(&budget) {
    if (count == 0) return;
    const std::uint64_t bytes = count * sizeof(T);
    budget.charge(bytes, what);
    const cudaError_t status = cudaMalloc(reinterpret_cast<void**>(&data_), bytes);
    if (status != cudaSuccess) {
      budget.refund(bytes);
      data_ = nullptr;
      (void)cudaGetLastError();  // an allocation failure is not sticky; clear it before reporting
      if (status == cudaErrorMemoryAllocation) {
        std::size_t free_bytes = 0;
        std::size_t total_bytes = 0;
        (void)cudaMemGetInfo(&free_bytes, &total_bytes);
        throw resource_error("GPU memory for " + what, bytes, free_bytes);
      }
      throw_cuda_error(status, "cudaMalloc", __FILE__, __LINE__);
    }
    count_ = count;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept { swap(other); }
  device_buffer& operator=(device_buffer&& other) noexcept {
    device_buffer(std::move(other)).swap(*this);
    return *this;
  }
  ~device_buffer() { reset(); }

  /// Frees the memory (not stream-ordered: the caller has synchronised any kernel using it).
  void reset() noexcept {
    if (data_ != nullptr) {
      (void)cudaFree(data_);
      budget_->refund(count_ * sizeof(T));
    }
    data_ = nullptr;
    count_ = 0;
  }
  void swap(device_buffer& other) noexcept {
    std::swap(budget_, other.budget_);
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }

  T* data() const noexcept { return data_; }
  std::uint64_t size() const noexcept { return count_; }
  std::uint64_t bytes() const noexcept { return count_ * sizeof(T); }
  bool empty() const noexcept { return count_ == 0; }

 private:
  memory_budget* budget_ = nullptr;
  T* data_ = nullptr;
  std::uint64_t count_ = 0;
};

/// Makes sure `buffer` holds at least `count` elements, keeping its first `keep` elements
/// (copied on `stream`, which is synchronised before the old block is freed). Grows by at least
/// half so that repeated appends stay amortised O(1), but never beyond what the budget allows.
template <class T>
void grow_buffer(device_buffer<T>& buffer, memory_budget& budget, std::uint64_t count, std::uint64_t keep,
                 cudaStream_t stream, const std::string& what) {
  if (buffer.size() >= count) return;
  std::uint64_t target = std::max<std::uint64_t>(count, buffer.size() + buffer.size() / 2);
  const std::uint64_t affordable = budget.available_bytes() / sizeof(T);
  if (target > count && target > affordable) target = std::max<std::uint64_t>(count, affordable);
  device_buffer<T> bigger(budget, target, what);
  if (keep > 0) {
    WF_CUDA_CHECK(cudaMemcpyAsync(bigger.data(), buffer.data(), keep * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    WF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  buffer = std::move(bigger);
}

}  // namespace wildfire::cuda
