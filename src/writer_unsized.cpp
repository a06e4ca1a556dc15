// The cold part of the writer's containers of unknown size (mpk/detail/writer_unsized.hpp):
// counting the values of a body by walking their headers, and writing the final header.
#include <mpk/detail/header.hpp>
#include <mpk/detail/reader_extent.hpp>
#include <mpk/detail/writer_unsized.hpp>

#include <cstring>

namespace mpk::inline v0::detail {

item_count count_items(const std::byte* p, std::size_t n) noexcept {
  // The reader's extent of each value (one definition of the wire format's sizes); lengths
  // and counts are bounded by the bytes present, not by limits: these are our own bytes.
  const limits lim = limits::trusted();
  const std::byte* const begin = p;
  const std::byte* const end = p + n;
  const std::byte* item_end = p;  // end of the last complete top-level value
  item_count r;
  std::size_t owed = 0;  // values still to walk to complete the current top-level one
  while (p != end) {
    const auto avail = static_cast<std::size_t>(end - p);
    const extent x = avail >= 9 ? value_extent<true>(p, avail, lim) : extent_short(p, end, lim);
    if (x.ec == errc::truncated) break;  // a value not complete yet
    if (x.ec != errc::ok) {
      r.ec = x.ec;
      break;
    }
    p += x.size;
    owed = (owed == 0 ? 1 : owed) - 1 + x.owed;
    if (owed == 0) {
      ++r.items;
      item_end = p;
    }
  }
  r.complete = static_cast<std::size_t>(item_end - begin);
  return r;
}

std::size_t close_container(std::byte* at, std::size_t size, std::size_t counted, std::size_t items,
                            bool is_map, errc& ec) noexcept {
  const item_count rest = count_items(at + counted, size - counted);
  if (rest.ec != errc::ok) {
    ec = rest.ec;
    return 0;
  }
  if (counted + rest.complete != size) {
    ec = errc::truncated;
    return 0;
  }
  std::size_t n = items + rest.items;
  if (is_map) {
    if (n % 2 != 0) {
      ec = errc::invalid_argument;
      return 0;
    }
    n /= 2;
  }
  if (n > max_length) {
    ec = errc::too_large;
    return 0;
  }
  const std::size_t header = container_header_size(n);
  const std::size_t body = size - unsized_placeholder;
  std::memmove(at + header, at + unsized_placeholder, body);
  if (is_map)
    put_container_header<true>(at, n);
  else
    put_container_header<false>(at, n);
  return header + body;
}

}  // namespace mpk::inline v0::detail
