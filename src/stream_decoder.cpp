// mpk::stream_decoder: its buffer, the resumable scan, container headers of the element-wise
// mode, and document output (mpk/stream/decoder.hpp).
#include "mpk/stream/decoder.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <new>

#include "mpk/format.hpp"
#include "mpk/stream/io.hpp"

namespace mpk::inline v0 {

namespace {

/// The `avail` handed to detail::value_extent once the header is known to be at hand: the
/// scan checks lengths and counts against the limits only, since the payload and the items
/// may still be on their way (the buffer's bound is max_buffer_size).
constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max() / 4;

read_options unit_options(const stream_options& o) noexcept {
  read_options unit = o.read;
  unit.allow_trailing = false;
  if (o.elements && unit.limits.max_depth != 0)
    --unit.limits.max_depth;  // the container is depth 1
  return unit;
}

}  // namespace

stream_decoder::stream_decoder(stream_options options) noexcept
    : options_(options),
      item_options_(unit_options(options)),
      rd_(std::span<const std::byte>(), item_options_) {}

stream_decoder::stream_decoder(stream_decoder&& other) noexcept
    : options_(other.options_),
      item_options_(other.item_options_),
      buf_(std::exchange(other.buf_, nullptr)),
      cap_(std::exchange(other.cap_, 0)),
      begin_(other.begin_),
      end_(other.end_),
      room_(other.room_),
      base_(other.base_),
      rd_(std::span<const std::byte>(), other.item_options_),
      scanning_(other.scanning_),
      scan_(other.scan_),
      owed_(other.owed_),
      depth_(other.depth_),
      stack_(std::move(other.stack_)),
      stack_cap_(std::exchange(other.stack_cap_, 0)),
      container_(other.container_),
      items_left_(other.items_left_),
      err_(other.err_),
      messages_(other.messages_),
      scanned_(other.scanned_) {
  other.reset();
}

stream_decoder& stream_decoder::operator=(stream_decoder&& other) noexcept {
  if (this != &other) {
    this->~stream_decoder();
    new (this) stream_decoder(std::move(other));
  }
  return *this;
}

stream_decoder::~stream_decoder() {
  std::free(buf_);
}

void stream_decoder::reset() noexcept {
  begin_ = end_ = room_ = base_ = 0;
  scanning_ = false;
  scan_ = owed_ = 0;
  depth_ = 0;
  container_ = mpk::type::invalid;
  items_left_ = 0;
  err_ = {};
  plain_ = false;
  messages_ = 0;
  scanned_ = 0;
}

void stream_decoder::shift(std::size_t n) noexcept {
  plain_ = false;  // rd_ reads the old place
  base_ += n;
  begin_ -= n;
  end_ -= n;
  if (scanning_) scan_ -= n;
}

bool stream_decoder::reserve_tail(std::size_t n) noexcept {
  const std::size_t held = end_ - begin_;
  const std::size_t max = options_.max_buffer_size;
  if (n > max || held > max - n) {
    fail({errc::limit_exceeded, 0});
    return false;
  }
  if (cap_ - end_ >= n) return true;
  if (held + n <= cap_ && held <= cap_ / 2) {
    // Moving the unread tail (at most half the buffer) frees at least as many bytes as it
    // costs to move: amortised O(1) per byte fed.
    if (held != 0) std::memmove(buf_, buf_ + begin_, held);
    shift(begin_);
    return true;
  }
  std::size_t want = std::max({cap_ * 2, held + n, std::size_t{4096}});
  want = std::min(want, std::max(max, held + n));
  auto* fresh = static_cast<std::byte*>(std::malloc(want));  // not zero-filled
  if (fresh == nullptr) {
    fail({errc::out_of_memory, 0});
    return false;
  }
  if (held != 0) std::memcpy(fresh, buf_ + begin_, held);
  std::free(buf_);
  buf_ = fresh;
  cap_ = want;
  shift(begin_);
  return true;
}

result<void> stream_decoder::feed_bytes(std::span<const std::byte> bytes) noexcept {
  if (err_) return error();
  if (bytes.empty()) return {};
  if (!reserve_tail(bytes.size())) return error();
  std::memcpy(buf_ + end_, bytes.data(), bytes.size());
  end_ += bytes.size();
  room_ = 0;
  plain_ = false;  // rd_ does not see the new bytes
  return {};
}

std::span<std::byte> stream_decoder::prepare(std::size_t n) noexcept {
  room_ = 0;
  if (err_) return {};
  const std::size_t held = end_ - begin_;
  const std::size_t allowed = held < options_.max_buffer_size ? options_.max_buffer_size - held : 0;
  if (allowed == 0 && n != 0) {
    fail({errc::limit_exceeded, 0});
    return {};
  }
  n = std::min(n, allowed);
  if (!reserve_tail(n)) return {};
  room_ = n;
  return {buf_ + end_, n};
}

result<std::size_t> stream_decoder::read_from(stream_source& source, std::size_t max) noexcept {
  const std::span<std::byte> room = prepare(max);
  if (err_) return error();
  const result<std::size_t> n = source.read(room);
  if (!n) {
    room_ = 0;
    if (!err_) err_ = {n.error().code, bytes_fed()};
    plain_ = false;
    return error();
  }
  commit(*n);
  return *n;
}

result<std::span<const std::byte>> stream_decoder::next_all() noexcept {
  if (options_.elements) return mpk::error{errc::invalid_argument, position()};
  if (err_) return error();
  if (!scanning_) {
    // One reader from message to message; it stops at the first that does not end (or is
    // malformed), whose start is the end of the run.
    reader r(std::span<const std::byte>(buf_ + begin_, end_ - begin_), item_options_);
    std::size_t end = 0;
    std::size_t count = 0;
    while (!r.at_end()) {
      r.skip();
      if (!r.ok()) break;
      end = r.position();
      ++count;
    }
    scanned_ += r.ok() ? end : end_ - begin_;
    if (count != 0) {
      const std::span<const std::byte> s(buf_ + begin_, end);
      plain_ = false;
      begin_ += end;
      messages_ += count;
      // The unfinished message after the run goes to the resumable scan now, so that the
      // next call does not walk it from its start again (scanned_bytes() stays within
      // twice the bytes fed). A malformed one is found again by the next call.
      if (!r.ok() && r.error().code == errc::truncated) (void)scan();
      return s;
    }
    if (r.ok()) return std::span<const std::byte>{};  // nothing held
    if (r.error().code != errc::truncated) return fail(r.error());
  }
  // The message at begin_ does not end in the bytes at hand: the resumable scan.
  return yield(scan());
}

result<bool> stream_decoder::next(document& doc, document_options options) {
  if (err_) return error();
  if (const std::size_t s = start_unit(); s != ready)
    return s == failed ? result<bool>(error()) : result<bool>(false);
  if (container_ == mpk::type::map) return mpk::error{errc::invalid_argument, position()};
  const std::size_t e = unit_end();
  if (e == 0) return err_ ? result<bool>(error()) : result<bool>(false);
  options.read = item_options_;
  const result<void> r =
      doc.parse_into(std::span<const std::byte>(buf_ + begin_, e - begin_), options);
  if (!r) return fail(r.error());
  consume(e - begin_);
  return true;
}

result<void> stream_decoder::finish() const noexcept {
  if (err_) return error();
  if (begin_ != end_ || items_left_ != 0) return mpk::error{errc::truncated, position()};
  return {};
}

std::size_t stream_decoder::start_container() noexcept {
  for (;;) {
    if (begin_ == end_) return waiting;
    const std::byte* const p = buf_ + begin_;
    const marker_info& m = marker_table[detail::u8(p)];
    if (m.family == mpk::type::invalid) {
      fail({errc::invalid_marker, 0});
      return failed;
    }
    if (!is_container(m.family)) {
      fail({errc::type_mismatch, 0});
      return failed;
    }
    if (end_ - begin_ < m.header_size) return waiting;
    const detail::extent x = detail::value_extent<true>(p, unbounded, options_.read.limits);
    if (x.ec != errc::ok) {
      fail({x.ec, 0});
      return failed;
    }
    if (options_.read.limits.max_depth == 0) {
      fail({errc::depth_exceeded, 0});
      return failed;
    }
    begin_ += x.size;
    if (x.owed != 0) {
      container_ = m.family;
      items_left_ = m.family == mpk::type::map ? x.owed / 2 : x.owed;
      return begin_ < end_ ? ready : waiting;
    }
  }
}

bool stream_decoder::push_owed(std::uint32_t depth, std::size_t owed) noexcept {
  if (depth == stack_cap_) {
    const std::size_t cap = stack_cap_ == 0 ? 16 : stack_cap_ * 2;
    auto* bigger = new (std::nothrow) std::size_t[cap];
    if (bigger == nullptr) return false;
    if (depth != 0) std::memcpy(bigger, stack_.get(), depth * sizeof(std::size_t));
    stack_.reset(bigger);
    stack_cap_ = cap;
  }
  stack_[depth] = owed;
  return true;
}

std::size_t stream_decoder::scan() noexcept {
  if (!scanning_) {
    scanning_ = true;
    plain_ = false;
    scan_ = begin_;
    owed_ = container_ == mpk::type::map ? 2 : 1;
    depth_ = 0;
  }
  const limits& lim = item_options_.limits;
  const std::size_t from = scan_;
  std::size_t pos = from;
  std::size_t owed = owed_;
  std::uint32_t depth = depth_;
  std::size_t complete = 0;
  for (;;) {
    while (owed == 0 && depth != 0)
      owed = stack_[--depth];
    if (owed == 0) {
      if (pos <= end_) complete = pos;  // else the last payload is still on its way
      break;
    }
    if (pos >= end_) break;
    const std::byte* const p = buf_ + pos;
    if (end_ - pos < marker_table[detail::u8(p)].header_size) break;
    const detail::extent x = detail::value_extent<true>(p, unbounded, lim);
    if (x.ec != errc::ok) {
      fail({x.ec, pos - begin_});
      break;
    }
    --owed;
    if (x.container) {
      if (depth >= lim.max_depth) {
        fail({errc::depth_exceeded, pos - begin_});
        break;
      }
      if (x.owed != 0) {
        if (!push_owed(depth, owed)) {
          fail({errc::out_of_memory, pos - begin_});
          break;
        }
        owed = x.owed;
        ++depth;
      }
    }
    pos += x.size;
  }
  scanned_ += std::min(pos, end_) - std::min(from, end_);  // bytes at hand walked over
  if (complete != 0 || err_) {
    scanning_ = false;
    return complete;
  }
  scan_ = pos;
  owed_ = owed;
  depth_ = depth;
  return 0;
}

}  // namespace mpk::inline v0
