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
///
/// The memory itself is stream-ordered (cudaMallocAsync / cudaFreeAsync on the owner's stream)
/// from the device's default pool, which keeps what is freed for later allocations, this run's and
/// the next's in the same process: cudaMalloc and cudaFree cost 0.1 to 3 ms each on an H100
/// (cudaFree waits for the device), and IMM's growing buffers and temporaries left the GPU idle
/// 14 of 162 ms on LJ-like for them. Code that allocates outside the budgets sizes itself by
/// device_free_bytes().
class memory_budget {
 public:
  /// `limit_bytes` == 0: the memory free on the current device now (the pool's idle memory
  /// included), less a reserve for the runtime and CUB scratch (the smaller of 5% and 1 GiB).
  /// Buffers charged to this budget are allocated and freed in the order of `stream`, which every
  /// user of them runs on (or waits for).
  memory_budget(std::uint64_t limit_bytes, cudaStream_t stream) : stream_(stream) {
    int device = 0;
    WF_CUDA_CHECK(cudaGetDevice(&device));
    WF_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool_, device));
    std::uint64_t keep_all = ~std::uint64_t{0};
    WF_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep_all));
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    WF_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    std::uint64_t reserved = 0;
    std::uint64_t used = 0;
    WF_CUDA_CHECK(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &reserved));
    WF_CUDA_CHECK(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrUsedMemCurrent, &used));
    const std::uint64_t available = free_bytes + (reserved > used ? reserved - used : 0);
    if (limit_bytes == 0) {
      const std::uint64_t reserve = std::min<std::uint64_t>(available / 20, 1ULL << 30);
      limit_bytes = available - reserve;
    }
    limit_bytes_ = limit_bytes;
  }
  ~memory_budget() {
    (void)cudaStreamSynchronize(stream_);  // the owner's buffers, freed in stream order, are idle
  }
  memory_budget(const memory_budget&) = delete;
  memory_budget& operator=(const memory_budget&) = delete;

  std::uint64_t limit_bytes() const noexcept { return limit_bytes_; }
  std::uint64_t in_use_bytes() const noexcept { return in_use_bytes_; }
  std::uint64_t peak_bytes() const noexcept { return peak_bytes_; }
  std::uint64_t available_bytes() const noexcept { return limit_bytes_ - in_use_bytes_; }
  bool fits(std::uint64_t bytes) const noexcept { return bytes <= available_bytes(); }
  cudaStream_t stream() const noexcept { return stream_; }

  /// Charges `bytes`; throws resource_error(what, bytes, available) if they do not fit.
  void charge(std::uint64_t bytes, const std::string& what) {
    if (!fits(bytes)) throw resource_error("GPU memory for " + what, bytes, available_bytes());
    in_use_bytes_ += bytes;
    if (in_use_bytes_ > peak_bytes_) peak_bytes_ = in_use_bytes_;
  }
  void refund(std::uint64_t bytes) noexcept { in_use_bytes_ -= bytes < in_use_bytes_ ? bytes : in_use_bytes_; }

  /// `bytes` of device memory in stream order, charged; throws resource_error when neither the
  /// budget nor the device has them (after handing the pool's idle memory back and trying again:
  /// freed blocks of other sizes may be what holds the device's memory).
  void* allocate(std::uint64_t bytes, const std::string& what) {
    charge(bytes, what);
    void* data = nullptr;
    cudaError_t status = cudaMallocFromPoolAsync(&data, bytes, pool_, stream_);
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // an allocation failure is not sticky; clear it before retrying
      WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
      WF_CUDA_CHECK(cudaMemPoolTrimTo(pool_, 0));
      status = cudaMallocFromPoolAsync(&data, bytes, pool_, stream_);
    }
    if (status != cudaSuccess) {
      refund(bytes);
      (void)cudaGetLastError();
      if (status == cudaErrorMemoryAllocation) {
        std::size_t free_bytes = 0;
        std::size_t total_bytes = 0;
        (void)cudaMemGetInfo(&free_bytes, &total_bytes);
        throw resource_error("GPU memory for " + what, bytes, free_bytes);
      }
      throw_cuda_error(status, "cudaMallocFromPoolAsync", __FILE__, __LINE__);
    }
    return data;
  }
  /// Frees `data` (from allocate) after the work queued on the stream so far, and refunds `bytes`.
  void deallocate(void* data, std::uint64_t bytes) noexcept {
    (void)cudaFreeAsync(data, stream_);
    refund(bytes);
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaMemPool_t pool_ = nullptr;
  std::uint64_t limit_bytes_ = 0;
  std::uint64_t in_use_bytes_ = 0;
  std::uint64_t peak_bytes_ = 0;
};

/// Free memory of the current device for code that allocates outside the budgets (cudaMalloc):
/// what the budgets' pool keeps idle is handed back to the device first, so it counts as free.
inline std::uint64_t device_free_bytes() {
  int device = 0;
  cudaMemPool_t pool = nullptr;
  WF_CUDA_CHECK(cudaGetDevice(&device));
  WF_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  WF_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  WF_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

/// An owning array of `T` in device memory, charged to a memory_budget (which must outlive it).
/// Contents are uninitialised. Move-only.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(memory_budget& budget, std::uint64_t count, const std::string& what) : budget_(&budget) {
    if (count == 0) return;
    data_ = static_cast<T*>(budget.allocate(count * sizeof(T), what));
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

  /// Frees the memory after the work queued on the budget's stream so far.
  void reset() noexcept {
    if (data_ != nullptr) budget_->deallocate(data_, count_ * sizeof(T));
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
/// (copied on `stream`, the budget's, before the old block is freed in its order). Grows by at least
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
    if (stream != budget.stream()) WF_CUDA_CHECK(cudaStreamSynchronize(budget.stream()));  // `bigger` exists
    WF_CUDA_CHECK(cudaMemcpyAsync(bigger.data(), buffer.data(), keep * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    if (stream != budget.stream()) WF_CUDA_CHECK(cudaStreamSynchronize(stream));  // before the old block goes
  }
  buffer = std::move(bigger);
}

}  // namespace wildfire::cuda
