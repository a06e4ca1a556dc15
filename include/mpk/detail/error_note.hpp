// mpk/detail/error_note.hpp - the text an mpk::error may carry besides its code and offset:
// the JSON Pointer of the member a typed decoding failed in, and what it expected there.
// Made only on failure (codec/core.hpp, read_context); an error without one holds a null
// pointer, so copying it costs what copying a null std::shared_ptr costs.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace mpk::inline v0::detail {

class error_note {
 public:
  error_note() noexcept = default;
  /// A note of `path` ("/items/2/price") and `detail` ("expected float64, got str"); an
  /// empty note when the allocation fails (the error keeps its code and offset).
  static error_note make(std::string path, std::string detail) noexcept {
    error_note n;
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    try {
      n.text_ = std::make_shared<const text>(text{std::move(path), std::move(detail)});
    } catch (...) {  // std::bad_alloc: the note is lost, not the error
      n.text_.reset();
    }
#else
    n.text_ = std::make_shared<const text>(text{std::move(path), std::move(detail)});
#endif
    return n;
  }
  /// The JSON Pointer ("" for the top-level value or when there is no note).
  std::string_view path() const noexcept {
    return text_ ? std::string_view(text_->path) : "";
  }
  /// What was expected and found ("" when the error code's message says it all).
  std::string_view detail() const noexcept {
    return text_ ? std::string_view(text_->detail) : "";
  }

 private:
  struct text {
    std::string path;
    std::string detail;
  };
  std::shared_ptr<const text> text_;
};

}  // namespace mpk::inline v0::detail
