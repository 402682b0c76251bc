// A contiguous array with the std::vector interface that either owns its elements (a std::vector)
// or views elements inside a private file mapping kept alive with it: the storage of csr_graph,
// so a binary graph loads without copying its arrays (ARCHITECTURE.md section 2, docs/formats.md).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace wildfire {

/// Owned mode: a std::vector<T>. Mapped mode: `size()` elements at an address inside a mapping
/// that a shared_ptr keeps alive; the mapping must be private (MAP_PRIVATE), so element writes
/// (operator[], data(), iterators) change this process's copy-on-write pages, never the file.
/// Operations that change the size or capacity first copy the elements into owned storage, so
/// pointers and iterators are invalidated exactly when a std::vector's could be. Copies are
/// always owned (two copies never share writable pages); moves keep the mode.
template <class T>
class mapped_vector {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  mapped_vector() noexcept = default;
  mapped_vector(std::vector<T> elements) noexcept : owned_(std::move(elements)) {}  // NOLINT: implicit, like a vector
  mapped_vector(std::initializer_list<T> elements) : owned_(elements) {}
  explicit mapped_vector(size_type count, const T& value = T()) : owned_(count, value) {}

  /// A view of `count` elements at `elements`, inside the private mapping `keep_alive` owns.
  static mapped_vector view(std::shared_ptr<void> keep_alive, T* elements, size_type count) noexcept {
    mapped_vector v;
    if (count > 0) {
      v.keep_alive_ = std::move(keep_alive);
      v.view_ = elements;
      v.view_size_ = count;
    }
    return v;
  }

  mapped_vector(const mapped_vector& other) : owned_(other.begin(), other.end()) {}
  mapped_vector(mapped_vector&& other) noexcept
      : owned_(std::exchange(other.owned_, std::vector<T>())),
        keep_alive_(std::move(other.keep_alive_)),
        view_(std::exchange(other.view_, nullptr)),
        view_size_(std::exchange(other.view_size_, 0)) {}
  mapped_vector& operator=(const mapped_vector& other) {
    if (this != &other) *this = std::vector<T>(other.begin(), other.end());
    return *this;
  }
  mapped_vector& operator=(mapped_vector&& other) noexcept {
    mapped_vector moved(std::move(other));
    swap(moved);
    return *this;
  }
  mapped_vector& operator=(std::vector<T> elements) noexcept {
    drop_view();
    owned_ = std::move(elements);
    return *this;
  }
  mapped_vector& operator=(std::initializer_list<T> elements) { return *this = std::vector<T>(elements); }
  ~mapped_vector() = default;

  /// True while the elements live in a file mapping.
  bool is_mapped() const noexcept { return view_ != nullptr; }

  /// The elements as an owned std::vector (copied out of the mapping first if need be), for code
  /// written against std::vector<T>&.
  operator std::vector<T>&() & {  // NOLINT: implicit on purpose
    own();
    return owned_;
  }
  /// A copy of the elements as a std::vector.
  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }  // NOLINT

  // Element access.
  T* data() noexcept { return view_ != nullptr ? view_ : owned_.data(); }
  const T* data() const noexcept { return view_ != nullptr ? view_ : owned_.data(); }
  size_type size() const noexcept { return view_ != nullptr ? view_size_ : owned_.size(); }
  bool empty() const noexcept { return size() == 0; }
  size_type capacity() const noexcept { return view_ != nullptr ? view_size_ : owned_.capacity(); }
  size_type max_size() const noexcept { return owned_.max_size(); }
  T& operator[](size_type i) noexcept { return data()[i]; }
  const T& operator[](size_type i) const noexcept { return data()[i]; }
  T& at(size_type i) { return data()[checked(i)]; }
  const T& at(size_type i) const { return data()[checked(i)]; }
  T& front() noexcept { return data()[0]; }
  const T& front() const noexcept { return data()[0]; }
  T& back() noexcept { return data()[size() - 1]; }
  const T& back() const noexcept { return data()[size() - 1]; }

  iterator begin() noexcept { return data(); }
  const_iterator begin() const noexcept { return data(); }
  const_iterator cbegin() const noexcept { return data(); }
  iterator end() noexcept { return data() + size(); }
  const_iterator end() const noexcept { return data() + size(); }
  const_iterator cend() const noexcept { return data() + size(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }

  // Modifiers: the elements are owned afterwards.
  void reserve(size_type count) { owned_after().reserve(count); }
  void shrink_to_fit() {
    if (view_ == nullptr) owned_.shrink_to_fit();
  }
  void resize(size_type count) { owned_after().resize(count); }
  void resize(size_type count, const T& value) { owned_after().resize(count, value); }
  void assign(size_type count, const T& value) {
    drop_view();
    owned_.assign(count, value);
  }
  template <class InputIt>
  void assign(InputIt first, InputIt last) {
    std::vector<T> elements(first, last);  // the range may lie in this array's own mapping
    *this = std::move(elements);
  }
  void assign(std::initializer_list<T> elements) { *this = std::vector<T>(elements); }
  void push_back(const T& value) {
    if (view_ != nullptr) {
      const T copy = value;  // `value` may be an element of the mapping
      own();
      owned_.push_back(copy);
    } else {
      owned_.push_back(value);
    }
  }
  void push_back(T&& value) { push_back(static_cast<const T&>(value)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    return owned_after().emplace_back(std::forward<Args>(args)...);
  }
  void pop_back() { owned_after().pop_back(); }
  iterator insert(const_iterator at, const T& value) {
    const T copy = value;
    const auto index = at - cbegin();
    return to_pointer(owned_after().insert(owned_.begin() + index, copy));
  }
  template <class InputIt>
  iterator insert(const_iterator at, InputIt first, InputIt last) {
    const auto index = at - cbegin();
    std::vector<T> elements(first, last);
    return to_pointer(owned_after().insert(owned_.begin() + index, elements.begin(), elements.end()));
  }
  iterator erase(const_iterator at) {
    const auto index = at - cbegin();
    return to_pointer(owned_after().erase(owned_.begin() + index));
  }
  iterator erase(const_iterator first, const_iterator last) {
    const auto from = first - cbegin(), to = last - cbegin();
    return to_pointer(owned_after().erase(owned_.begin() + from, owned_.begin() + to));
  }
  void clear() noexcept {
    drop_view();
    owned_.clear();
  }
  void swap(mapped_vector& other) noexcept {
    owned_.swap(other.owned_);
    keep_alive_.swap(other.keep_alive_);
    std::swap(view_, other.view_);
    std::swap(view_size_, other.view_size_);
  }
  friend void swap(mapped_vector& a, mapped_vector& b) noexcept { a.swap(b); }

  friend bool operator==(const mapped_vector& a, const mapped_vector& b) { return equal(a, b.data(), b.size()); }
  friend bool operator==(const mapped_vector& a, const std::vector<T>& b) { return equal(a, b.data(), b.size()); }

 private:
  static bool equal(const mapped_vector& a, const T* b, size_type count) {
    if (a.size() != count) return false;
    for (size_type i = 0; i < count; ++i) {
      if (!(a.data()[i] == b[i])) return false;
    }
    return true;
  }
  size_type checked(size_type i) const {
    if (i >= size()) throw std::out_of_range("mapped_vector::at: index out of range");
    return i;
  }
  iterator to_pointer(typename std::vector<T>::iterator it) noexcept { return owned_.data() + (it - owned_.begin()); }
  /// Copies mapped elements into owned storage and releases the mapping.
  void own() {
    if (view_ == nullptr) return;
    std::vector<T> elements(view_, view_ + view_size_);
    owned_.swap(elements);
    drop_view();
  }
  std::vector<T>& owned_after() {
    own();
    return owned_;
  }
  void drop_view() noexcept {
    view_ = nullptr;
    view_size_ = 0;
    keep_alive_.reset();
  }

  std::vector<T> owned_;               // the elements in owned mode; empty in mapped mode
  std::shared_ptr<void> keep_alive_;   // the mapping, in mapped mode
  T* view_ = nullptr;                  // non-null exactly in mapped mode
  size_type view_size_ = 0;
};

}  // namespace wildfire
