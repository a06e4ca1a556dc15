// The cold paths of mpk::buffer: allocation and growth.
#include <mpk/buffer.hpp>

#include <cstdlib>
#include <limits>

namespace mpk::inline v0 {

buffer::buffer(std::size_t initial_capacity, growth_policy policy) noexcept : policy_(policy) {
  reserve(initial_capacity);
}

buffer::buffer(const buffer& other) : policy_(other.policy_) {
  if (other.size_ == 0) return;
  if (!reserve(other.size_)) throw std::bad_alloc();
  std::memcpy(data_, other.data_, other.size_);
  size_ = other.size_;
}

buffer::buffer(buffer&& other) noexcept
    : data_(other.data_), size_(other.size_), capacity_(other.capacity_), policy_(other.policy_) {
  other.data_ = nullptr;
  other.size_ = other.capacity_ = 0;
}

buffer& buffer::operator=(const buffer& other) {
  if (this == &other) return *this;
  size_ = 0;
  if (!reserve(other.size_)) throw std::bad_alloc();
  if (other.size_ != 0) std::memcpy(data_, other.data_, other.size_);
  size_ = other.size_;
  policy_ = other.policy_;
  return *this;
}

buffer& buffer::operator=(buffer&& other) noexcept {
  if (this == &other) return *this;
  std::free(data_);
  data_ = other.data_;
  size_ = other.size_;
  capacity_ = other.capacity_;
  policy_ = other.policy_;
  other.data_ = nullptr;
  other.size_ = other.capacity_ = 0;
  return *this;
}

buffer::~buffer() {
  std::free(data_);
}

bool buffer::reserve(std::size_t n) noexcept {
  if (n <= capacity_) return true;
  // realloc keeps the contents and may extend in place; it never zero-fills.
  void* p = std::realloc(data_, n);
  if (p == nullptr) return false;
  data_ = static_cast<std::byte*>(p);
  capacity_ = n;
  return true;
}

void buffer::release() noexcept {
  std::free(data_);
  data_ = nullptr;
  size_ = capacity_ = 0;
}

std::byte* buffer::grow_for(std::size_t n) noexcept {
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  if (n > max - size_) return nullptr;
  const std::size_t needed = size_ + n;
  std::size_t target = needed;
  switch (policy_.kind) {
    case growth::geometric: {
      std::size_t doubled = capacity_ > max / 2 ? max : capacity_ * 2;
      if (doubled < 64) doubled = 64;
      if (doubled > target) target = doubled;
      break;
    }
    case growth::fixed_increment: {
      std::size_t step = policy_.increment == 0 ? 1 : policy_.increment;
      std::size_t stepped = capacity_ > max - step ? max : capacity_ + step;
      if (stepped > target) target = stepped;
      break;
    }
    case growth::exact:
      break;
  }
  if (!reserve(target) && (target == needed || !reserve(needed))) return nullptr;
  return data_ + size_;
}

}  // namespace mpk::inline v0
