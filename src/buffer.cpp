// The cold paths of mpk::buffer: allocation and growth.
#include <mpk/buffer.hpp>

#include <cstdlib>
#include <limits>

namespace mpk::inline v0 {

buffer::buffer(std::size_t initial_capacity, growth_policy policy) noexcept : policy_(policy) {
  reserve(initial_capacity);
}

buffer::buffer(const buffer& other) : policy_(other.policy_) {
  const std::size_t n = other.size();
  if (n == 0) return;
  if (!reserve(n)) throw std::bad_alloc();
  std::memcpy(begin_, other.begin_, n);
  cursor_ = begin_ + n;
}

buffer::buffer(buffer&& other) noexcept
    : begin_(other.begin_), cursor_(other.cursor_), limit_(other.limit_), policy_(other.policy_) {
  other.begin_ = other.cursor_ = other.limit_ = nullptr;
}

buffer& buffer::operator=(const buffer& other) {
  if (this == &other) return *this;
  const std::size_t n = other.size();
  cursor_ = begin_;
  if (!reserve(n)) throw std::bad_alloc();
  if (n != 0) std::memcpy(begin_, other.begin_, n);
  cursor_ = begin_ + n;
  policy_ = other.policy_;
  return *this;
}

buffer& buffer::operator=(buffer&& other) noexcept {
  if (this == &other) return *this;
  std::free(begin_);
  begin_ = other.begin_;
  cursor_ = other.cursor_;
  limit_ = other.limit_;
  policy_ = other.policy_;
  other.begin_ = other.cursor_ = other.limit_ = nullptr;
  return *this;
}

buffer::~buffer() {
  std::free(begin_);
}

bool buffer::reserve(std::size_t n) noexcept {
  if (n <= capacity()) return true;
  const std::size_t size = this->size();
  // realloc keeps the contents and may extend in place; it never zero-fills.
  void* p = std::realloc(begin_, n);
  if (p == nullptr) return false;
  begin_ = static_cast<std::byte*>(p);
  cursor_ = begin_ + size;
  limit_ = begin_ + n;
  return true;
}

void buffer::release() noexcept {
  std::free(begin_);
  begin_ = cursor_ = limit_ = nullptr;
}

std::byte* buffer::grow_for(std::size_t n) noexcept {
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  const std::size_t size = this->size();
  const std::size_t capacity = this->capacity();
  if (n > max - size) return nullptr;
  const std::size_t needed = size + n;
  std::size_t target = needed;
  switch (policy_.kind) {
    case growth::geometric: {
      std::size_t doubled = capacity > max / 2 ? max : capacity * 2;
      if (doubled < 64) doubled = 64;
      if (doubled > target) target = doubled;
      break;
    }
    case growth::fixed_increment: {
      std::size_t step = policy_.increment == 0 ? 1 : policy_.increment;
      std::size_t stepped = capacity > max - step ? max : capacity + step;
      if (stepped > target) target = stepped;
      break;
    }
    case growth::exact:
      break;
  }
  if (!reserve(target) && (target == needed || !reserve(needed))) return nullptr;
  return cursor_;
}

}  // namespace mpk::inline v0
