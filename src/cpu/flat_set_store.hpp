// The CPU collection's flat RR storage (offsets + members, as rr_sets) in buffers that grow
// without value-initialising: each generate call appends a slice that the workers then fill in
// parallel, so zeroing it first would be a serial pass over every member. Capacity doubles and
// survives clear(), so IMM's final phase reuses the estimation phase's memory instead of
// faulting in fresh pages.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

namespace wildfire::cpu {

template <class T>
class grow_buffer {
 public:
  std::uint64_t size() const noexcept { return size_; }
  std::uint64_t capacity() const noexcept { return capacity_; }
  T* data() noexcept { return data_.get(); }
  const T* data() const noexcept { return data_.get(); }

  /// Sets the size to `size`; new elements are uninitialised, old ones are kept.
  void resize_uninitialised(std::uint64_t size) {
    if (size > capacity_) {
      const std::uint64_t capacity = std::max(size, 2 * capacity_);
      auto fresh = std::make_unique_for_overwrite<T[]>(capacity);
      if (size_ > 0) std::memcpy(fresh.get(), data_.get(), size_ * sizeof(T));
      data_ = std::move(fresh);
      capacity_ = capacity;
    }
    size_ = size;
  }

 private:
  std::unique_ptr<T[]> data_;
  std::uint64_t size_ = 0;
  std::uint64_t capacity_ = 0;
};

class flat_set_store {
 public:
  flat_set_store() { clear(); }

  std::uint64_t size() const noexcept { return offsets_.size() - 1; }
  std::uint64_t num_members() const noexcept { return members_.size(); }
  std::span<const std::uint64_t> offsets() const noexcept { return {offsets_.data(), offsets_.size()}; }
  std::span<const std::uint32_t> members() const noexcept { return {members_.data(), members_.size()}; }
  std::uint64_t* offsets_data() noexcept { return offsets_.data(); }
  std::uint32_t* members_data() noexcept { return members_.data(); }

  /// Grows to `num_sets` sets of `num_members` members in all; the new offsets (after the
  /// first num_sets_before + 1) and members are uninitialised, for the caller to fill.
  void extend(std::uint64_t num_sets, std::uint64_t num_members) {
    offsets_.resize_uninitialised(num_sets + 1);
    members_.resize_uninitialised(num_members);
  }
  /// Drops every set and keeps the memory.
  void clear() {
    offsets_.resize_uninitialised(1);
    offsets_.data()[0] = 0;
    members_.resize_uninitialised(0);
  }
  std::uint64_t memory_bytes() const noexcept {
    return offsets_.capacity() * sizeof(std::uint64_t) + members_.capacity() * sizeof(std::uint32_t);
  }

 private:
  grow_buffer<std::uint64_t> offsets_;
  grow_buffer<std::uint32_t> members_;
};

}  // namespace wildfire::cpu
