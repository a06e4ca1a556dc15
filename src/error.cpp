// Messages and the std::error_category of mpk::errc.
#include <mpk/error.hpp>

#include <cstdlib>
#include <string>

namespace mpk::inline v0 {

const char* message(errc code) noexcept {
  switch (code) {
    case errc::ok:
      return "no error";
    case errc::truncated:
      return "input ends inside a value";
    case errc::invalid_marker:
      return "invalid marker byte 0xc1";
    case errc::type_mismatch:
      return "value has another type than expected";
    case errc::out_of_range:
      return "value out of range for the target type";
    case errc::depth_exceeded:
      return "nesting deeper than the depth limit";
    case errc::limit_exceeded:
      return "length or count exceeds its limit or the input";
    case errc::invalid_utf8:
      return "string is not valid UTF-8";
    case errc::invalid_utf16:
      return "lone surrogate in UTF-16 text";
    case errc::invalid_timestamp:
      return "invalid timestamp";
    case errc::duplicate_key:
      return "duplicate map key";
    case errc::unknown_key:
      return "unknown map key";
    case errc::missing_key:
      return "missing map key or array element";
    case errc::trailing_bytes:
      return "trailing bytes after the value";
    case errc::too_large:
      return "too large for MessagePack (2^32 bytes or elements)";
    case errc::buffer_full:
      return "output buffer is full";
    case errc::out_of_memory:
      return "out of memory";
    case errc::io_error:
      return "input/output error";
    case errc::invalid_argument:
      return "invalid argument";
  }
  return "unknown error";
}

std::string error::to_string() const {
  std::string out = "offset " + std::to_string(offset);
  if (!note.path().empty()) out.append(" at ").append(note.path());
  out += ": ";
  if (!note.detail().empty())
    out.append(note.detail());
  else
    out += message();
  return out;
}

namespace {
class category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "mpk"; }
  std::string message(int code) const override { return mpk::message(static_cast<errc>(code)); }
};
}  // namespace

const std::error_category& error_category() noexcept {
  static const category instance;
  return instance;
}

namespace detail {
[[noreturn]] void throw_error(const error& e) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  throw exception(e);
#else
  (void)e;
  std::abort();
#endif
}
}  // namespace detail

}  // namespace mpk::inline v0
